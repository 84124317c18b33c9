//! The C# bindings: deterministic text, compiled by Mono's `mcs -langversion:7.2` against
//! Newtonsoft.Json without a warning, real sample values round-tripped through the generated
//! classes, the generated client calling the real `tools` binary, hostile descriptions and
//! names that stay text, and name clashes reported instead of resolved.
//!
//! The committed bindings over the real MCP transports are `mcp`; the Unity package, compiled
//! beside stand-in Unity assemblies and reloaded in AppDomains, is `unity`; its editor host,
//! serving editor tools through buril, is `editor`.
//!
//! The C# side is a harness program (`tests/csharp/*.cs`) compiled together with the generated
//! files and run with `mono`; it prints JSON that these tests check. The tests fail, never
//! skip, when `mcs` or `mono` is missing (`scripts/test.sh` installs them).
//!
//! This binary's tools are the example tools and the codegen tests' zoo (`buril-codegen/tests/common/zoo.rs`).

#[path = "csharp/clashes.rs"]
mod clashes;
mod common;
#[path = "csharp/editor.rs"]
mod editor;
#[allow(dead_code)]
#[path = "codegen/every_tool.rs"]
mod every_tool;
#[path = "csharp/hostile.rs"]
mod hostile;
#[path = "csharp/mcp.rs"]
mod mcp;
#[cfg(unix)]
#[path = "codegen/pipes.rs"]
mod pipes;
#[allow(dead_code)]
#[path = "../../buril-codegen/tests/common/samples.rs"]
mod samples;
#[path = "csharp/support.rs"]
mod support;
#[path = "csharp/unity.rs"]
mod unity;
#[allow(dead_code)]
#[path = "../../buril-codegen/tests/common/zoo.rs"]
mod zoo;

use std::fs;

use buril_test_support::bin;
use serde_json::{Value, json};
use tools as _;

use support::{
    Harness, api_of, check_catalog, difference, generate, mcs, registry_sources, write_generated,
};

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
            "csharp/Buril.EditorTools.cs",
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

#[test]
fn samples_round_trip_through_the_generated_classes() {
    let harness = Harness::build(&api_of(&registry_sources()), false);
    let samples = samples::samples_json();
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

/// Every typed method sends the bindings' hash and its tool's own, as the server computes them.
#[test]
fn the_client_sends_the_hashes_the_server_computes() {
    let sources = registry_sources();
    let api = api_of(&sources);
    let files = generate(&api);
    let client = &files
        .iter()
        .find(|f| f.path == "csharp/Buril.Client.cs")
        .expect("the client")
        .contents;
    assert!(client.contains(&format!(
        "public const string MetadataHash = \"{}\";",
        buril::registry().metadata_hash()
    )));
    for &tool in buril::registry().linked() {
        let call = format!("(\"{}\", \"{}\", input", tool.name(), tool.metadata_hash());
        // The blocking and the async method; and `Start…Async` for a task tool.
        let methods = if tool.meta().task.is_task() { 3 } else { 2 };
        assert_eq!(client.matches(&call).count(), methods, "{call}");
    }
}

#[test]
fn the_catalog_matches_the_registry() {
    let harness = Harness::build(&api_of(&registry_sources()), false);
    let catalog = harness.run(&["catalog"], &[]);
    check_catalog(&catalog, &registry_sources());
}

// ---------------------------------------------------------------------------------------------
// 4. The client against the real tools.

#[test]
fn the_client_calls_the_real_tools() {
    let tools = bin::tools();
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
    assert_eq!(
        live["invalid"]["validationException"],
        json!(true),
        "{live}"
    );
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
