//! Input and output schemas derived from tool signatures.

use std::collections::{BTreeMap, HashMap};

use buril_test_support::call;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A colour with a two-word name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Colour {
    DeepRed,
    LightGreen,
}

/// A point in the plane.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// A named node with children.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
struct Node {
    name: String,
    at: Point,
    children: Vec<Point>,
}

/// Fields renamed and defaulted.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Labelled {
    #[serde(rename = "displayName")]
    display_name: String,
    #[serde(default)]
    count: u32,
}

/// The whole input of `tst_whole`.
#[derive(Debug, Deserialize, JsonSchema)]
struct WholeArgs {
    /// The thing's identifier.
    id: u64,
    /// An optional note.
    note: Option<String>,
}

/// What `tst_whole` answers.
#[derive(Debug, Serialize, JsonSchema)]
struct WholeOut {
    id: u64,
    noted: bool,
}

/// An output with nothing in it.
#[derive(Debug, Serialize, JsonSchema)]
struct Nothing;

/// Paints in a colour.
#[buril::tool(off_thread)]
fn tst_paint(
    /// The colour to paint with.
    colour: Colour,
    /// A second colour for the shade.
    shade: Option<Colour>,
) -> Colour {
    shade.unwrap_or(colour)
}

/// Places a node.
#[buril::tool(off_thread)]
fn tst_place(
    /// The node to place.
    node: Node,
    /// Free-form tags.
    tags: Vec<String>,
    /// Weights by name.
    weights: HashMap<String, f64>,
    /// Ranks by name, ordered.
    ranks: BTreeMap<String, u32>,
    /// An optional offset.
    offset: Option<Point>,
    /// A pair of values.
    pair: Option<(u32, String)>,
) -> Node {
    let _ = (tags, weights, ranks, pair);
    let mut node = node;
    if let Some(offset) = offset {
        node.at.x += offset.x;
        node.at.y += offset.y;
    }
    node
}

/// Relabels an item.
#[buril::tool(off_thread)]
fn tst_relabel(
    /// The item.
    item: Labelled,
) -> Labelled {
    Labelled {
        display_name: item.display_name.to_uppercase(),
        count: item.count + 1,
    }
}

/// Takes parameters named by raw identifiers.
#[buril::tool(off_thread)]
fn tst_keywords(
    /// A parameter named `type`.
    r#type: String,
    /// A parameter named `match`.
    r#match: Option<u32>,
) -> String {
    format!("{}:{}", r#type, r#match.unwrap_or(0))
}

/// Uses the context.
#[buril::tool(off_thread)]
fn tst_contextual(
    /// A label.
    label: String,
    ctx: &buril::Context,
) -> String {
    format!("{label}@{}", ctx.tool_name())
}

/// Takes fifteen properties, more than one tuple of the expansion's holds, with the context
/// among them.
#[buril::tool(off_thread)]
#[allow(clippy::too_many_arguments)]
fn tst_many(
    /// 1.
    p01: u8,
    /// 2.
    p02: Option<u8>,
    /// 3.
    p03: u8,
    ctx: &buril::Context,
    /// 4.
    p04: String,
    /// 5.
    p05: u8,
    /// 6.
    p06: u8,
    /// 7.
    p07: u8,
    /// 8.
    p08: u8,
    /// 9.
    p09: u8,
    /// 10.
    p10: u8,
    /// 11.
    p11: u8,
    /// 12.
    p12: Option<u8>,
    /// 13.
    p13: u8,
    /// 14.
    p14: Option<String>,
    /// 15.
    p15: u8,
) -> Vec<Value> {
    vec![
        json!(p01),
        json!(p02),
        json!(p03),
        json!(ctx.tool_name()),
        json!(p04),
        json!(p05),
        json!(p06),
        json!(p07),
        json!(p08),
        json!(p09),
        json!(p10),
        json!(p11),
        json!(p12),
        json!(p13),
        json!(p14),
        json!(p15),
    ]
}

/// Takes the whole input as one struct.
#[buril::tool(off_thread)]
fn tst_whole(buril::Input(args): buril::Input<WholeArgs>) -> WholeOut {
    WholeOut {
        id: args.id,
        noted: args.note.is_some(),
    }
}

/// Does nothing and returns nothing.
#[buril::tool(off_thread)]
fn tst_idle() {}

/// Returns `Ok(())`.
#[buril::tool(off_thread)]
fn tst_settle() -> Result<(), buril::ToolError> {
    Ok(())
}

/// Returns a unit struct.
#[buril::tool(off_thread)]
fn tst_void() -> Nothing {
    Nothing
}

/// Counts.
#[buril::tool(off_thread)]
fn tst_count(
    /// Up to where.
    to: u32,
) -> u32 {
    to
}

/// Lists points.
#[buril::tool(off_thread)]
fn tst_points(
    /// How many.
    n: u8,
) -> Result<Vec<Point>, buril::ToolError> {
    Ok((0..n)
        .map(|i| Point {
            x: f64::from(i),
            y: 0.0,
        })
        .collect())
}

/// Weights by name.
#[buril::tool(off_thread)]
fn tst_weights() -> BTreeMap<String, f64> {
    BTreeMap::from([("a".to_owned(), 1.5)])
}

/// The golden tool.
#[buril::tool(off_thread)]
fn tst_golden(
    /// Who to greet.
    name: String,
    /// How many times, at most.
    limit: Option<u32>,
) -> u64 {
    u64::from(limit.unwrap_or(1)) + name.len() as u64
}

/// Summarises a text.
///
/// Use it for long texts only:
///
/// - it is slow;
/// - it is lossy.
#[buril::tool(off_thread)]
fn tst_summarise(
    /// The text.
    ///
    /// Plain text, not markdown.
    text: String,
) -> String {
    text
}

fn tool(name: &str) -> &'static buril::ToolDescriptor {
    buril::registry()
        .get(name)
        .and_then(|tool| tool.as_linked())
        .unwrap_or_else(|| panic!("`{name}` is not registered"))
}

fn schemas_of(name: &str) -> (&'static Value, &'static Value) {
    let tool = tool(name);
    (tool.input_schema(), tool.output_schema())
}

/// Every subschema (objects only) of `value`, root first.
fn walk<'a>(value: &'a Value, found: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            found.push(value);
            map.values().for_each(|v| walk(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
        _ => {}
    }
}

fn compile(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}\n{schema:#}"))
}

/// A call of every tool in this binary, with an input that is valid for it.
fn sample_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("tst_paint", json!({"colour": "deep_red"})),
        (
            "tst_paint",
            json!({"colour": "deep_red", "shade": "light_green"}),
        ),
        (
            "tst_place",
            json!({
                "node": {"name": "n", "at": {"x": 1.0, "y": 2.0}, "children": [{"x": 0, "y": 0}]},
                "tags": ["a"],
                "weights": {"w": 0.5},
                "ranks": {"r": 1},
                "offset": {"x": 1, "y": 1},
                "pair": [1, "one"]
            }),
        ),
        ("tst_relabel", json!({"item": {"displayName": "abc"}})),
        ("tst_keywords", json!({"type": "t", "match": 3})),
        ("tst_contextual", json!({"label": "l"})),
        ("tst_whole", json!({"id": 7, "note": "n"})),
        ("tst_many", many_input()),
        ("tst_idle", json!({})),
        ("tst_settle", json!({})),
        ("tst_void", json!({})),
        ("tst_count", json!({"to": 3})),
        ("tst_points", json!({"n": 2})),
        ("tst_weights", json!({})),
        ("tst_golden", json!({"name": "abc"})),
        ("tst_summarise", json!({"text": "abc"})),
    ]
}

#[test]
fn every_tool_is_registered_with_its_family() {
    let names: Vec<&str> = buril::registry()
        .linked()
        .iter()
        .copied()
        .map(|t| t.name())
        .collect();
    assert_eq!(
        names,
        [
            "tst_contextual",
            "tst_count",
            "tst_golden",
            "tst_idle",
            "tst_keywords",
            "tst_many",
            "tst_paint",
            "tst_place",
            "tst_points",
            "tst_relabel",
            "tst_settle",
            "tst_summarise",
            "tst_void",
            "tst_weights",
            "tst_whole",
        ]
    );
    assert!(
        buril::registry()
            .linked()
            .iter()
            .copied()
            .all(|t| t.family() == "tst")
    );
    assert_eq!(tool("tst_golden").description(), "The golden tool.");
}

#[test]
fn descriptions_come_from_doc_comments() {
    assert_eq!(tool("tst_golden").description(), "The golden tool.");
    let (input, _) = schemas_of("tst_golden");
    assert_eq!(input["properties"]["name"]["description"], "Who to greet.");
    let summarise = tool("tst_summarise");
    assert!(summarise.description().starts_with("Summarises a text.\n"));
    assert!(summarise.description().ends_with("- it is lossy."));
}

#[test]

fn doc_comment_paragraphs_keep_their_blank_lines() {
    assert_eq!(
        tool("tst_summarise").description(),
        "Summarises a text.\n\nUse it for long texts only:\n\n- it is slow;\n- it is lossy."
    );
    let (input, _) = schemas_of("tst_summarise");
    assert_eq!(
        input["properties"]["text"]["description"],
        "The text.\n\nPlain text, not markdown."
    );
}

#[test]
fn unit_variant_enum_with_rename_all_is_a_string_enum_in_defs() {
    let (input, output) = schemas_of("tst_paint");
    assert_eq!(
        input["$defs"]["Colour"],
        json!({
            "description": "A colour with a two-word name.",
            "enum": ["deep_red", "light_green"],
            "type": "string"
        })
    );
    assert_eq!(
        input["properties"]["colour"],
        json!({"$ref": "#/$defs/Colour", "description": "The colour to paint with."})
    );
    assert_eq!(input["required"], json!(["colour"]));
    // A non-object output is wrapped, and the schema says so.
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["result"]));
    assert_eq!(output["additionalProperties"], false);
    assert_eq!(
        output["properties"]["result"]["enum"],
        json!(["deep_red", "light_green"])
    );
    assert!(output["properties"]["result"].get("title").is_none());
}

#[test]
fn option_parameters_are_not_required_and_accept_null() {
    let (input, _) = schemas_of("tst_paint");
    let shade = &input["properties"]["shade"];
    assert_eq!(
        shade["anyOf"],
        json!([{"$ref": "#/$defs/Colour"}, {"type": "null"}])
    );
    assert_eq!(shade["description"], "A second colour for the shade.");

    let (input, _) = schemas_of("tst_golden");
    assert_eq!(input["required"], json!(["name"]));
    assert_eq!(
        input["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );

    let (input, _) = schemas_of("tst_place");
    let required = required_of(input);
    assert_eq!(required, ["node", "tags", "weights", "ranks"]);
    assert!(!required.contains(&"offset") && !required.contains(&"pair"));
    assert_eq!(
        input["properties"]["offset"]["anyOf"],
        json!([{"$ref": "#/$defs/Point"}, {"type": "null"}])
    );
    assert_eq!(
        input["properties"]["pair"]["type"],
        json!(["array", "null"])
    );
}

/// The names an input schema requires.
fn required_of(input: &Value) -> Vec<&str> {
    input["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// A valid input of `tst_many`: each property its number, the optional ones but the last absent.
fn many_input() -> Value {
    json!({
        "p01": 1, "p03": 3, "p04": "four", "p05": 5, "p06": 6, "p07": 7, "p08": 8, "p09": 9,
        "p10": 10, "p11": 11, "p13": 13, "p14": "fourteen", "p15": 15
    })
}

#[test]
fn a_long_parameter_list_keeps_its_order_in_the_schema_and_the_call() {
    let (input, _) = schemas_of("tst_many");
    let properties: Vec<(&str, &str)> = input["properties"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, schema)| (name.as_str(), schema["description"].as_str().unwrap()))
        .collect();
    let expected: Vec<(String, String)> = (1..=15)
        .map(|n| (format!("p{n:02}"), format!("{n}.")))
        .collect();
    let expected: Vec<(&str, &str)> = expected
        .iter()
        .map(|(name, docs)| (name.as_str(), docs.as_str()))
        .collect();
    assert_eq!(properties, expected);
    let required = required_of(input);
    assert_eq!(
        required,
        [
            "p01", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p13", "p15"
        ]
    );
    assert_eq!(
        input["properties"]["p12"]["type"],
        json!(["integer", "null"])
    );

    assert_eq!(
        call("tst_many", many_input()),
        json!({"ok": true, "data": {"result": [
            1, null, 3, "tst_many", "four", 5, 6, 7, 8, 9, 10, 11, null, 13, "fourteen", 15
        ]}})
    );
    let mut input = many_input();
    input["p02"] = json!(2);
    input["p12"] = json!(12);
    input["p14"] = json!(null);
    assert_eq!(
        call("tst_many", input),
        json!({"ok": true, "data": {"result": [
            1, 2, 3, "tst_many", "four", 5, 6, 7, 8, 9, 10, 11, 12, 13, null, 15
        ]}})
    );
}

#[test]
fn nested_structs_go_to_defs_and_are_referenced() {
    let (input, output) = schemas_of("tst_place");
    let defs = input["$defs"].as_object().expect("$defs at the root");
    let mut keys: Vec<&String> = defs.keys().collect();
    keys.sort();
    assert_eq!(keys, ["Node", "Point"]);
    assert_eq!(input["properties"]["node"]["$ref"], "#/$defs/Node");
    assert_eq!(
        defs["Node"]["properties"]["at"],
        json!({"$ref": "#/$defs/Point"})
    );
    assert_eq!(
        defs["Node"]["properties"]["children"],
        json!({"type": "array", "items": {"$ref": "#/$defs/Point"}})
    );
    assert_eq!(defs["Node"]["required"], json!(["name", "at", "children"]));
    assert_eq!(defs["Point"]["required"], json!(["x", "y"]));

    // An object output is the struct's own schema, with its definitions at the root.
    assert_eq!(output["type"], "object");
    assert_eq!(output["title"], "Node");
    assert_eq!(output["properties"]["at"]["$ref"], "#/$defs/Point");
    assert!(output["$defs"]["Point"].is_object());
    assert!(output.get("additionalProperties").is_none());
}

#[test]
fn every_ref_resolves_from_the_root() {
    for &tool in buril::registry().linked() {
        for schema in [tool.input_schema(), tool.output_schema()] {
            let mut found = Vec::new();
            walk(schema, &mut found);
            for sub in found {
                if let Some(reference) = sub.get("$ref").and_then(Value::as_str) {
                    let pointer = reference.strip_prefix('#').expect("a local reference");
                    assert!(
                        schema.pointer(pointer).is_some(),
                        "{}: `{reference}` does not resolve in {schema:#}",
                        tool.name()
                    );
                }
            }
        }
    }
}

#[test]
fn vec_is_an_array_with_items_and_maps_are_objects_with_additional_properties() {
    let (input, _) = schemas_of("tst_place");
    let properties = &input["properties"];
    assert_eq!(
        properties["tags"],
        json!({"type": "array", "items": {"type": "string"}, "description": "Free-form tags."})
    );
    assert_eq!(properties["weights"]["type"], "object");
    assert_eq!(
        properties["weights"]["additionalProperties"],
        json!({"type": "number"}),
        "schemars' `double` is no format a validator knows: dropped"
    );
    assert_eq!(properties["ranks"]["type"], "object");
    assert_eq!(
        properties["ranks"]["additionalProperties"]["type"],
        "integer"
    );
    // A tuple keeps its positional items and closes the rest.
    assert_eq!(
        properties["pair"]["prefixItems"].as_array().unwrap().len(),
        2
    );
    assert_eq!(properties["pair"]["items"], false);

    // A map output is already an object: not wrapped.
    let (_, output) = schemas_of("tst_weights");
    assert_eq!(output["type"], "object");
    assert_eq!(output["additionalProperties"]["type"], "number");
    assert!(output["properties"].get("result").is_none());
}

#[test]
fn every_array_schema_has_items() {
    for &tool in buril::registry().linked() {
        for schema in [tool.input_schema(), tool.output_schema()] {
            let mut found = Vec::new();
            walk(schema, &mut found);
            for sub in found {
                let is_array = match sub.get("type") {
                    Some(Value::String(t)) => t == "array",
                    Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
                    _ => false,
                };
                if is_array {
                    assert!(
                        sub.get("items").is_some(),
                        "{}: array schema without items: {sub}",
                        tool.name()
                    );
                }
            }
        }
    }
}

#[test]
fn serde_rename_and_default_shape_the_fields() {
    let (input, output) = schemas_of("tst_relabel");
    let labelled = &input["$defs"]["Labelled"];
    let properties = labelled["properties"].as_object().unwrap();
    assert!(properties.contains_key("displayName"));
    assert!(!properties.contains_key("display_name"));
    assert_eq!(properties["count"]["default"], 0);
    // Deserializing: a defaulted field is optional.
    assert_eq!(labelled["required"], json!(["displayName"]));
    // Serializing: the field is always there.
    assert_eq!(output["required"], json!(["displayName", "count"]));

    let envelope = call("tst_relabel", json!({"item": {"displayName": "abc"}}));
    assert_eq!(
        envelope,
        json!({"ok": true, "data": {"displayName": "ABC", "count": 1}})
    );
}

#[test]
fn raw_identifier_parameters_use_the_plain_name() {
    let (input, _) = schemas_of("tst_keywords");
    let properties = input["properties"].as_object().unwrap();
    let mut keys: Vec<&String> = properties.keys().collect();
    keys.sort();
    assert_eq!(keys, ["match", "type"]);
    assert_eq!(input["required"], json!(["type"]));
    assert_eq!(
        call("tst_keywords", json!({"type": "t", "match": 4})),
        json!({"ok": true, "data": {"result": "t:4"}})
    );
}

#[test]
fn the_context_parameter_is_not_in_the_schema() {
    let (input, _) = schemas_of("tst_contextual");
    assert_eq!(
        input,
        &json!({
            "type": "object",
            "properties": {"label": {"type": "string", "description": "A label."}},
            "required": ["label"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        call("tst_contextual", json!({"label": "l"})),
        json!({"ok": true, "data": {"result": "l@tst_contextual"}})
    );
}

#[test]
fn an_input_struct_is_the_whole_input_schema() {
    let (input, output) = schemas_of("tst_whole");
    assert_eq!(input["type"], "object");
    assert_eq!(input["required"], json!(["id"]));
    assert_eq!(
        input["properties"]["id"]["description"],
        "The thing's identifier."
    );
    assert_eq!(
        input["properties"]["note"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(output["required"], json!(["id", "noted"]));
    assert_eq!(
        call("tst_whole", json!({"id": 9})),
        json!({"ok": true, "data": {"id": 9, "noted": false}})
    );
}

#[test]

fn an_input_struct_rejects_unknown_properties_like_parameters_do() {
    let (input, _) = schemas_of("tst_whole");
    assert_eq!(input["additionalProperties"], false, "{input:#}");
    // A misspelt optional property must not be dropped silently.
    let envelope = call("tst_whole", json!({"id": 1, "notes": "typo"}));
    assert_eq!(envelope["ok"], false, "{envelope:#}");
    assert_eq!(envelope["type"], "validation");
    assert_eq!(envelope["problems"][0]["path"], "/notes");
}

#[test]
fn unit_outputs_are_the_empty_object() {
    for name in ["tst_idle", "tst_settle", "tst_void"] {
        let (input, output) = schemas_of(name);
        assert_eq!(output, &buril::__private::empty_object_schema(), "{name}");
        assert_eq!(
            output,
            &json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
        // No parameters: an empty object, and no `required`.
        assert_eq!(input, &buril::__private::empty_object_schema(), "{name}");
        assert_eq!(
            call(name, json!({})),
            json!({"ok": true, "data": {}}),
            "{name}"
        );
    }
}

#[test]
fn non_object_outputs_are_wrapped_as_result() {
    let (_, output) = schemas_of("tst_count");
    assert_eq!(
        output,
        &json!({
            "type": "object",
            "properties": {"result": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295u64}},
            "required": ["result"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        call("tst_count", json!({"to": 5})),
        json!({"ok": true, "data": {"result": 5}})
    );

    // The definitions of a wrapped array move to the root, where its references point.
    let (_, output) = schemas_of("tst_points");
    assert_eq!(
        output["properties"]["result"],
        json!({"type": "array", "items": {"$ref": "#/$defs/Point"}})
    );
    assert!(output["$defs"]["Point"].is_object());
    assert_eq!(
        call("tst_points", json!({"n": 2})),
        json!({"ok": true, "data": {"result": [{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 0.0}]}})
    );
}

#[test]
fn every_schema_has_an_object_root_and_no_schema_key() {
    for &tool in buril::registry().linked() {
        for schema in [tool.input_schema(), tool.output_schema()] {
            assert_eq!(schema["type"], "object", "{}: {schema}", tool.name());
            let mut found = Vec::new();
            walk(schema, &mut found);
            for sub in found {
                assert!(
                    sub.get("$schema").is_none(),
                    "{}: `$schema` in {schema}",
                    tool.name()
                );
            }
        }
    }
}

#[test]
fn every_schema_compiles_and_describes_what_the_tool_accepts_and_returns() {
    for (name, input) in sample_calls() {
        let (input_schema, output_schema) = schemas_of(name);
        assert!(
            compile(input_schema).is_valid(&input),
            "{name}: sample input does not match its schema"
        );
        let envelope = call(name, input);
        assert_eq!(envelope["ok"], true, "{name}: {envelope}");
        let data = &envelope["data"];
        assert!(
            compile(output_schema).is_valid(data),
            "{name}: data {data} does not match its output schema {output_schema:#}"
        );
    }
    // Every tool of this file has a sample.
    let sampled: std::collections::BTreeSet<&str> =
        sample_calls().into_iter().map(|(name, _)| name).collect();
    assert_eq!(sampled.len(), buril::registry().len());
}

#[test]
fn schemas_are_byte_identical_across_generations() {
    for &tool in buril::registry().linked() {
        let first = serde_json::to_string(tool.input_schema()).unwrap();
        let second = serde_json::to_string(tool.input_schema()).unwrap();
        assert_eq!(first, second);
    }

    // Two independent generations through the same builder, and a hand-built descriptor with the
    // schema function the attribute writes, all give the same bytes.
    fn golden_input(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        buril::__private::InputSchema::new(generator)
            .param::<String>("name", "Who to greet.", true)
            .param::<Option<u32>>("limit", "How many times, at most.", false)
            .finish()
    }
    fn golden_output(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        buril::__private::root_schema::<u64>(generator)
    }
    fn never(_: &buril::Context, _: buril::__private::Args) -> Result<Value, buril::ToolError> {
        Err(buril::ToolError::runtime("not called"))
    }
    let a = golden_input(&mut buril::__private::input_generator()).to_value();
    let b = golden_input(&mut buril::__private::input_generator()).to_value();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let rebuilt = buril::ToolDescriptor::new(
        {
            let mut meta = tool("tst_golden").meta().clone();
            meta.description = "The golden tool.".into();
            meta
        },
        buril::__private::Invoke::Sync(never),
        golden_input,
        golden_output,
    );
    let (input, output) = schemas_of("tst_golden");
    assert_eq!(
        serde_json::to_string(rebuilt.input_schema()).unwrap(),
        serde_json::to_string(input).unwrap()
    );
    assert_eq!(
        serde_json::to_string(rebuilt.output_schema()).unwrap(),
        serde_json::to_string(output).unwrap()
    );
}

#[test]
fn golden_schemas() {
    let (input, output) = schemas_of("tst_golden");
    assert_eq!(
        serde_json::to_string(input).unwrap(),
        concat!(
            r#"{"type":"object","properties":{"name":{"type":"string","description":"Who to "#,
            r#"greet."},"limit":{"type":["integer","null"],"minimum":0,"maximum":4294967295,"#,
            r#""description":"How many times, at most."}},"required":["name"],"#,
            r#""additionalProperties":false}"#
        )
    );
    assert_eq!(
        serde_json::to_string(output).unwrap(),
        concat!(
            r#"{"type":"object","properties":{"result":{"type":"integer","minimum":0,"#,
            r#""maximum":18446744073709551615}},"required":["result"],"#,
            r#""additionalProperties":false}"#
        )
    );
}
