//! Normalisation of single properties: every shape, every error.

use serde_json::{Value, json};

use super::keywords::UNSUPPORTED;
use super::{NormalizeError, normalize};
use crate::ir::{Api, TypeDef, TypeRef};
use crate::source::ToolSource;

/// Normalises one tool whose input has the single property `p` with `schema` (and `defs`).
fn property(schema: Value, defs: Value) -> Result<(TypeRef, Api), String> {
    let source = ToolSource::new(
        "probe",
        json!({"type": "object", "properties": {"p": schema},
               "required": ["p"], "$defs": defs}),
        json!({"type": "object", "properties": {}}),
    );
    let api = normalize(&[source]).map_err(|e| e.to_string())?;
    let TypeDef::Struct(input) = &api.types["ProbeInput"] else {
        panic!("the input is a struct");
    };
    Ok((input.fields[0].ty.clone(), api))
}

fn type_of(schema: Value) -> Result<TypeRef, String> {
    property(schema, json!({})).map(|(ty, _)| ty)
}

fn named(name: &str) -> TypeRef {
    TypeRef::Named(name.into())
}

fn nullable(inner: TypeRef) -> TypeRef {
    TypeRef::Nullable(Box::new(inner))
}

#[test]
fn scalar_types_and_formats() {
    assert_eq!(type_of(json!({"type": "string"})), Ok(TypeRef::String));
    assert_eq!(type_of(json!({"type": "boolean"})), Ok(TypeRef::Bool));
    assert_eq!(type_of(json!({"type": "number"})), Ok(TypeRef::Float64));
    for format in ["int8", "int16", "int32", "uint8", "uint16"] {
        let schema = json!({"type": "integer", "format": format});
        assert_eq!(type_of(schema), Ok(TypeRef::Int32), "{format}");
    }
    for format in [json!("int64"), json!("uint32"), json!("uint64"), json!(7)] {
        let schema = json!({"type": "integer", "format": format});
        assert_eq!(type_of(schema), Ok(TypeRef::Int64), "{format}");
    }
    assert_eq!(type_of(json!({"type": "integer"})), Ok(TypeRef::Int64));
    assert_eq!(
        type_of(json!({"type": "null"})),
        Ok(nullable(TypeRef::Json))
    );
    assert_eq!(type_of(json!(true)), Ok(TypeRef::Json));
    assert_eq!(type_of(json!({})), Ok(TypeRef::Json));
    let annotated = json!({"description": "d", "title": "t", "default": 1, "format": "x"});
    assert_eq!(type_of(annotated), Ok(TypeRef::Json));
}

#[test]
fn constants_by_kind() {
    assert_eq!(type_of(json!({"const": "a"})), Ok(TypeRef::String));
    assert_eq!(type_of(json!({"const": true})), Ok(TypeRef::Bool));
    assert_eq!(type_of(json!({"const": 1.5})), Ok(TypeRef::Float64));
    assert_eq!(type_of(json!({"const": 2})), Ok(TypeRef::Int64));
    assert_eq!(type_of(json!({"const": [1]})), Ok(TypeRef::Json));
}

#[test]
fn type_arrays() {
    let note = json!({"type": ["string", "null"], "description": "d"});
    assert_eq!(type_of(note), Ok(nullable(TypeRef::String)));
    let count = json!({"type": ["null", "integer"], "format": "int32"});
    assert_eq!(type_of(count), Ok(nullable(TypeRef::Int32)));
    assert_eq!(type_of(json!({"type": ["string"]})), Ok(TypeRef::String));
    assert_eq!(type_of(json!({"type": ["null"]})), Ok(TypeRef::Json));
    assert_eq!(type_of(json!({"type": []})), Ok(TypeRef::Json));
    let list = json!({"type": ["array", "null"], "items": {"type": "boolean"}});
    assert_eq!(
        type_of(list),
        Ok(nullable(TypeRef::Array(Box::new(TypeRef::Bool))))
    );
    let error = type_of(json!({"type": ["string", "integer"]})).unwrap_err();
    assert!(error.contains("a value of several JSON types"), "{error}");
    assert!(error.contains("`/input/properties/p`"), "{error}");
}

#[test]
fn arrays_and_maps() {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(
        type_of(strings),
        Ok(TypeRef::Array(Box::new(TypeRef::String)))
    );
    let any = json!({"type": "array"});
    assert_eq!(type_of(any), Ok(TypeRef::Array(Box::new(TypeRef::Json))));
    let closed = json!({"type": "array", "items": false});
    assert_eq!(type_of(closed), Ok(TypeRef::Array(Box::new(TypeRef::Json))));
    for tuple in [
        json!({"type": "array", "prefixItems": [{"type": "string"}]}),
        json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false}),
        json!({"type": "array", "prefixItems": [], "items": {"type": "string"}}),
    ] {
        let error = type_of(tuple).unwrap_err();
        assert!(error.contains("a tuple (`prefixItems`)"), "{error}");
    }
    let numbers = json!({"type": "object", "additionalProperties": {"type": "number"}});
    assert_eq!(
        type_of(numbers),
        Ok(TypeRef::Map(Box::new(TypeRef::Float64)))
    );
    let open = json!({"type": "object"});
    assert_eq!(type_of(open), Ok(TypeRef::Map(Box::new(TypeRef::Json))));
    let (ty, api) = property(
        json!({"type": "object", "additionalProperties": false}),
        json!({}),
    )
    .unwrap();
    assert_eq!(ty, named("ProbeInputP"));
    assert!(matches!(&api.types["ProbeInputP"], TypeDef::Struct(s) if s.fields.is_empty()));
}

#[test]
fn nested_names_come_from_owner_and_property() {
    let schema = json!({"type": "object", "properties": {
        "3d_view": {"type": "string", "enum": ["a", "b"]},
        "mode-name": {"type": "array", "items": {"enum": ["x"]}}
    }});
    let (ty, api) = property(schema, json!({})).unwrap();
    assert_eq!(ty, named("ProbeInputP"));
    let TypeDef::Struct(inner) = &api.types["ProbeInputP"] else {
        panic!("a struct");
    };
    assert_eq!(inner.fields[0].ty, named("ProbeInputP_3dView"));
    assert_eq!(
        inner.fields[1].ty,
        TypeRef::Array(Box::new(named("ProbeInputPModeNameItem")))
    );
    assert!(matches!(&api.types["ProbeInputP_3dView"], TypeDef::Enum(_)));
}

#[test]
fn unsupported_keywords_are_named_in_a_fixed_order() {
    for keyword in UNSUPPORTED {
        let error = type_of(json!({"type": "string", *keyword: {}})).unwrap_err();
        assert!(
            error.contains(&format!("the `{keyword}` keyword")),
            "{error}"
        );
    }
    // With several, the first of the list, whatever the order of the keys.
    let error = type_of(json!({"patternProperties": {}, "else": {}, "if": {}})).unwrap_err();
    assert!(error.contains("the `if` keyword"), "{error}");
    // `$ref` and `allOf` are read first.
    let error = type_of(json!({"$ref": "#/$defs/Missing", "not": {}})).unwrap_err();
    assert!(
        error.contains("`#/$defs/Missing` is not defined"),
        "{error}"
    );
    let error = type_of(json!({"allOf": [{}, {}], "not": {}})).unwrap_err();
    assert!(error.contains("`allOf` with several schemas"), "{error}");
    let error = type_of(json!({"type": "tuple"})).unwrap_err();
    assert!(error.contains("the type `tuple`"), "{error}");
    let error = type_of(json!({"minLength": 1})).unwrap_err();
    assert!(error.contains("a schema without a `type`"), "{error}");
    let error = type_of(json!({"$ref": "https://example.com/s"})).unwrap_err();
    assert!(
        error.contains("the reference `https://example.com/s`"),
        "{error}"
    );
    let error = type_of(json!(false)).unwrap_err();
    assert!(error.contains("the `false` schema"), "{error}");
}

#[test]
fn references_and_all_of() {
    let defs = json!({"Color": {"type": "string", "enum": ["red", "green"]},
                      "Node": {"type": "object", "properties": {
                          "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}}});
    let (ty, api) = property(json!({"$ref": "#/$defs/Color"}), defs.clone()).unwrap();
    assert_eq!(ty, named("Color"));
    assert!(matches!(&api.types["Color"], TypeDef::Enum(e) if e.variants.len() == 2));
    let wrapped = json!({"allOf": [{"$ref": "#/$defs/Color"}], "description": "d"});
    assert_eq!(property(wrapped, defs.clone()).unwrap().0, named("Color"));
    // A recursive definition refers to itself by name.
    let (ty, api) = property(json!({"$ref": "#/$defs/Node"}), defs).unwrap();
    assert_eq!(ty, named("Node"));
    let TypeDef::Struct(node) = &api.types["Node"] else {
        panic!("a struct");
    };
    assert_eq!(node.fields[0].ty, nullable(named("Node")));
    assert_eq!(type_of(json!({"$ref": "#"})), Ok(named("ProbeInput")));
}

#[test]
fn unions() {
    // `oneOf` is read before `anyOf`, whatever the order of the keys.
    let both = json!({"anyOf": [{"type": "string"}, {"type": "null"}],
                      "oneOf": [{"type": "integer"}, {"type": "null"}]});
    assert_eq!(type_of(both), Ok(nullable(TypeRef::Int64)));
    let documented = json!({"oneOf": [{"const": "a", "description": "A."},
                                      {"enum": ["b"]}]});
    let (ty, api) = property(documented, json!({})).unwrap();
    assert_eq!(ty, named("ProbeInputP"));
    let TypeDef::Enum(e) = &api.types["ProbeInputP"] else {
        panic!("an enum");
    };
    assert_eq!(e.variants[0].description.as_deref(), Some("A."));
    let tagged = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "box"}, "w": {"type": "number"}},
         "required": ["kind", "w"]},
        {"$ref": "#/$defs/Ball"}]});
    let defs = json!({"Ball": {"type": "object", "properties": {
        "kind": {"type": "string", "enum": ["ball"]}, "r": {"type": "number"}},
        "required": ["kind", "r"]}});
    let (ty, api) = property(tagged, defs).unwrap();
    assert_eq!(ty, named("ProbeInputP"));
    let TypeDef::TaggedUnion(union) = &api.types["ProbeInputP"] else {
        panic!("a tagged union");
    };
    assert_eq!(union.tag, "kind");
    let names: Vec<_> = union.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["ProbeInputPBox", "ProbeInputPBall"]);
    assert_eq!(union.variants[1].fields[0].wire, "r");
    let untagged = json!({"anyOf": [{"type": "string"}, {"type": "integer"},
                                    {"type": "null"}]});
    let (ty, api) = property(untagged, json!({})).unwrap();
    assert_eq!(ty, nullable(named("ProbeInputP")));
    let TypeDef::Untagged(u) = &api.types["ProbeInputP"] else {
        panic!("an untagged union");
    };
    assert_eq!(u.variants, [TypeRef::String, TypeRef::Int64]);
}

#[test]
fn pointers_escape_slashes_and_tildes() {
    // A property named `a/b~c` whose schema cannot be generated: the pointer names it escaped.
    let source = ToolSource::new(
        "probe",
        json!({"type": "object", "properties": {"a/b~c": {"type": "tuple"}}}),
        json!({"type": "object", "properties": {}}),
    );
    let error = normalize(&[source]).unwrap_err();
    assert_eq!(
        error,
        NormalizeError::Unsupported {
            tool: "probe".into(),
            pointer: "/input/properties/a~1b~0c".into(),
            reason: "the type `tuple`".into(),
        }
    );
    assert!(
        error.to_string().contains("at `/input/properties/a~1b~0c`"),
        "{error}"
    );
    // A reference's token is unescaped to find the definition, and escaped again in pointers.
    let defs = json!({"a/b": {"type": "object", "properties": {"x": {"type": "tuple"}}}});
    let error = property(json!({"$ref": "#/$defs/a~1b"}), defs).unwrap_err();
    assert!(error.contains("at `/$defs/a~1b/properties/x`"), "{error}");
    let defs = json!({"a/b": {"type": "string", "enum": ["x"]}});
    let (ty, _) = property(json!({"$ref": "#/$defs/a~1b"}), defs).unwrap();
    assert_eq!(ty, named("AB"));
}
