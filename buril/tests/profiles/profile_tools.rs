//! The tools of the provider-profile tests and what those tests share: a tool of every shape
//! the profiles treat apart (nested structs, enums of each tagging, a recursive type, an open
//! map, eleven levels of structs, a property name with a dash), tools built by hand with
//! schemas the attribute never produces, and the walks and validators the checks use.
//! The only tools of the `profiles` binary: each of its files lists exactly these tools.

#![allow(dead_code)]

use std::collections::HashMap;

use buril::__private::{Args, Invoke};
use buril::profile::{self, Profile, ProfileError};
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
pub const TOOL_NAMES: [&str; 10] = [
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

pub fn empty_input(_: &mut SchemaGenerator) -> Schema {
    schema(json!({"type": "object", "properties": {}, "additionalProperties": false}))
}

pub fn root_one_of(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": "object",
        "oneOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ],
    }))
}

pub fn many_values(_: &mut SchemaGenerator) -> Schema {
    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    schema(json!({
        "type": "object",
        "properties": {"pick": {"type": "string", "enum": values}},
        "required": ["pick"],
        "additionalProperties": false,
    }))
}

pub fn overlapping(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
        "required": ["v"],
        "additionalProperties": false,
    }))
}

pub fn hand(
    name: &'static str,
    input: fn(&mut SchemaGenerator) -> Schema,
) -> &'static ToolDescriptor {
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

pub fn registry_of(tools: Vec<&'static ToolDescriptor>) -> &'static Registry {
    Box::leak(Box::new(Registry::new(tools).expect("unique names")))
}

pub fn tool(name: &str) -> &'static ToolDescriptor {
    buril::registry()
        .get(name)
        .and_then(|tool| tool.as_linked())
        .expect("a test tool")
}

pub fn rendered(profile: Profile, name: &str) -> Value {
    profile::render(profile, tool(name))
        .map(|rendered| rendered.value)
        .unwrap_or_else(|e| panic!("{e}"))
}

pub fn rejected(profile: Profile, descriptor: &ToolDescriptor) -> ProfileError {
    match profile::render(profile, descriptor).map(|rendered| rendered.value) {
        Ok(value) => panic!("{profile} accepted `{}`: {value:#}", descriptor.name()),
        Err(error) => error,
    }
}

// ---------------------------------------------------------------------------------------------
// Schema walking for the checks.

/// Calls `visit` with every schema in `schema` (itself included) and its pointer.
pub fn walk(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&Value, &str)) {
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
pub fn all_keys(value: &Value, keys: &mut Vec<String>) {
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

pub fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("{e}: {schema:#}"))
}

/// Asserts that `converted` gives every sample the same verdict as the tool's own schema.
pub fn same_verdicts(name: &str, converted: &Value, samples: &[Value]) {
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

/// The tool objects of every tool of `registry` that `profile` can express, and the errors of
/// those it cannot.
pub fn definitions(
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
