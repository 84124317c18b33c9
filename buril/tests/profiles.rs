//! Provider profiles: tool definitions for MCP, OpenAI, Anthropic and Gemini, the limits each
//! is checked against, and the `schema` command.

#![cfg(feature = "cli")]

use std::collections::HashMap;
use std::process::ExitCode;

use buril::__private::{Args, Invoke};
use buril::cli::Cli;
use buril::profile::{self, Profile, ProfileError, limits};
use buril::{Context, Registry, SourceLocation, ToolDescriptor, ToolError, ToolMeta};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A point in the plane.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Point {
    /// Metres along x.
    x: f64,
    /// Metres along y.
    y: f64,
}

/// How to move.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    /// As fast as possible.
    Fast,
    /// Avoiding obstacles.
    Careful,
}

/// A shape, told apart by `kind`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle {
        /// The radius.
        radius: f64,
    },
    /// A square.
    Square {
        /// The side.
        side: f64,
    },
}

/// What to do, externally tagged as serde does by default.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Action {
    /// Stand still.
    Stop,
    /// Go ahead.
    Go {
        /// Metres a second.
        speed: f64,
    },
    /// Turn by this many degrees.
    Turn(f64),
}

/// A tree of labels.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Tree {
    /// The label.
    label: String,
    /// The subtrees.
    children: Vec<Tree>,
}

/// A label with a count that defaults to zero.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Labelled {
    /// The label.
    name: String,
    /// How many; zero when left out.
    #[serde(default)]
    count: u32,
}

/// Moves a point.
#[buril::tool(title = "Move", read_only, idempotent)]
fn pf_move(
    /// The point to move.
    point: Point,
    /// How to move it.
    mode: Option<Mode>,
    /// A note for the log.
    note: Option<String>,
    /// How many steps.
    steps: u64,
    /// Points to pass through.
    via: Vec<Point>,
) -> Point {
    let _ = (mode, note, steps, via);
    point
}

/// Draws shapes.
#[buril::tool]
fn pf_draw(
    /// The shape.
    shape: Shape,
    /// More shapes.
    more: Option<Vec<Shape>>,
) -> usize {
    let _ = shape;
    1 + more.map_or(0, |m| m.len())
}

/// Acts.
#[buril::tool]
fn pf_act(
    /// What to do.
    action: Action,
) -> String {
    format!("{action:?}")
}

/// Walks a tree.
#[buril::tool]
fn pf_walk(
    /// The root.
    root: Tree,
) -> usize {
    root.children.len()
}

/// Scales weights.
#[buril::tool]
fn pf_scale(
    /// Weights by name.
    weights: HashMap<String, f64>,
    /// The factor.
    factor: f64,
) -> f64 {
    weights.values().sum::<f64>() * factor
}

/// Answers.
#[buril::tool]
fn pf_ping() {}

/// Counts a label.
#[buril::tool]
fn pf_label(
    /// The label.
    label: Labelled,
) -> u32 {
    label.count
}

/// Greets someone.
#[buril::tool]
fn pf_greet(
    /// Who to greet.
    name: String,
    /// How many times.
    times: Option<u32>,
) -> String {
    format!("hello {name} x{}", times.unwrap_or(1))
}

/// Eleven levels of structs, one inside the other.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level1 {
    /// Deeper.
    next: Level2,
}
/// Level 2.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level2 {
    /// Deeper.
    next: Level3,
}
/// Level 3.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level3 {
    /// Deeper.
    next: Level4,
}
/// Level 4.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level4 {
    /// Deeper.
    next: Level5,
}
/// Level 5.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level5 {
    /// Deeper.
    next: Level6,
}
/// Level 6.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level6 {
    /// Deeper.
    next: Level7,
}
/// Level 7.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level7 {
    /// Deeper.
    next: Level8,
}
/// Level 8.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level8 {
    /// Deeper.
    next: Level9,
}
/// Level 9.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level9 {
    /// Deeper.
    next: Level10,
}
/// Level 10.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level10 {
    /// Deeper.
    next: Level11,
}
/// Level 11: the bottom.
#[derive(Debug, Deserialize, JsonSchema)]
struct Level11 {
    /// How deep this is.
    depth: u8,
}

/// Digs eleven levels deep.
#[buril::tool]
fn pf_dig(
    /// The first level.
    level: Level1,
) -> u8 {
    level
        .next
        .next
        .next
        .next
        .next
        .next
        .next
        .next
        .next
        .next
        .depth
}

/// Arguments with a property name Gemini does not allow.
#[derive(Debug, Deserialize, JsonSchema)]
struct Dashed {
    /// A name with a dash.
    #[serde(rename = "with-dash")]
    with_dash: String,
}

/// Takes a dashed property.
#[buril::tool]
fn pf_dashed(buril::Input(args): buril::Input<Dashed>) -> String {
    args.with_dash
}

/// Every tool of this test binary, as `list` shows them.
const TOOL_NAMES: [&str; 10] = [
    "pf_act",
    "pf_dashed",
    "pf_dig",
    "pf_draw",
    "pf_greet",
    "pf_label",
    "pf_move",
    "pf_ping",
    "pf_scale",
    "pf_walk",
];

// ---------------------------------------------------------------------------------------------
// Hand-built tools: schemas the attribute never produces, and names its lint rejects.

fn noop(_: &Context, _: Args) -> Result<Value, ToolError> {
    Ok(json!({}))
}

fn schema(value: Value) -> Schema {
    Schema::try_from(value).expect("a schema object")
}

fn empty_input(_: &mut SchemaGenerator) -> Schema {
    schema(json!({"type": "object", "properties": {}, "additionalProperties": false}))
}

fn root_one_of(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": "object",
        "oneOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ],
    }))
}

fn many_values(_: &mut SchemaGenerator) -> Schema {
    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    schema(json!({
        "type": "object",
        "properties": {"pick": {"type": "string", "enum": values}},
        "required": ["pick"],
        "additionalProperties": false,
    }))
}

fn overlapping(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
        "required": ["v"],
        "additionalProperties": false,
    }))
}

fn hand(name: &'static str, input: fn(&mut SchemaGenerator) -> Schema) -> &'static ToolDescriptor {
    let mut meta = ToolMeta::new(name);
    meta.description = "A hand-built tool.".into();
    meta.family = "hand".into();
    meta.threading = buril::Threading::OffThread;
    meta.returns_unit = true;
    meta.location = SourceLocation {
        file: file!(),
        line: line!(),
        module: module_path!(),
    };
    Box::leak(Box::new(ToolDescriptor::new(
        meta,
        Invoke::Sync(noop),
        input,
        empty_input,
    )))
}

fn registry_of(tools: Vec<&'static ToolDescriptor>) -> &'static Registry {
    Box::leak(Box::new(Registry::new(tools).expect("unique names")))
}

fn tool(name: &str) -> &'static ToolDescriptor {
    buril::registry().get(name).expect("a test tool")
}

fn rendered(profile: Profile, name: &str) -> Value {
    profile::render(profile, tool(name))
        .map(|rendered| rendered.value)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn rejected(profile: Profile, descriptor: &ToolDescriptor) -> ProfileError {
    match profile::render(profile, descriptor).map(|rendered| rendered.value) {
        Ok(value) => panic!("{profile} accepted `{}`: {value:#}", descriptor.name()),
        Err(error) => error,
    }
}

// ---------------------------------------------------------------------------------------------
// Schema walking for the checks.

/// Calls `visit` with every schema in `schema` (itself included) and its pointer.
fn walk(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&Value, &str)) {
    visit(schema, pointer);
    let Some(object) = schema.as_object() else {
        return;
    };
    for (key, value) in object {
        let at = format!("{pointer}/{key}");
        match key.as_str() {
            "properties" | "$defs" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    walk(sub, &format!("{at}/{name}"), visit);
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    walk(sub, &format!("{at}/{i}"), visit);
                }
            }
            "items" | "additionalProperties" | "not" => walk(value, &at, visit),
            _ => {}
        }
    }
}

/// Every key used anywhere in `value`, at any depth.
fn all_keys(value: &Value, keys: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, sub) in object {
                keys.push(key.clone());
                all_keys(sub, keys);
            }
        }
        Value::Array(values) => values.iter().for_each(|v| all_keys(v, keys)),
        _ => {}
    }
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("{e}: {schema:#}"))
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

/// Asserts that `converted` gives every sample the same verdict as the tool's own schema.
fn same_verdicts(name: &str, converted: &Value, samples: &[Value]) {
    let original = validator(tool(name).input_schema());
    let converted = validator(converted);
    for sample in samples {
        assert_eq!(
            original.is_valid(sample),
            converted.is_valid(sample),
            "`{name}` judges {sample} differently"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Profiles by name.

#[test]
fn profiles_parse_and_print_their_names() {
    for (profile, name) in Profile::ALL.into_iter().zip(Profile::NAMES) {
        assert_eq!(profile.to_string(), name);
        assert_eq!(name.parse::<Profile>(), Ok(profile));
    }
    let error = "claude".parse::<Profile>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "no profile is named `claude`; the profiles are mcp, openai, anthropic, gemini"
    );
}

#[test]
fn every_tool_is_either_defined_or_reported_by_every_profile() {
    for profile in Profile::ALL {
        let (definitions, errors) = definitions(profile, buril::registry());
        let mut names: Vec<String> = definitions
            .iter()
            .map(|d| d["name"].as_str().expect("a name").to_owned())
            .chain(errors.iter().map(|e| e.tool.clone()))
            .collect();
        names.sort();
        assert_eq!(names, TOOL_NAMES, "{profile}");
        assert!(errors.iter().all(|e| e.profile == profile));
    }
}

// ---------------------------------------------------------------------------------------------
// MCP.

#[test]
fn mcp_gives_the_tool_object_of_tools_list() {
    let definition = rendered(Profile::Mcp, "pf_move");
    let moved = tool("pf_move");
    // The registry's schema, with its one `type: ["string", "null"]` written as an `anyOf`.
    let mut portable = moved.input_schema().clone();
    assert_eq!(
        portable["properties"]["note"]["type"],
        json!(["string", "null"])
    );
    portable["properties"]["note"] = json!({
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "description": "A note for the log.",
    });
    assert_eq!(
        definition,
        json!({
            "name": "pf_move",
            "title": "Move",
            "description": "Moves a point.",
            "inputSchema": portable,
            "outputSchema": moved.output_schema(),
            "annotations": {"title": "Move", "readOnlyHint": true, "idempotentHint": true},
        })
    );
    // No type arrays: the nullable types are `anyOf`s, which portability checks accept.
    walk(&definition, "", &mut |schema, pointer| {
        if let Some(kind) = schema.get("type") {
            assert!(kind.is_string(), "{pointer}: {kind}");
        }
    });
    let ping = rendered(Profile::Mcp, "pf_ping");
    assert_eq!(
        ping,
        json!({
            "name": "pf_ping",
            "description": "Answers.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "outputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        })
    );
    let input = &definition["inputSchema"];
    assert_eq!(input["type"], "object");
    assert!(input.get("$schema").is_none());
}

#[test]
fn mcp_names_may_have_dots_but_at_most_128_characters() {
    assert!(profile::render(Profile::Mcp, hand("pf.dotted", empty_input)).is_ok());
    let long: &'static str = Box::leak(format!("pf_{}", "x".repeat(126)).into_boxed_str());
    let error = rejected(Profile::Mcp, hand(long, empty_input));
    assert_eq!(error.tool, long);
    assert_eq!(error.pointer, "/name");
    assert!(
        error.reason.contains("129 characters, not 1 to 128"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// OpenAI.

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

#[test]
fn openai_limits_turn_strict_mode_off_with_the_reason() {
    let deep = profile::render(Profile::OpenAi, tool("pf_dig")).unwrap();
    assert_eq!(deep.value["strict"], false);
    assert_eq!(deep.notes[0].pointer, "/inputSchema/$defs/Level10");
    assert!(
        deep.notes[0].message.contains("more than 10 levels"),
        "{:?}",
        deep.notes
    );

    let many = profile::render(Profile::OpenAi, hand("pf_many", many_values)).unwrap();
    assert_eq!(many.value["strict"], false);
    assert!(
        many.notes[0]
            .message
            .contains("1001 enum values, more than 1000"),
        "{:?}",
        many.notes
    );
}

#[test]
fn openai_and_anthropic_names_allow_no_dots_and_at_most_64_characters() {
    for profile in [Profile::OpenAi, Profile::Anthropic] {
        let error = rejected(profile, hand("pf.dotted", empty_input));
        assert_eq!((error.tool.as_str(), error.profile), ("pf.dotted", profile));
        assert_eq!(error.pointer, "/name");
        assert_eq!(
            error.reason,
            "`pf.dotted` contains `.`: names must match `^[a-zA-Z0-9_-]{1,64}$`"
        );
        let long: &'static str = Box::leak(format!("pf_{}", "x".repeat(62)).into_boxed_str());
        let error = rejected(profile, hand(long, empty_input));
        assert!(
            error.reason.contains("65 characters, not 1 to 64"),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .starts_with(&format!("`{long}` cannot be given to {profile}"))
        );
    }
    assert_eq!(limits::OPENAI_NAME.check(&"a".repeat(64)), Ok(()));
}

// ---------------------------------------------------------------------------------------------
// Anthropic.

#[test]
fn anthropic_gives_the_input_schema_unchanged() {
    assert_eq!(
        rendered(Profile::Anthropic, "pf_greet"),
        json!({
            "name": "pf_greet",
            "description": "Greets someone.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Who to greet."},
                    "times": {
                        "type": ["integer", "null"],
                        "minimum": 0,
                        "maximum": 4_294_967_295u64,
                        "description": "How many times.",
                    },
                },
                "required": ["name"],
                "additionalProperties": false,
            },
        })
    );
}

#[test]
fn anthropic_rejects_a_root_one_of_and_keeps_the_other_tools() {
    let either = hand("pf_either", root_one_of);
    let error = rejected(Profile::Anthropic, either);
    assert_eq!(error.tool, "pf_either");
    assert_eq!(error.pointer, "/inputSchema/oneOf");
    assert!(error.reason.contains("root `oneOf`"), "{error}");

    let registry = registry_of(vec![either, hand("pf_fine", empty_input)]);
    let (definitions, errors) = definitions(Profile::Anthropic, registry);
    assert_eq!(definitions.len(), 1);
    assert_eq!(definitions[0]["name"], "pf_fine");
    assert_eq!(errors, vec![error]);
    // MCP has no such rule.
    assert!(profile::render(Profile::Mcp, either).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Gemini.

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

#[test]
fn gemini_checks_depth_enum_values_and_names() {
    let error = rejected(Profile::Gemini, tool("pf_dig"));
    assert_eq!(
        (error.tool.as_str(), error.profile),
        ("pf_dig", Profile::Gemini)
    );
    assert_eq!(error.pointer, "/inputSchema/$defs/Level10");
    assert_eq!(
        error.reason,
        "the schema nests more than 10 levels of objects and arrays"
    );

    let error = rejected(Profile::Gemini, hand("pf_many", many_values));
    assert_eq!(error.tool, "pf_many");
    assert_eq!(
        error.reason,
        "the schema has 1001 enum values, more than 1000"
    );

    let error = rejected(Profile::Gemini, hand("9lives", empty_input));
    assert_eq!(error.pointer, "/name");
    assert!(
        error.reason.contains("must start with a letter or `_`"),
        "{error}"
    );
    assert!(profile::render(Profile::Gemini, hand("pf.dotted:ok", empty_input)).is_ok());
    let long: &'static str = Box::leak(format!("pf_{}", "x".repeat(62)).into_boxed_str());
    assert!(
        rejected(Profile::Gemini, hand(long, empty_input))
            .reason
            .contains("not 1 to 64")
    );

    let error = rejected(Profile::Gemini, tool("pf_dashed"));
    assert_eq!(error.pointer, "/inputSchema/properties/with-dash");
    assert!(error.reason.contains("contains `-`"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// The `schema` command.

fn run(cli: Cli, args: &[&str]) -> (ExitCode, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let args = std::iter::once("tools").chain(args.iter().copied());
    let code = cli.run_with(args, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn schema_prints_mcp_definitions_by_default() {
    let (code, out, err) = run(Cli::new(), &["schema"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert_eq!(err, "");
    let printed: Value = serde_json::from_str(&out).unwrap();
    let (expected, _) = definitions(Profile::Mcp, buril::registry());
    assert_eq!(printed, Value::Array(expected));
}

#[test]
fn schema_prints_one_definition_by_name() {
    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "openai", "pf_greet"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed, rendered(Profile::OpenAi, "pf_greet"));

    let (code, out, _) = run(
        Cli::new(),
        &[
            "schema",
            "--profile",
            "openai",
            "--chat-completions",
            "pf_greet",
        ],
    );
    assert_eq!(code, ExitCode::SUCCESS);
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed["function"]["name"], "pf_greet");
}

#[test]
fn schema_notes_non_strict_tools_on_stderr_and_exits_0() {
    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "openai"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed.as_array().unwrap().len(), TOOL_NAMES.len());
    assert!(
        err.contains(
            "note: `pf_scale`: not strict: an open map (`additionalProperties` with a schema)"
        ),
        "{err}"
    );
}

#[test]
fn schema_lists_rejected_tools_on_stderr_and_exits_1() {
    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "gemini"]);
    assert_eq!(code, ExitCode::from(1));
    let printed: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = printed
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "pf_act", "pf_draw", "pf_greet", "pf_label", "pf_move", "pf_ping", "pf_scale",
            "pf_walk"
        ]
    );
    // The tools given as full JSON Schema are noted, with the reason.
    assert!(
        err.contains(
            "note: `pf_walk`: given as `parametersJsonSchema` (full JSON Schema), since Gemini's \
             OpenAPI subset cannot express it: a recursive type"
        ),
        "{err}"
    );
    assert!(
        err.contains("note: `pf_scale`: given as `parametersJsonSchema`"),
        "{err}"
    );
    // Names and sizes Gemini refuses in either form are errors.
    assert!(
        err.contains("2 tools cannot be given to gemini:\n"),
        "{err}"
    );
    for name in ["pf_dashed", "pf_dig"] {
        assert!(err.contains(&format!("  `{name}` at ")), "{err}");
    }

    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "gemini", "pf_dig"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(out, "");
    assert!(
        err.starts_with("1 tool cannot be given to gemini:\n  `pf_dig` at "),
        "{err}"
    );
}

#[test]
fn schema_over_a_registry_of_its_own() {
    let registry = registry_of(vec![
        hand("pf_either", root_one_of),
        hand("pf_fine", empty_input),
    ]);
    let (code, out, err) = run(
        Cli::new().registry(registry),
        &["schema", "--profile", "anthropic"],
    );
    assert_eq!(code, ExitCode::from(1));
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed.as_array().unwrap().len(), 1);
    assert!(
        err.contains("`pf_either` at /inputSchema/oneOf: the input schema has a root `oneOf`"),
        "{err}"
    );

    let (code, _, err) = run(
        Cli::new().registry(registry),
        &["schema", "--profile", "mcp"],
    );
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
}

#[test]
fn schema_usage_errors() {
    let (code, _, err) = run(Cli::new(), &["schema", "--profile", "claude"]);
    assert_eq!(code, ExitCode::from(2));
    assert!(
        err.contains("[possible values: mcp, openai, anthropic, gemini]"),
        "{err}"
    );

    let (code, _, err) = run(
        Cli::new(),
        &["schema", "--profile", "gemini", "--chat-completions"],
    );
    assert_eq!(code, ExitCode::from(2));
    assert!(
        err.contains("--chat-completions applies to --profile openai only"),
        "{err}"
    );

    let (code, out, err) = run(Cli::new(), &["schema", "pf_gret"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(out, "");
    assert!(err.contains("did you mean `pf_greet`"), "{err}");
}

/// The tool objects of every tool of `registry` that `profile` can express, and the errors of
/// those it cannot.
fn definitions(
    profile: Profile,
    registry: &buril::Registry,
) -> (Vec<Value>, Vec<buril::profile::ProfileError>) {
    let (rendered, errors) = profile::render_all(profile, registry);
    (
        rendered
            .into_iter()
            .map(|definition| definition.value)
            .collect(),
        errors,
    )
}
