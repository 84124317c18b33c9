//! Clashes are reported, not resolved: two things wanting one C# name, or a name that is not
//! a C# identifier, are writer errors.

use buril_codegen::{CSharp, LanguageWriter, ToolSource};
use serde_json::{Value, json};

use super::support::api_of;

/// A minimal tool with the given input properties and `$defs`.
fn tool(name: &str, properties: Value, defs: Value) -> ToolSource {
    let mut source = ToolSource::new(
        name,
        json!({"type": "object", "properties": properties, "$defs": defs}),
        json!({"type": "object", "properties": {}}),
    );
    source.meta.description = "A tool.".into();
    source.meta.family = "test".into();
    source
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
    renamed.meta.aliases = vec!["thing_build".into()].into();
    let error = writer_error(&[renamed, tool("thing_build", json!({}), json!({}))]);
    assert!(error.contains("`ThingBuild`"), "{error}");
    // A tool named like the asynchronous method of another, or of the client.
    let error = writer_error(&[
        tool("thing_make", json!({}), json!({})),
        tool("thing_make_async", json!({}), json!({})),
    ]);
    assert!(error.contains("`ThingMakeAsync`"), "{error}");
    for name in ["call_async", "server_version", "metadata_hash"] {
        let error = writer_error(&[tool(name, json!({}), json!({}))]);
        assert!(error.contains("BurilClient"), "{name}: {error}");
    }
}

#[test]
fn names_that_are_not_identifiers_are_errors() {
    let error = writer_error(&[tool("é", json!({}), json!({}))]);
    assert!(error.contains("not a C# identifier"), "{error}");
}
