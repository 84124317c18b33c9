//! The OpenAI profile: strict function tools (every object closed, every property required,
//! optional ones nullable) that accept what the tool accepts, the fall-back to non-strict with
//! the reason, and the Chat Completions form.

use crate::profile_tools;

use buril::profile::{self, Profile};
use profile_tools::{all_keys, hand, overlapping, rendered, same_verdicts, tool, validator, walk};
use serde_json::{Value, json};

#[test]
fn openai_gives_a_strict_function_tool() {
    assert_eq!(
        rendered(Profile::OpenAi, "pf_move"),
        json!({
            "type": "function",
            "name": "pf_move",
            "description": "Moves a point.",
            "parameters": {
                "type": "object",
                "properties": {
                    "point": {
                        "anyOf": [{"$ref": "#/$defs/Point"}],
                        "description": "The point to move.",
                    },
                    "mode": {
                        "anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}],
                        "description": "How to move it.",
                    },
                    "note": {"type": ["string", "null"], "description": "A note for the log."},
                    "steps": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": u64::MAX,
                        "description": "How many steps.",
                    },
                    "via": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/Point"},
                        "description": "Points to pass through.",
                    },
                },
                "required": ["point", "mode", "note", "steps", "via"],
                "additionalProperties": false,
                "$defs": {
                    "Point": {
                        "type": "object",
                        "properties": {
                            "x": {"type": "number", "description": "Metres along x."},
                            "y": {"type": "number", "description": "Metres along y."},
                        },
                        "required": ["x", "y"],
                        "description": "A point in the plane.",
                        "additionalProperties": false,
                    },
                    "Mode": {
                        "anyOf": [
                            {"type": "string", "enum": ["fast"], "description": "As fast as possible."},
                            {"type": "string", "enum": ["careful"], "description": "Avoiding obstacles."},
                        ],
                        "description": "How to move.",
                    },
                },
            },
            "strict": true,
        })
    );
    assert_eq!(
        rendered(Profile::OpenAi, "pf_ping"),
        json!({
            "type": "function",
            "name": "pf_ping",
            "description": "Answers.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": false},
            "strict": true,
        })
    );
}

#[test]
fn openai_strict_schemas_close_every_object_and_require_every_property() {
    let (definitions, errors) = profile::render_all(Profile::OpenAi, buril::registry());
    assert!(errors.is_empty(), "{errors:?}");
    let strict: Vec<_> = definitions
        .iter()
        .filter(|d| d.value["strict"] == true)
        .collect();
    let names: Vec<&str> = strict.iter().map(|d| d.tool.as_str()).collect();
    assert_eq!(
        names,
        [
            "pf_act",
            "pf_dashed",
            "pf_draw",
            "pf_greet",
            "pf_move",
            "pf_ping",
            "pf_walk"
        ]
    );
    for definition in strict {
        assert!(definition.notes.is_empty());
        let parameters = &definition.value["parameters"];
        let original = tool(&definition.tool).input_schema();
        let mut keys = Vec::new();
        all_keys(parameters, &mut keys);
        for banned in [
            "oneOf",
            "allOf",
            "not",
            "if",
            "const",
            "default",
            "format",
            "prefixItems",
        ] {
            assert!(
                !keys.iter().any(|k| k == banned),
                "{}: {banned}",
                definition.tool
            );
        }
        walk(parameters, "", &mut |schema, pointer| {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            assert_eq!(
                schema["additionalProperties"], false,
                "{}{pointer}",
                definition.tool
            );
            let names: Vec<&String> = properties.keys().collect();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            assert_eq!(names, required, "{}{pointer}", definition.tool);
            // What was optional accepts null: the model sends null for what it leaves out.
            // A `oneOf` became an `anyOf`; everything else keeps its place.
            let before = original
                .pointer(pointer)
                .or_else(|| original.pointer(&pointer.replace("/anyOf/", "/oneOf/")))
                .expect("the same place");
            let optional: Vec<&String> = names
                .iter()
                .copied()
                .filter(|n| {
                    !before["required"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|x| x == n.as_str()))
                })
                .collect();
            for name in optional {
                let property = &properties[name.as_str()];
                let nullable = property["type"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("null")))
                    || property["anyOf"]
                        .as_array()
                        .is_some_and(|b| b.contains(&json!({"type": "null"})));
                assert!(nullable, "{}{pointer}/{name}", definition.tool);
            }
        });
    }
}

#[test]
fn openai_strict_schemas_accept_what_the_tool_accepts() {
    let strict = |name| rendered(Profile::OpenAi, name)["parameters"].clone();
    let point = json!({"x": 1.0, "y": 2.0});
    same_verdicts(
        "pf_move",
        &strict("pf_move"),
        &[
            json!({"point": point, "mode": "fast", "note": "hi", "steps": 3, "via": [point]}),
            json!({"point": point, "mode": null, "note": null, "steps": 0, "via": []}),
            json!({"point": point, "mode": "slow", "note": null, "steps": 3, "via": []}),
            json!({"point": point, "mode": null, "note": null, "steps": -1, "via": []}),
            json!({"point": {"x": 1.0}, "mode": null, "note": null, "steps": 1, "via": []}),
            json!({"point": point, "mode": null, "note": 7, "steps": 1, "via": [{"y": 1.0}]}),
        ],
    );
    same_verdicts(
        "pf_draw",
        &strict("pf_draw"),
        &[
            json!({"shape": {"kind": "circle", "radius": 1.0}, "more": null}),
            json!({"shape": {"kind": "square", "side": 2.0}, "more": [{"kind": "circle", "radius": 1.0}]}),
            json!({"shape": {"kind": "triangle", "side": 2.0}, "more": null}),
            json!({"shape": {"kind": "circle", "side": 2.0}, "more": null}),
            json!({"shape": {"radius": 1.0}, "more": null}),
        ],
    );
    same_verdicts(
        "pf_act",
        &strict("pf_act"),
        &[
            json!({"action": "stop"}),
            json!({"action": {"go": {"speed": 2.0}}}),
            json!({"action": {"turn": 90.0}}),
            json!({"action": "go"}),
            json!({"action": {"turn": 90.0, "go": {"speed": 1.0}}}),
            json!({"action": {"go": {}}}),
        ],
    );
    same_verdicts(
        "pf_walk",
        &strict("pf_walk"),
        &[
            json!({"root": {"label": "a", "children": [{"label": "b", "children": []}]}}),
            json!({"root": {"label": "a", "children": [{"label": 3, "children": []}]}}),
        ],
    );
    // Strict leaves out nothing: an input without an optional property is the model's to
    // avoid, and one the tool still accepts.
    let original = validator(tool("pf_greet").input_schema());
    let narrowed = validator(&strict("pf_greet"));
    let short = json!({"name": "Ada"});
    assert!(original.is_valid(&short) && !narrowed.is_valid(&short));
}

#[test]
fn openai_falls_back_to_non_strict_for_an_open_map_and_says_why() {
    let rendered = profile::render(Profile::OpenAi, tool("pf_scale")).unwrap();
    assert_eq!(rendered.value["strict"], false);
    assert_eq!(
        &rendered.value["parameters"],
        tool("pf_scale").input_schema(),
        "a tool that cannot be strict is sent unchanged"
    );
    let [note] = rendered.notes.as_slice() else {
        panic!("{:?}", rendered.notes)
    };
    assert_eq!(
        note.pointer,
        "/inputSchema/properties/weights/additionalProperties"
    );
    assert!(
        note.message.starts_with("not strict: an open map"),
        "{note}"
    );
}

#[test]
fn openai_falls_back_when_an_optional_property_refuses_null() {
    let rendered = profile::render(Profile::OpenAi, tool("pf_label")).unwrap();
    assert_eq!(rendered.value["strict"], false);
    let [note] = rendered.notes.as_slice() else {
        panic!("{:?}", rendered.notes)
    };
    assert_eq!(note.pointer, "/inputSchema/$defs/Labelled/properties/count");
    assert!(note.message.contains("does not accept `null`"), "{note}");
}

#[test]
fn openai_falls_back_when_a_one_of_may_overlap() {
    let rendered = profile::render(Profile::OpenAi, hand("pf_overlap", overlapping)).unwrap();
    assert_eq!(rendered.value["strict"], false);
    assert_eq!(rendered.notes[0].pointer, "/inputSchema/properties/v/oneOf");
}

#[test]
fn openai_chat_completions_nests_the_function() {
    let responses = rendered(Profile::OpenAi, "pf_greet");
    let chat = profile::chat_completions_tool(&responses);
    assert_eq!(chat["type"], "function");
    assert_eq!(chat["function"]["name"], "pf_greet");
    assert_eq!(chat["function"]["parameters"], responses["parameters"]);
    assert_eq!(chat["function"]["strict"], true);
    assert!(chat["function"].get("type").is_none());
}
