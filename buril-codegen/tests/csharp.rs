//! The C# bindings: deterministic text, compiled by Mono's `mcs -langversion:7.2` against
//! Newtonsoft.Json without a warning, real sample values round-tripped through the generated
//! classes, the generated client calling the real `tools` binary, hostile descriptions and
//! names that stay text, and name clashes reported instead of resolved.
//!
//! The C# side is a harness program (`tests/csharp/*.cs`) compiled together with the generated
//! files and run with `mono`; it prints JSON that these tests check. The tests fail, never
//! skip, when `mcs` or `mono` is missing (`scripts/test.sh` installs them).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use buril_codegen::ir::{Api, normalize};
use buril_codegen::{CSharp, GeneratedFile, LanguageWriter, ToolSource};
use serde_json::{Value, json};
use tempfile::TempDir;
use tools as _;

/// Newtonsoft.Json as Debian's `libnewtonsoft-json-cil-dev` installs it.
const NEWTONSOFT: &str = "/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll";

/// What the generated files need, and `System.Core` for the harness's LINQ.
const REFERENCES: &[&str] = &[
    NEWTONSOFT,
    "System.Numerics.dll",
    "System.Runtime.Serialization.dll",
    "System.Core.dll",
];

fn registry_sources() -> Vec<ToolSource> {
    ToolSource::from_registry(buril::registry())
}

fn api_of(sources: &[ToolSource]) -> Api {
    normalize(sources).expect("the tools normalise")
}

fn generate(api: &Api) -> Vec<GeneratedFile> {
    CSharp.write(api).expect("the C# writer accepts the tools")
}

// ---------------------------------------------------------------------------------------------
// Compiling and running C#.

/// Runs a program, failing the test with a hint when it is not installed.
fn run(program: &str, args: &[String], envs: &[(&str, &Path)]) -> std::process::Output {
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
fn write_generated(dir: &Path, files: &[GeneratedFile]) -> Vec<PathBuf> {
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
fn harness_sources() -> Vec<PathBuf> {
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
fn mcs(out: &Path, target: &str, sources: &[PathBuf], extra: &[String]) {
    if !Path::new(NEWTONSOFT).exists() {
        panic!(
            "{NEWTONSOFT} is missing: install `libnewtonsoft-json-cil-dev` (scripts/test.sh does)"
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
struct Harness {
    dir: TempDir,
    exe: PathBuf,
    files: Vec<GeneratedFile>,
}

impl Harness {
    /// Builds the harness over `api`; `registry` enables the modes written for the registry's
    /// own types (`typed`, `live`).
    fn build(api: &Api, registry: bool) -> Harness {
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
    fn run(&self, args: &[&str], envs: &[(&str, &Path)]) -> Value {
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

// ---------------------------------------------------------------------------------------------
// 1. Determinism.

#[test]
fn output_is_deterministic_sorted_lf_and_headed() {
    let sources = registry_sources();
    let first = generate(&api_of(&sources));
    let mut reversed = sources.clone();
    reversed.reverse();
    assert_eq!(first, generate(&api_of(&sources)));
    assert_eq!(first, generate(&api_of(&reversed)));

    let paths: Vec<&str> = first.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "csharp/Buril.Client.cs",
            "csharp/Buril.Runtime.cs",
            "csharp/Buril.Tools.cs",
            "csharp/Buril.Types.cs",
        ]
    );
    let api = api_of(&sources);
    let header: Vec<String> = buril_codegen::writer::header_lines(&api)
        .iter()
        .map(|line| format!("// {line}"))
        .collect();
    for file in &first {
        let lines: Vec<&str> = file.contents.lines().collect();
        assert_eq!(lines[..header.len()], header[..], "{}", file.path);
        assert!(!file.contents.contains('\r'), "{} has CR", file.path);
        assert!(file.contents.ends_with("}\n"), "{}", file.path);
        for (number, line) in lines.iter().enumerate() {
            assert!(
                !line.ends_with(' ') && !line.contains('\t'),
                "{}:{}: trailing space or tab",
                file.path,
                number + 1
            );
        }
        // C# 7.2 and Unity: block-scoped namespace, nothing newer (outside comments and
        // string literals).
        assert!(file.contents.contains("namespace Buril.Generated\n{\n"));
        for line in &lines {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let code = without_string_literals(code);
            let words: Vec<&str> = code
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '#')
                .collect();
            for newer in ["record", "init", "required", "#nullable"] {
                assert!(
                    !words.contains(&newer),
                    "{}: `{newer}` in {line}",
                    file.path
                );
            }
            assert!(!code.contains("namespace Buril.Generated;"));
        }
    }
}

/// A line of C# with its regular string literals blanked out.
fn without_string_literals(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (in_string, c) {
            (false, '"') | (true, '"') => {
                in_string = !in_string;
                out.push(' ');
            }
            (true, '\\') => {
                chars.next();
            }
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// 2. Compiling.

#[test]
fn the_bindings_compile_without_a_warning_and_with_documentation() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let sources = write_generated(dir.path(), &generate(&api_of(&registry_sources())));
    // `-doc` checks every doc comment is well-formed XML and every public member has one.
    mcs(
        &dir.path().join("Buril.Generated.dll"),
        "library",
        &sources,
        &[format!(
            "-doc:{}",
            dir.path().join("Buril.Generated.xml").display()
        )],
    );
    let docs = fs::read_to_string(dir.path().join("Buril.Generated.xml")).expect("the docs");
    assert!(docs.contains("T:Buril.Generated.ZooShapeTool"));
    assert!(docs.contains("Tries to break out: */ &lt;/summary&gt; &lt;script&gt;"));
}

// ---------------------------------------------------------------------------------------------
// 3. Round trip of real samples.

/// Where two JSON values differ (`None`: equal). Numbers compare as JSON values, so `2` and
/// `2.0` differ: the generated code must write floats as floats and integers as integers.
fn difference(expected: &Value, actual: &Value, path: &str) -> Option<String> {
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

#[test]
fn samples_round_trip_through_the_generated_classes() {
    let harness = Harness::build(&api_of(&registry_sources()), false);
    let samples = common::samples::samples_json();
    let path = harness.dir.path().join("samples.json");
    fs::write(&path, samples.to_string()).expect("the samples are written");
    let results = harness.run(&["roundtrip", &path.display().to_string()], &[]);
    let samples = samples.as_array().expect("an array");
    let results = results.as_array().expect("an array");
    assert_eq!(samples.len(), results.len());
    assert!(samples.len() >= 58, "{}", samples.len());

    let mut failures = Vec::new();
    for (sample, result) in samples.iter().zip(results) {
        let what = format!("{} {}", sample["tool"], sample["side"]);
        assert_eq!(sample["tool"], result["tool"]);
        assert_eq!(sample["side"], result["side"]);
        if let Some(error) = result.get("error") {
            failures.push(format!("{what}: {error} (value {})", sample["value"]));
            continue;
        }
        // What the class wrote as text, read back exactly.
        let text = result["text"].as_str().expect("text");
        let written: Value = serde_json::from_str(text).expect("the C# side wrote JSON");
        if let Some(found) = difference(&sample["value"], &written, "") {
            failures.push(format!(
                "{what} (text): {found}\n  in  {}\n  out {text}",
                sample["value"]
            ));
        }
        if let Some(found) = difference(&sample["value"], &result["token"], "") {
            failures.push(format!("{what} (JToken): {found}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The 64-bit sample is among them, beyond the range of `long`.
    assert!(
        samples
            .iter()
            .any(|s| s["value"]["maybe"] == json!(u64::MAX))
    );
}

// ---------------------------------------------------------------------------------------------
// Typed use: construction, unions, the tool side.

#[test]
fn the_generated_classes_behave_as_documented() {
    let harness = Harness::build(&api_of(&registry_sources()), true);
    let typed = harness.run(&["typed"], &[]);
    let text = |key: &str| -> Value {
        serde_json::from_str(
            typed[key]
                .as_str()
                .unwrap_or_else(|| panic!("{key}: {typed}")),
        )
        .expect("JSON")
    };
    // Unset optional properties are left out; null set explicitly is written.
    assert_eq!(
        text("shape"),
        json!({"shape": {"kind": "rect", "width": 2.0, "height": 3.0}})
    );
    assert_eq!(
        text("rectNullLabel"),
        json!({"kind": "rect", "width": 1.0, "height": 1.0, "label": null})
    );
    assert_eq!(
        text("numbers"),
        json!({"big": u64::MAX, "signed": i64::MIN, "small": -128, "medium": u32::MAX, "ratio": 0.5})
    );
    assert_eq!(
        text("keywords"),
        json!({"class": "c", "default": true, "function": -7, "type": "right-now", "with-dash": 3})
    );
    assert_eq!(
        text("tree"),
        json!({"root": {"name": "root", "children": [{"name": "leaf", "children": [], "detail": null}]}})
    );
    assert_eq!(text("free"), json!({"value": null}));
    assert_eq!(text("urgency"), json!({"urgency": "default"}));
    assert!(
        typed["missingRequired"]
            .as_str()
            .is_some_and(|e| e.contains("'text'")),
        "{typed}"
    );
    // Tagged unions read into their variant classes; bad tags and fields are errors.
    assert_eq!(
        typed["variants"],
        json!(["ShapeCircle", "ShapePoint", "ShapeCircle", 2.0, "circle"])
    );
    for (key, needle) in [
        ("unknownTag", "hexagon"),
        ("noTag", "`kind`"),
        ("missingField", "'radius'"),
        ("nullShape", "'shape'"),
    ] {
        assert!(
            typed[key]
                .as_str()
                .is_some_and(|e| e.starts_with("JsonSerializationException") && e.contains(needle)),
            "{key}: {}",
            typed[key]
        );
    }
    // Untagged unions keep the JSON and read it per alternative.
    assert_eq!(typed["pair"], json!([false, false, true]));
    assert_eq!(
        typed["fromNumber"],
        json!(["{\"value\":4.25}", true, false, false])
    );
    // Strings that look like dates stay strings.
    for written in typed["date"].as_array().expect("an array") {
        assert!(
            written
                .as_str()
                .is_some_and(|t| t.contains("\"2024-01-02T03:04:05Z\"")),
            "{written}"
        );
    }
    assert_eq!(typed["integers"], json!(true));

    // The tool side: ITool members and Run's envelopes.
    let escape = buril::registry().get("zoo_escape").expect("zoo_escape");
    assert_eq!(typed["escapeName"], json!("zoo_escape"));
    assert_eq!(typed["escapeDescription"], json!(escape.description()));
    let schema = typed["escapeInputSchema"].as_str().expect("a string");
    assert_eq!(schema, escape.input_schema().to_string());
    assert_eq!(
        serde_json::from_str::<Value>(schema).expect("JSON"),
        *escape.input_schema()
    );
    assert_eq!(
        typed["escapeOutputSchema"].as_str(),
        Some(escape.output_schema().to_string().as_str())
    );
    assert_eq!(
        typed["escapeRun"],
        json!({"ok": true, "data": {"result": "*/ \" ${x} </summary>"}})
    );
    for key in ["escapeRunMissing", "escapeRunNull"] {
        assert_eq!(typed[key]["ok"], json!(false), "{key}");
        assert_eq!(typed[key]["type"], json!("validation"), "{key}");
        assert!(
            typed[key]["error"]
                .as_str()
                .is_some_and(|e| e.contains("'text'")),
            "{key}: {}",
            typed[key]
        );
    }
    assert_eq!(
        typed["shapeRun"],
        json!({"ok": true, "data": {"shape": {"kind": "circle", "radius": 1.0}, "more": []}})
    );
    assert_eq!(
        typed["shapeRefused"],
        json!({"ok": false, "type": "validation", "error": "the radius is negative",
               "problems": [{"path": "/shape/radius", "message": "must be at least 0"}]})
    );
    assert!(
        typed["nullOutput"]
            .as_str()
            .is_some_and(|e| e.starts_with("InvalidOperationException")),
        "{typed}"
    );
}

#[test]
fn the_catalog_matches_the_registry() {
    let harness = Harness::build(&api_of(&registry_sources()), false);
    let catalog = harness.run(&["catalog"], &[]);
    check_catalog(&catalog, &registry_sources());
}

/// The catalog the harness printed holds exactly what the sources say, and no member was
/// named from a description.
fn check_catalog(catalog: &Value, sources: &[ToolSource]) {
    assert_eq!(catalog["injected"], json!([]), "{}", catalog["injected"]);
    let tools = catalog["tools"].as_array().expect("an array");
    let mut sources: Vec<&ToolSource> = sources.iter().collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(tools.len(), sources.len());
    for (tool, source) in tools.iter().zip(sources) {
        let name = &source.name;
        assert_eq!(tool["name"], json!(name));
        assert_eq!(tool["title"], json!(source.title), "{name}");
        assert_eq!(tool["description"], json!(source.description), "{name}");
        assert_eq!(tool["family"], json!(source.family), "{name}");
        assert_eq!(tool["aliases"], json!(source.aliases), "{name}");
        assert_eq!(tool["dangerous"], json!(source.dangerous), "{name}");
        assert_eq!(tool["offThread"], json!(source.off_thread), "{name}");
        assert_eq!(
            tool["offThreadAttribute"],
            json!(source.off_thread),
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

// ---------------------------------------------------------------------------------------------
// 4. The client against the real tools.

/// Builds the `tools` binary (the example tools and the zoo's command line) and returns its
/// path, as Cargo reports it.
fn tools_binary() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace");
    let output = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "tools",
            "--bin",
            "tools",
            "--message-format=json",
        ])
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo build -p tools failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the tools executable")
}

#[test]
fn the_client_calls_the_real_tools() {
    let tools = tools_binary();
    let harness = Harness::build(&api_of(&registry_sources()), true);
    let project = harness.dir.path().join("project");
    let live = harness.run(
        &["live", &tools.display().to_string()],
        &[("BURIL_PROJECT", &project)],
    );
    let roots = json!(["Main Camera", "Directional Light", "Ground", "Player"]);
    assert_eq!(
        live["open"],
        json!({"scene": "Main", "path": "Assets/Scenes/Main.scene", "objectCount": 5,
               "roots": roots, "openScenes": ["Main"]})
    );
    // Typed input in, typed output out (a 64-bit id, nested transforms, lists).
    let created = &live["created"];
    assert_eq!(created["name"], json!("Enemy"));
    assert_eq!(created["scene"], json!("Main"));
    assert!(
        created["id"]
            .as_str()
            .is_some_and(|id| id.parse::<u64>().is_ok()),
        "{created}"
    );
    assert_eq!(
        [&created["x"], &created["y"], &created["z"]],
        [&json!(1.0), &json!(0.5), &json!(-2.0)]
    );
    assert_eq!(
        created["components"],
        json!(["MeshFilter", "MeshRenderer", "BoxCollider"])
    );
    assert_eq!(created["parentIsNull"], json!(true));
    // Each call is its own process: the new object was not saved.
    assert_eq!(live["listed"], roots);
    assert_eq!(live["listedIds"], json!(["1", "2", "3", "4"]));
    // The deprecated alias answers the same, and is sent under the current name.
    assert_eq!(live["alias"], roots);
    assert_eq!(
        live["aliasObsolete"],
        json!(
            "`scene_get_hierarchy` was renamed: use SceneListGameobjects (`scene_list_gameobjects`)"
        )
    );
    // Failures are typed exceptions.
    assert_eq!(live["missing"]["type"], json!("validation"), "{live}");
    assert_eq!(live["missing"]["tool"], json!("gameobject_get"));
    assert!(
        live["missing"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("999")),
        "{live}"
    );
    assert_eq!(live["invalid"]["type"], json!("validation"), "{live}");
    assert_eq!(live["invalid"]["problems"][0]["path"], json!("/name"));
    assert_eq!(live["unknown"]["type"], json!("not_found"), "{live}");
    assert!(
        live["unknown"]["suggestions"]
            .as_array()
            .is_some_and(|s| s.contains(&json!("scene_list"))),
        "{live}"
    );
    assert_eq!(
        live["sent"],
        json!([
            "scene_open",
            "gameobject_create",
            "scene_list_gameobjects",
            "scene_list_gameobjects",
            "gameobject_get",
            "gameobject_create",
            "scene_lst"
        ])
    );
}

// ---------------------------------------------------------------------------------------------
// 5. Hostile text.

/// Text that would end a doc comment, a string or a line if it were not escaped.
const HOSTILE: &str = "*/ </summary> <c> & \"quoted\" 'single' \\ backslash \\\" \r\n\
    /// <summary>injected</summary>\rpublic static void Injected() {} /*\u{2028}\
    public void Injected2() {}\u{2029}after PS\u{85}after NEL\u{0}nul \u{7f} é 😀 \
    #region x\n#endregion\n}\n";

/// A tool whose every name and text is hostile.
fn hostile_sources() -> Vec<ToolSource> {
    let input_schema = json!({
        "type": "object",
        "description": HOSTILE,
        "properties": {
            "class": {"type": "string", "description": HOSTILE},
            "hostile_tool_input": {"type": "integer", "description": "named like its class"},
            "to_string": {"type": "boolean"},
            "\"quoted\"\n": {"type": ["string", "null"], "description": "*/"},
            "mode": {"$ref": "#/$defs/Mode"},
            "choice": {"$ref": "#/$defs/Choice"},
            "名前": {"type": "string"}
        },
        "required": ["class", "hostile_tool_input", "mode"],
        "$defs": {
            "Mode": {
                "type": "string",
                "enum": ["a\"b", "</summary>", "default", "*/", "Mode"],
                "description": HOSTILE
            },
            "Choice": {
                "description": HOSTILE,
                "oneOf": [
                    {
                        "type": "object",
                        "description": HOSTILE,
                        "properties": {
                            "tag": {"type": "string", "const": "x*/y"},
                            "value": {"type": "string", "description": HOSTILE}
                        },
                        "required": ["tag"]
                    },
                    {
                        "type": "object",
                        "properties": {"tag": {"type": "string", "const": "\"q\""}},
                        "required": ["tag"]
                    }
                ]
            }
        }
    });
    let output_schema = json!({
        "type": "object",
        "properties": {"echo": {"type": "string", "description": HOSTILE}},
        "required": ["echo"]
    });
    vec![ToolSource {
        name: "hostile_tool".into(),
        description: HOSTILE.into(),
        family: "hostile".into(),
        aliases: vec!["hostile_old".into()],
        input_schema,
        output_schema,
        dangerous: true,
        off_thread: true,
        title: Some(HOSTILE.into()),
        read_only: Some(true),
        destructive: None,
        idempotent: None,
        open_world: None,
    }]
}

#[test]
fn hostile_text_stays_text() {
    let sources = hostile_sources();
    let api = api_of(&sources);
    let harness = Harness::build(&api, false);

    // No C# line terminator reaches the source but LF.
    for file in &harness.files {
        for bad in ['\r', '\u{85}', '\u{2028}', '\u{2029}', '\0'] {
            assert!(!file.contents.contains(bad), "{} has {:?}", file.path, bad);
        }
    }
    let types = &harness
        .files
        .iter()
        .find(|f| f.path.ends_with("Types.cs"))
        .expect("the types")
        .contents;
    for renamed in [
        "public string Class { get; set; }",
        "public global::System.Numerics.BigInteger HostileToolInput_ { get; set; }",
        "public bool? ToString_ { get; set; }",
        "public string Quoted",
        "public string Property6 { get; set; }",
        "Mode_,",
        "Property3,",
        "public sealed partial class ChoiceXY : Choice",
        "[global::Newtonsoft.Json.JsonProperty(\"\\\"quoted\\\"\\n\", ",
        "[global::System.Runtime.Serialization.EnumMember(Value = \"a\\\"b\")]",
        "[global::Newtonsoft.Json.JsonProperty(\"\\u540D\\u524D\", ",
    ] {
        assert!(types.contains(renamed), "no `{renamed}` in\n{types}");
    }

    // Everything embedded reads back exactly; no member came from a description.
    let catalog = harness.run(&["catalog"], &[]);
    check_catalog(&catalog, &sources);

    // Values with the hostile wire names round-trip.
    let input = json!({"class": "*/", "hostile_tool_input": u64::MAX, "to_string": true,
                       "\"quoted\"\n": null, "mode": "</summary>",
                       "choice": {"tag": "x*/y", "value": "v\u{2028}"}, "名前": "é😀"});
    let absent = json!({"class": "", "hostile_tool_input": -1, "mode": "Mode",
                        "choice": {"tag": "\"q\""}});
    let samples = json!([
        {"tool": "hostile_tool", "side": "input", "value": input},
        {"tool": "hostile_tool", "side": "input", "value": absent},
        {"tool": "hostile_tool", "side": "output", "value": {"echo": HOSTILE}},
    ]);
    let path = harness.dir.path().join("samples.json");
    fs::write(&path, samples.to_string()).expect("the samples are written");
    let results = harness.run(&["roundtrip", &path.display().to_string()], &[]);
    for (sample, result) in samples
        .as_array()
        .expect("samples")
        .iter()
        .zip(results.as_array().expect("results"))
    {
        let text = result["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{result}"));
        let written: Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(difference(&sample["value"], &written, ""), None, "{text}");
        assert_eq!(difference(&sample["value"], &result["token"], ""), None);
    }
}

// ---------------------------------------------------------------------------------------------
// Clashes are reported, not resolved.

/// A minimal tool with the given input properties and `$defs`.
fn tool(name: &str, properties: Value, defs: Value) -> ToolSource {
    ToolSource {
        description: "A tool.".into(),
        family: "test".into(),
        ..ToolSource::new(
            name,
            json!({"type": "object", "properties": properties, "$defs": defs}),
            json!({"type": "object", "properties": {}}),
        )
    }
}

fn writer_error(sources: &[ToolSource]) -> String {
    let api = api_of(sources);
    match CSharp.write(&api) {
        Ok(_) => panic!("the writer accepted a clash"),
        Err(error) => {
            assert_eq!(error.language, "C#");
            error.to_string()
        }
    }
}

#[test]
fn a_type_named_like_the_runtime_is_an_error() {
    for runtime in [
        "BurilClient",
        "ITool",
        "IToolTransport",
        "BurilToolException",
        "BurilJson",
    ] {
        let source = tool(
            "thing_make",
            json!({"value": {"$ref": format!("#/$defs/{runtime}")}}),
            json!({runtime: {"type": "object", "properties": {"x": {"type": "string"}}}}),
        );
        let error = writer_error(&[source]);
        assert!(error.contains(&format!("`{runtime}`")), "{error}");
        assert!(error.contains("runtime"), "{error}");
    }
}

#[test]
fn a_type_named_like_a_generated_class_is_an_error() {
    // A struct named like the converter of a union, a variant, and a tool class.
    let union = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
    ]});
    let object = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    for (clash, expected) in [
        ("ShapeConverter", "the converter of `Shape`"),
        ("ShapeA", "the `a` variant of `Shape`"),
        ("ThingMakeTool", "the tool class of `thing_make`"),
    ] {
        let source = tool(
            "thing_make",
            json!({"shape": {"$ref": "#/$defs/Shape"}, "other": {"$ref": format!("#/$defs/{clash}")}}),
            json!({"Shape": union, clash: object}),
        );
        let error = writer_error(&[source]);
        assert!(error.contains(&format!("`{clash}`")), "{error}");
        assert!(error.contains(expected), "{error}");
    }
}

#[test]
fn two_properties_with_one_csharp_name_are_an_error() {
    let source = tool(
        "thing_make",
        json!({"with-dash": {"type": "string"}, "with_dash": {"type": "string"}}),
        json!({}),
    );
    let error = writer_error(&[source]);
    assert!(error.contains("`WithDash`"), "{error}");
    assert!(error.contains("`ThingMakeInput`"), "{error}");

    // A property named like the presence check of another.
    let source = tool(
        "thing_make",
        json!({"label": {"type": ["string", "null"]}, "should_serialize_label": {"type": "boolean"}}),
        json!({}),
    );
    let error = writer_error(&[source]);
    assert!(error.contains("`ShouldSerializeLabel`"), "{error}");

    // Newtonsoft.Json's `{Name}Specified` convention.
    let source = tool(
        "thing_make",
        json!({"value": {"type": "string"}, "value_specified": {"type": "boolean"}}),
        json!({}),
    );
    let error = writer_error(&[source]);
    assert!(error.contains("`ValueSpecified`"), "{error}");

    // Two enum values.
    let source = tool(
        "thing_make",
        json!({"mode": {"type": "string", "enum": ["a-b", "a_b"]}}),
        json!({}),
    );
    let error = writer_error(&[source]);
    assert!(error.contains("`AB`"), "{error}");
}

#[test]
fn client_method_clashes_are_errors() {
    // A tool named like a member of the client.
    let error = writer_error(&[tool("call", json!({}), json!({}))]);
    assert!(error.contains("`Call`"), "{error}");
    let error = writer_error(&[tool("to_string", json!({}), json!({}))]);
    assert!(error.contains("`ToString`"), "{error}");
    // An alias named like another tool.
    let mut renamed = tool("thing_make", json!({}), json!({}));
    renamed.aliases = vec!["thing_build".into()];
    let error = writer_error(&[renamed, tool("thing_build", json!({}), json!({}))]);
    assert!(error.contains("`ThingBuild`"), "{error}");
}

#[test]
fn names_that_are_not_identifiers_are_errors() {
    let error = writer_error(&[tool("é", json!({}), json!({}))]);
    assert!(error.contains("not a C# identifier"), "{error}");
}
