//! What the TypeScript tests share: generating the files, locating `tsc` and `node`, and a
//! temporary folder to compile and run in.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use buril_codegen::ir::{Api, normalize};
use buril_codegen::{GeneratedFile, LanguageWriter, ToolSource, TypeScript};
use buril_test_support::bin::workspace;
use serde_json::{Value, json};

/// The project-local TypeScript compiler. Missing is a failure, never a skip.
pub fn tsc() -> PathBuf {
    let path = workspace().join("interop/node_modules/.bin/tsc");
    assert!(
        path.exists(),
        "the TypeScript compiler is missing at {}: run `bash scripts/test.sh` (which runs \
         `npm ci --prefix interop`) to install it",
        path.display()
    );
    path
}

/// The project-local `typescript` package (for scripts that use the compiler's API).
pub fn typescript_package() -> PathBuf {
    tsc();
    workspace().join("interop/node_modules/typescript")
}

/// The type declarations of Node.js (for the live harness).
fn node_types() -> PathBuf {
    let path = workspace().join("interop/node_modules/@types");
    assert!(
        path.join("node").exists(),
        "@types/node is missing under {}: run `bash scripts/test.sh` (which runs `npm ci \
         --prefix interop`) to install it",
        path.display()
    );
    path
}

/// Every tool of the registry: the example tools and the zoo.
pub fn registry_sources() -> Vec<ToolSource> {
    ToolSource::from_registry(buril::registry())
}

/// The API of `sources`.
pub fn api(sources: &[ToolSource]) -> Api {
    normalize(sources).expect("the tools normalise")
}

/// The TypeScript files for `sources`.
pub fn generate(sources: &[ToolSource]) -> Vec<GeneratedFile> {
    TypeScript
        .write(&api(sources))
        .expect("the TypeScript writer succeeds")
}

/// How a folder is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    /// No `package.json`: `nodenext` treats the files as CommonJS.
    CommonJs,
    /// `"type": "module"` and `verbatimModuleSyntax`: the files are ES modules.
    Esm,
}

/// The compiler settings of every test: everything strict that `--strict` leaves out too, no
/// DOM and no ambient `@types` (so the generated code depends on nothing but ES2022), Node's
/// module resolution (relative imports must end in `.js`), and plain diagnostics
/// (`file(line,col): error TS...`).
pub fn compiler_options(module: Module) -> Value {
    let mut options = json!({
        "strict": true,
        "exactOptionalPropertyTypes": true,
        "noUnusedLocals": true,
        "noUnusedParameters": true,
        "noImplicitReturns": true,
        "noFallthroughCasesInSwitch": true,
        "noImplicitOverride": true,
        "noUncheckedIndexedAccess": true,
        "noPropertyAccessFromIndexSignature": true,
        "allowUnreachableCode": false,
        "allowUnusedLabels": false,
        "isolatedModules": true,
        "forceConsistentCasingInFileNames": true,
        "target": "es2022",
        "lib": ["es2022"],
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "types": [],
        "pretty": false,
        "noEmit": true,
    });
    if module == Module::Esm {
        options["verbatimModuleSyntax"] = json!(true);
    }
    options
}

/// A temporary folder holding generated files and test sources.
pub struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    /// A folder with `files` written under it (at their relative paths).
    pub fn with(files: &[GeneratedFile]) -> Folder {
        let folder = Folder {
            dir: tempfile::tempdir().expect("a temporary folder"),
        };
        for file in files {
            folder.write(&file.path, &file.contents);
        }
        folder
    }

    /// The folder's path (for tests that compile with their own settings).
    #[allow(dead_code)]
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `contents` to `relative`.
    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
        std::fs::write(&path, contents).expect("the file is written");
    }

    /// Runs `tsc -p` over every `.ts` file of the folder with `options`.
    pub fn tsc(&self, options: &Value) -> Output {
        let config = json!({
            "compilerOptions": options,
            "include": ["**/*.ts"],
            "exclude": ["out"],
        });
        self.write(
            "tsconfig.json",
            &serde_json::to_string_pretty(&config).expect("JSON"),
        );
        Command::new(tsc())
            .arg("-p")
            .arg(self.dir.path().join("tsconfig.json"))
            .current_dir(self.dir.path())
            .output()
            .expect("tsc runs (node must be on the PATH)")
    }

    /// Compiles the folder and panics with the compiler's output unless it succeeds.
    pub fn compile_ok(&self, module: Module) {
        if module == Module::Esm {
            self.write("package.json", "{ \"type\": \"module\" }\n");
        }
        let output = self.tsc(&compiler_options(module));
        assert_success("tsc", &output);
    }

    /// Compiles the folder to JavaScript in `out/` (CommonJS, with the same checks), with
    /// Node's types when `with_node` is set.
    pub fn emit(&self, with_node: bool) {
        let mut options = compiler_options(Module::CommonJs);
        options["noEmit"] = json!(false);
        options["outDir"] = json!("out");
        options["rootDir"] = json!(".");
        if with_node {
            options["types"] = json!(["node"]);
            options["typeRoots"] = json!([node_types()]);
        }
        let output = self.tsc(&options);
        assert_success("tsc", &output);
    }

    /// Runs `node script args...` in the folder; returns its standard output, panicking with
    /// both streams when it fails.
    pub fn node(&self, script: &str, args: &[&str]) -> String {
        let output = Command::new("node")
            .arg(self.dir.path().join(script))
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .expect("node runs: install Node.js (`node` must be on the PATH)");
        assert_success("node", &output);
        String::from_utf8(output.stdout).expect("UTF-8 output")
    }
}

/// Panics with a program's output unless it exited with 0.
pub fn assert_success(program: &str, output: &Output) {
    assert!(
        output.status.success(),
        "{program} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The generated file at `path`.
pub fn file<'a>(files: &'a [GeneratedFile], path: &str) -> &'a str {
    &files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no file {path}"))
        .contents
}
