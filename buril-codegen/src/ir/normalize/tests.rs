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
    assert_eq!(type_of(json!({"type": "integer"})), Ok(TypeRef::BigInteger));
    assert_eq!(
        type_of(json!({"type": "null"})),
        Ok(nullable(TypeRef::Json))
    );
    assert_eq!(type_of(json!(true)), Ok(TypeRef::Json));
    assert_eq!(type_of(json!({})), Ok(TypeRef::Json));
    let annotated = json!({"description": "d", "title": "t", "default": 1, "format": "x"});
    assert_eq!(type_of(annotated), Ok(TypeRef::Json));
}

/// The kind of `{"type": "integer"}` with `extra` keywords.
fn integer_with(extra: Value) -> TypeRef {
    let mut schema = json!({"type": "integer"});
    for (key, value) in extra.as_object().expect("keywords") {
        schema[key] = value.clone();
    }
    type_of(schema).expect("an integer normalises")
}

#[test]
fn integer_kinds_from_the_bounds_buril_publishes() {
    use TypeRef::*;
    // What buril writes for each Rust integer type: its exact range, no format.
    let ranges: [(&str, Value, Value, TypeRef); 12] = [
        ("i8", json!(i8::MIN), json!(i8::MAX), Int32),
        ("i16", json!(i16::MIN), json!(i16::MAX), Int32),
        ("i32", json!(i32::MIN), json!(i32::MAX), Int32),
        ("u8", json!(0), json!(u8::MAX), Int32),
        ("u16", json!(0), json!(u16::MAX), Int32),
        ("u32", json!(0), json!(u32::MAX), UInt32),
        ("i64", json!(i64::MIN), json!(i64::MAX), Int64),
        ("isize", json!(i64::MIN), json!(i64::MAX), Int64),
        ("u64", json!(0), json!(u64::MAX), UInt64),
        ("usize", json!(0), json!(u64::MAX), UInt64),
        // The 128-bit types reach what a JSON parser keeps exactly.
        ("i128", json!(i64::MIN), json!(u64::MAX), BigInteger),
        ("u128", json!(0), json!(u64::MAX), UInt64),
    ];
    for (rust, min, max, kind) in ranges {
        let schema = json!({"minimum": min, "maximum": max});
        assert_eq!(integer_with(schema), kind, "{rust}");
    }
    // One past a kind's range is the next kind.
    for (min, max, kind) in [
        (json!(i32::MIN), json!(i64::from(i32::MAX) + 1), Int64),
        (json!(i64::from(i32::MIN) - 1), json!(0), Int64),
        (json!(0), json!(u64::from(u32::MAX) + 1), Int64),
        (json!(-1), json!(u32::MAX), Int64),
        (json!(0), json!(i64::MAX as u64 + 1), UInt64),
        (json!(-1), json!(i64::MAX as u64 + 1), BigInteger),
        (json!(0), json!(0), Int32),
    ] {
        let schema = json!({"minimum": min, "maximum": max});
        assert_eq!(integer_with(schema.clone()), kind, "{schema}");
    }
    // A range the author narrowed is what it admits; a missing side is unbounded.
    assert_eq!(integer_with(json!({"minimum": 0, "maximum": 100})), Int32);
    assert_eq!(integer_with(json!({"minimum": 0})), BigInteger);
    assert_eq!(integer_with(json!({"maximum": 0})), BigInteger);
    // Under `type: ["integer", "null"]` too.
    let nullable_u32 = json!({"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX});
    assert_eq!(type_of(nullable_u32), Ok(nullable(UInt32)));
}

#[test]
fn integer_bounds_are_read_exactly() {
    use TypeRef::*;
    // Exclusive bounds are one integer inside; the tighter of two bounds counts.
    let exclusive = json!({"exclusiveMinimum": -1, "exclusiveMaximum": 4_294_967_296u64});
    assert_eq!(integer_with(exclusive), UInt32);
    let both =
        json!({"minimum": -5, "exclusiveMinimum": -1, "maximum": 10, "exclusiveMaximum": 100});
    assert_eq!(integer_with(both), Int32);
    // Fractional bounds round inwards: -0.5 admits 0 and up, 4294967295.5 up to u32::MAX.
    let fractional = json!({"minimum": -0.5, "maximum": 4_294_967_295.5});
    assert_eq!(integer_with(fractional), UInt32);
    let exclusive_fractional = json!({"exclusiveMinimum": -0.5, "exclusiveMaximum": 0.5});
    assert_eq!(integer_with(exclusive_fractional), Int32);
    // A float bound beyond every fixed kind, and one that is not a number.
    assert_eq!(
        integer_with(json!({"minimum": 0, "maximum": 1e30})),
        BigInteger
    );
    assert_eq!(
        integer_with(json!({"minimum": "0", "maximum": 1})),
        BigInteger
    );
    // u64::MAX and i64::MIN are exact, not doubles rounded to the next power of two.
    assert_eq!(
        integer_with(json!({"minimum": i64::MIN, "maximum": i64::MAX})),
        Int64
    );
    assert_eq!(
        integer_with(json!({"minimum": 0, "maximum": u64::MAX})),
        UInt64
    );
    // As floats, 2^63 - 1 reads as 2^63, beyond `long`.
    assert_eq!(
        integer_with(json!({"minimum": 0.0, "maximum": 9_223_372_036_854_775_807.0})),
        UInt64
    );
}

#[test]
fn integer_formats_stand_in_for_missing_bounds() {
    use TypeRef::*;
    // Schemas from elsewhere may still carry schemars' formats without bounds.
    for (format, kind) in [
        ("int8", Int32),
        ("int16", Int32),
        ("int32", Int32),
        ("uint8", Int32),
        ("uint16", Int32),
        ("uint32", UInt32),
        ("int64", Int64),
        ("int", Int64),
        ("uint64", UInt64),
        ("uint", UInt64),
        ("int128", BigInteger),
        ("uint128", BigInteger),
        ("date-time", BigInteger),
    ] {
        assert_eq!(integer_with(json!({"format": format})), kind, "{format}");
    }
    assert_eq!(integer_with(json!({"format": 7})), BigInteger);
    // schemars 0.8 wrote `minimum: 0` with `uint32`: the format gives the other side.
    assert_eq!(
        integer_with(json!({"format": "uint32", "minimum": 0})),
        UInt32
    );
    // Bounds and format together: what both admit.
    assert_eq!(
        integer_with(json!({"format": "int64", "minimum": 0, "maximum": 1000})),
        Int32
    );
    assert_eq!(
        integer_with(json!({"format": "int32", "minimum": 0, "maximum": u64::MAX})),
        Int32
    );
}

#[test]
fn constants_by_kind() {
    assert_eq!(type_of(json!({"const": "a"})), Ok(TypeRef::String));
    assert_eq!(type_of(json!({"const": true})), Ok(TypeRef::Bool));
    assert_eq!(type_of(json!({"const": 1.5})), Ok(TypeRef::Float64));
    assert_eq!(type_of(json!({"const": 2})), Ok(TypeRef::Int32));
    assert_eq!(type_of(json!({"const": u32::MAX})), Ok(TypeRef::UInt32));
    assert_eq!(type_of(json!({"const": i64::MIN})), Ok(TypeRef::Int64));
    assert_eq!(type_of(json!({"const": u64::MAX})), Ok(TypeRef::UInt64));
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
    assert_eq!(type_of(both), Ok(nullable(TypeRef::BigInteger)));
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
    let untagged = json!({"anyOf": [{"type": "string"},
                                    {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX},
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
