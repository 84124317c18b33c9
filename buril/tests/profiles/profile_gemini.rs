//! The Gemini profile: the OpenAPI subset with `$ref`s inlined, which accepts what the tool
//! accepts, and full JSON Schema (`parametersJsonSchema`) for what the subset cannot express.

use crate::profile_tools;

use buril::ToolDescriptor;
use buril::profile::{self, Profile};
use profile_tools::{
    all_keys, definitions, hand, overlapping, rendered, same_verdicts, tool, walk,
};
use serde_json::{Value, json};

#[test]
fn gemini_gives_an_openapi_subset_with_refs_inlined() {
    let point = json!({
        "type": "object",
        "properties": {
            "x": {"type": "number", "description": "Metres along x."},
            "y": {"type": "number", "description": "Metres along y."},
        },
        "required": ["x", "y"],
    });
    let mut the_point = point.clone();
    the_point["description"] = json!("The point to move.");
    let mut a_point = point;
    a_point["description"] = json!("A point in the plane.");
    assert_eq!(
        rendered(Profile::Gemini, "pf_move"),
        json!({
            "name": "pf_move",
            "description": "Moves a point.",
            "parameters": {
                "type": "object",
                "properties": {
                    "point": the_point,
                    "mode": {
                        "type": "string",
                        "enum": ["fast", "careful"],
                        "description": "How to move it.\n\n- `fast`: As fast as possible.\n- `careful`: Avoiding obstacles.",
                        "nullable": true,
                    },
                    "note": {"type": "string", "description": "A note for the log.", "nullable": true},
                    "steps": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": u64::MAX,
                        "description": "How many steps.",
                    },
                    "via": {"type": "array", "items": a_point, "description": "Points to pass through."},
                },
                "required": ["point", "steps", "via"],
            },
        })
    );
    assert_eq!(
        rendered(Profile::Gemini, "pf_ping"),
        json!({"name": "pf_ping", "description": "Answers."}),
        "a tool without parameters has no `parameters`"
    );
}

#[test]
fn gemini_output_has_no_refs_consts_schema_keys_or_type_arrays() {
    let (definitions, _) = definitions(Profile::Gemini, buril::registry());
    let subset: Vec<&Value> = definitions
        .iter()
        .filter(|d| d.get("parametersJsonSchema").is_none())
        .collect();
    assert_eq!(subset.len(), 6);
    for definition in subset {
        let mut keys = Vec::new();
        all_keys(definition, &mut keys);
        for banned in [
            "$ref",
            "$defs",
            "const",
            "$schema",
            "oneOf",
            "additionalProperties",
        ] {
            assert!(
                !keys.iter().any(|k| k == banned),
                "{}: {banned}",
                definition["name"]
            );
        }
        if let Some(parameters) = definition.get("parameters") {
            assert_eq!(parameters["type"], "object");
            walk(parameters, "", &mut |schema, pointer| {
                if let Some(kind) = schema.get("type") {
                    assert!(kind.is_string(), "{}{pointer}: {kind}", definition["name"]);
                }
                if let Some(values) = schema.get("enum") {
                    assert!(values.as_array().unwrap().iter().all(Value::is_string));
                    assert_eq!(schema["type"], "string");
                }
                if let Some(format) = schema.get("format") {
                    let allowed = ["float", "double", "int32", "int64", "enum", "date-time"];
                    assert!(allowed.contains(&format.as_str().unwrap()), "{format}");
                }
            });
        }
    }
}

/// A Gemini schema as JSON Schema, to validate with: `nullable: true` becomes a union with
/// `null`.
fn gemini_as_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => {
            let mut out = serde_json::Map::new();
            for (key, value) in object {
                let converted = match key.as_str() {
                    "properties" => Value::Object(
                        value
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(k, v)| (k.clone(), gemini_as_json_schema(v)))
                            .collect(),
                    ),
                    "items" => gemini_as_json_schema(value),
                    "anyOf" => Value::Array(
                        value
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(gemini_as_json_schema)
                            .collect(),
                    ),
                    "nullable" => continue,
                    _ => value.clone(),
                };
                out.insert(key.clone(), converted);
            }
            if object.get("nullable") == Some(&Value::Bool(true)) {
                json!({"anyOf": [Value::Object(out), {"type": "null"}]})
            } else {
                Value::Object(out)
            }
        }
        other => other.clone(),
    }
}

#[test]
fn gemini_schemas_accept_what_the_tool_accepts() {
    let converted = |name| gemini_as_json_schema(&rendered(Profile::Gemini, name)["parameters"]);
    let point = json!({"x": 1.0, "y": 2.0});
    same_verdicts(
        "pf_move",
        &converted("pf_move"),
        &[
            json!({"point": point, "steps": 3, "via": []}),
            json!({"point": point, "mode": "careful", "note": null, "steps": 0, "via": [point]}),
            json!({"point": point, "mode": null, "steps": 1, "via": []}),
            json!({"point": point, "mode": "slow", "steps": 1, "via": []}),
            json!({"point": point, "steps": -2, "via": []}),
            json!({"point": {"x": "1"}, "steps": 1, "via": []}),
            json!({"steps": 1, "via": []}),
        ],
    );
    same_verdicts(
        "pf_draw",
        &converted("pf_draw"),
        &[
            json!({"shape": {"kind": "circle", "radius": 1.0}}),
            json!({"shape": {"kind": "square", "side": 1.0}, "more": null}),
            json!({"shape": {"kind": "square", "side": 1.0}, "more": [{"kind": "circle", "radius": 2.0}]}),
            json!({"shape": {"kind": "hexagon"}}),
            json!({"shape": {"kind": "square"}}),
        ],
    );
    same_verdicts(
        "pf_act",
        &converted("pf_act"),
        &[
            json!({"action": "stop"}),
            json!({"action": {"go": {"speed": 2.0}}}),
            json!({"action": {"turn": 90.0}}),
            json!({"action": "go"}),
            json!({"action": {"go": {}}}),
        ],
    );
    same_verdicts(
        "pf_label",
        &converted("pf_label"),
        &[
            json!({"label": {"name": "a"}}),
            json!({"label": {"name": "a", "count": 3}}),
            json!({"label": {"name": "a", "count": -3}}),
            json!({"label": {"count": 3}}),
        ],
    );
}

/// What the OpenAPI subset cannot express goes to Gemini as full JSON Schema, with a note.
fn as_json_schema(descriptor: &'static ToolDescriptor) -> buril::profile::Note {
    let rendered = profile::render(Profile::Gemini, descriptor).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        rendered.value.get("parameters").is_none(),
        "{:#}",
        rendered.value
    );
    let mut expected = descriptor.input_schema().clone();
    expected.as_object_mut().unwrap().remove("$schema");
    assert_eq!(rendered.value["parametersJsonSchema"], expected);
    assert_eq!(rendered.value["name"], descriptor.name());
    let [note] = <[_; 1]>::try_from(rendered.notes).expect("one note");
    assert!(
        note.message
            .starts_with("given as `parametersJsonSchema` (full JSON Schema), since Gemini's"),
        "{note}"
    );
    note
}

#[test]
fn gemini_takes_recursive_types_and_open_maps_as_json_schema() {
    let note = as_json_schema(tool("pf_walk"));
    assert_eq!(
        note.pointer,
        "/inputSchema/$defs/Tree/properties/children/items"
    );
    assert!(
        note.message
            .contains("a recursive type (`Tree` contains itself)"),
        "{note}"
    );

    let note = as_json_schema(tool("pf_scale"));
    assert_eq!(
        note.pointer,
        "/inputSchema/properties/weights/additionalProperties"
    );
    assert!(note.message.contains("an open map"), "{note}");

    let note = as_json_schema(hand("pf_overlap", overlapping));
    assert_eq!(note.pointer, "/inputSchema/properties/v/oneOf");
}
