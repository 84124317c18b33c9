//! Compiling the generated C# with the harness, running it, and reading what it prints.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use buril_codegen::ir::{Api, normalize};
use buril_codegen::{CSharp, GeneratedFile, LanguageWriter, ToolSource};
use serde_json::{Value, json};
use tempfile::TempDir;

/// Newtonsoft.Json as Debian's `libnewtonsoft-json-cil-dev` installs it.
pub const NEWTONSOFT: &str = "/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll";

/// What the generated files need (`System.Net.Http` for `BurilHttpTransport`), and
/// `System.Core` for the harness's LINQ.
const REFERENCES: &[&str] = &[
    NEWTONSOFT,
    "System.Numerics.dll",
    "System.Runtime.Serialization.dll",
    "System.Net.Http.dll",
    "System.Core.dll",
];

/// Mono's `System.Net.Http`, as Debian's `libmono-system-net-http4.0-cil` installs it.
const SYSTEM_NET_HTTP: &str = "/usr/lib/mono/4.5/System.Net.Http.dll";

pub fn registry_sources() -> Vec<ToolSource> {
    ToolSource::from_registry(buril::registry())
}

pub fn api_of(sources: &[ToolSource]) -> Api {
    normalize(sources).expect("the tools normalise")
}

pub fn generate(api: &Api) -> Vec<GeneratedFile> {
    CSharp.write(api).expect("the C# writer accepts the tools")
}

/// Runs a program, failing the test with a hint when it is not installed.
pub fn run(program: &str, args: &[String], envs: &[(&str, &Path)]) -> std::process::Output {
    let mut command = Command::new(program);
    command.args(args);
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().unwrap_or_else(|error| {
        panic!(
            "cannot run `{program}` ({error}): the C# tests need Mono (`mono-mcs`, \
             `mono-runtime`) and Newtonsoft.Json (`libnewtonsoft-json-cil-dev`); \
             scripts/test.sh installs them"
        )
    })
}

/// Writes the generated files under `dir` and returns the paths of the sources.
pub fn write_generated(dir: &Path, files: &[GeneratedFile]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for file in files {
        let path = dir.join(&file.path);
        fs::create_dir_all(path.parent().expect("a parent folder")).expect("a folder");
        fs::write(&path, &file.contents).expect("a generated file is written");
        paths.push(path);
    }
    paths
}

/// The harness sources, sorted.
pub fn harness_sources() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csharp");
    let mut sources: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/csharp exists")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "cs"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 5, "{sources:?}");
    sources
}

/// Compiles with `mcs -langversion:7.2 -warnaserror`, failing the test with the compiler's
/// output on any error or warning.
pub fn mcs(out: &Path, target: &str, sources: &[PathBuf], extra: &[String]) {
    if !Path::new(NEWTONSOFT).exists() {
        panic!(
            "{NEWTONSOFT} is missing: install `libnewtonsoft-json-cil-dev` (scripts/test.sh does)"
        );
    }
    if !Path::new(SYSTEM_NET_HTTP).exists() {
        panic!(
            "{SYSTEM_NET_HTTP} is missing: install `libmono-system-net-http4.0-cil` (the C# \
             runtime's HTTP transport uses System.Net.Http)"
        );
    }
    let mut args = vec![
        "-langversion:7.2".to_owned(),
        format!("-target:{target}"),
        "-warnaserror".to_owned(),
        "-warn:4".to_owned(),
        format!("-out:{}", out.display()),
    ];
    args.extend(REFERENCES.iter().map(|r| format!("-r:{r}")));
    args.extend(extra.iter().cloned());
    args.extend(sources.iter().map(|s| s.display().to_string()));
    let output = run("mcs", &args, &[]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && !text.contains("warning"),
        "mcs {} failed:\n{text}",
        args.join(" ")
    );
}

/// The generated files and the harness compiled into `Harness.exe` in a temporary folder.
pub struct Harness {
    pub dir: TempDir,
    exe: PathBuf,
    pub files: Vec<GeneratedFile>,
}

impl Harness {
    /// Builds the harness over `api`; `registry` enables the modes written for the registry's
    /// own types (`typed`, `live`).
    pub fn build(api: &Api, registry: bool) -> Harness {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let files = generate(api);
        let mut sources = write_generated(dir.path(), &files);
        sources.extend(harness_sources());
        let exe = dir.path().join("Harness.exe");
        let defines = if registry {
            vec!["-define:BURIL_REGISTRY".to_owned()]
        } else {
            Vec::new()
        };
        mcs(&exe, "exe", &sources, &defines);
        // Next to the program, for a Mono without Newtonsoft.Json in its GAC.
        fs::copy(NEWTONSOFT, dir.path().join("Newtonsoft.Json.dll")).expect("a copy");
        Harness { dir, exe, files }
    }

    /// Runs a mode and reads the JSON it prints.
    pub fn run(&self, args: &[&str], envs: &[(&str, &Path)]) -> Value {
        let mut all = vec![self.exe.display().to_string()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        let output = run("mono", &all, envs);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "mono {all:?} failed ({}):\n{stdout}\n{stderr}",
            output.status
        );
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|error| panic!("the harness printed no JSON ({error}):\n{stdout}"))
    }
}

/// Where two JSON values differ (`None`: equal). Numbers compare as JSON values, so `2` and
/// `2.0` differ: the generated code must write floats as floats and integers as integers.
pub fn difference(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys()) {
                let here = format!("{path}/{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => {
                        if let Some(found) = difference(x, y, &here) {
                            return Some(found);
                        }
                    }
                    (Some(_), None) => return Some(format!("{here}: missing")),
                    (None, Some(y)) => return Some(format!("{here}: unexpected {y}")),
                    (None, None) => {}
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, &format!("{path}/{i}"))),
        _ if expected == actual => None,
        _ => Some(format!("{path}: expected {expected}, got {actual}")),
    }
}

/// The catalog the harness printed holds exactly what the sources say, and no member was
/// named from a description.
pub fn check_catalog(catalog: &Value, sources: &[ToolSource]) {
    assert_eq!(catalog["injected"], json!([]), "{}", catalog["injected"]);
    let tools = catalog["tools"].as_array().expect("an array");
    let mut sources: Vec<&ToolSource> = sources.iter().collect();
    sources.sort_by(|a, b| a.meta.name.cmp(&b.meta.name));
    assert_eq!(tools.len(), sources.len());
    for (tool, source) in tools.iter().zip(sources) {
        let meta = &source.meta;
        let name = &meta.name;
        assert_eq!(tool["name"], json!(name));
        assert_eq!(tool["title"], json!(meta.annotations.title), "{name}");
        assert_eq!(tool["description"], json!(meta.description), "{name}");
        assert_eq!(tool["family"], json!(meta.family), "{name}");
        assert_eq!(tool["aliases"], json!(meta.aliases), "{name}");
        assert_eq!(tool["dangerous"], json!(meta.dangerous), "{name}");
        assert_eq!(
            tool["offThread"],
            json!(meta.threading.is_off_thread()),
            "{name}"
        );
        assert_eq!(
            tool["offThreadAttribute"],
            json!(meta.threading.is_off_thread()),
            "{name}"
        );
        assert_eq!(
            tool["inputSchema"].as_str(),
            Some(source.input_schema.to_string().as_str()),
            "{name}"
        );
        assert_eq!(
            tool["outputSchema"].as_str(),
            Some(source.output_schema.to_string().as_str()),
            "{name}"
        );
    }
}
