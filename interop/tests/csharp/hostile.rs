//! Hostile text: descriptions, names and values that would end a doc comment, a string or a
//! line if they were not escaped stay text, compile and read back exactly.

use std::fs;

use buril_codegen::ToolSource;
use serde_json::{Value, json};

use super::support::{Harness, api_of, check_catalog, difference};

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
    let mut source = ToolSource::new("hostile_tool", input_schema, output_schema);
    let meta = &mut source.meta;
    meta.description = HOSTILE.into();
    meta.aliases = vec!["hostile_old".into()].into();
    meta.dangerous = true;
    meta.threading = buril::Threading::OffThread;
    meta.annotations.title = Some(HOSTILE.into());
    meta.annotations.read_only = Some(true);
    vec![source]
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
