//! The IR of the example tools and of the zoo of edge cases.

use buril_codegen::ToolSource;
use buril_codegen::ir::{TypeDef, TypeRef, normalize};
use tools as _;

fn api() -> buril_codegen::ir::Api {
    normalize(&ToolSource::from_registry(buril::registry())).expect("the tools normalise")
}

#[test]
fn every_tool_has_input_and_output_structs() {
    let api = api();
    assert!(api.tools.len() >= 35 + 12, "{}", api.tools.len());
    for tool in &api.tools {
        assert!(
            matches!(api.types.get(&tool.input_type), Some(TypeDef::Struct(_))),
            "{}",
            tool.meta.name
        );
        assert!(
            matches!(api.types.get(&tool.output_type), Some(TypeDef::Struct(_))),
            "{}",
            tool.meta.name
        );
    }
}

#[test]
fn shapes_are_recognised() {
    let api = api();
    let TypeDef::TaggedUnion(shape) = &api.types["Shape"] else {
        panic!("{:?}", api.types["Shape"]);
    };
    assert_eq!(shape.tag, "kind");
    let tags: Vec<&str> = shape
        .variants
        .iter()
        .map(|v| v.tag_value.as_str())
        .collect();
    assert_eq!(tags, ["circle", "rect", "point"]);
    assert!(matches!(&api.types["Loose"], TypeDef::Untagged(u) if u.variants.len() == 3));
    let TypeDef::Enum(urgency) = &api.types["Urgency"] else {
        panic!()
    };
    let wires: Vec<&str> = urgency.variants.iter().map(|v| v.wire.as_str()).collect();
    assert_eq!(wires, ["low", "right-now", "default"]);
    let TypeDef::Struct(numbers) = &api.types["ZooNumbersInput"] else {
        panic!()
    };
    let ty = |name: &str| {
        numbers
            .fields
            .iter()
            .find(|f| f.wire == name)
            .unwrap()
            .ty
            .clone()
    };
    assert_eq!(ty("big"), TypeRef::UInt64);
    assert_eq!(ty("signed"), TypeRef::Int64);
    assert_eq!(ty("small"), TypeRef::Int32);
    assert_eq!(ty("medium"), TypeRef::UInt32);
    assert_eq!(ty("maybe"), TypeRef::Nullable(Box::new(TypeRef::UInt64)));
    let TypeDef::Struct(node) = &api.types["Node"] else {
        panic!()
    };
    assert_eq!(
        node.fields[1].ty,
        TypeRef::Array(Box::new(TypeRef::Named("Node".into())))
    );
}

#[test]
fn normalisation_is_deterministic() {
    assert_eq!(api(), api());
}

#[test]
fn a_collision_is_reported_not_resolved() {
    let mut sources = ToolSource::from_registry(buril::registry());
    let mut clone = sources
        .iter()
        .find(|s| s.meta.name == "zoo_shape")
        .unwrap()
        .clone();
    clone.meta.name = "zoo_shape_other".into();
    // Same type name, different shape.
    clone.input_schema["$defs"]["Shape"] = serde_json::json!({"type": "string", "enum": ["a"]});
    sources.push(clone);
    let error = normalize(&sources).unwrap_err();
    assert!(error.to_string().contains("`Shape`"), "{error}");
}

#[test]
fn samples_are_real_successes() {
    let samples = crate::common::samples::samples();
    assert!(samples.len() >= 58);
    // Every output sample matches its tool's output schema.
    for sample in samples.iter().filter(|s| s.side == "output") {
        let tool = buril::registry().get(&sample.tool).unwrap();
        let validator = jsonschema::validator_for(tool.output_schema()).unwrap();
        assert!(
            validator.is_valid(&sample.value),
            "{} {}",
            sample.tool,
            sample.value
        );
    }
}
