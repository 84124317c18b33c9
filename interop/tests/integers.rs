//! Integers of every Rust kind along the codegen path: the IR kind of each schema buril
//! publishes, a round trip of every kind at its extremes through the generated C# classes under
//! Mono (with the property types they were given), and the generated TypeScript client refusing,
//! before its transport is called, integers a JavaScript number does not hold exactly.
//!
//! The tools are this file's own (`integer_extremes`, `integer_send`); the tests fail, never
//! skip, when `mcs`, `mono`, `node` or `tsc` is missing (see the support modules).

#[allow(dead_code)]
#[path = "csharp/support.rs"]
mod csharp_support;
#[allow(dead_code)]
#[path = "typescript/support.rs"]
mod typescript_support;

use std::collections::BTreeMap;
use std::fs;

use buril_codegen::ToolSource;
use buril_codegen::ir::{TypeDef, TypeRef, normalize};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A field per Rust integer type, and the shapes that hold them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Extremes {
    pub i8: i8,
    pub i16: i16,
    pub i32: i32,
    pub i64: i64,
    pub isize: isize,
    pub u8: u8,
    pub u16: u16,
    pub u32: u32,
    pub u64: u64,
    pub usize: usize,
    /// Published as `i64::MIN..=u64::MAX`, what a JSON parser keeps exactly.
    pub i128: i128,
    /// Published as `0..=u64::MAX`.
    pub u128: u128,
    /// A hand-written schema without bounds.
    #[schemars(schema_with = "unbounded_integer")]
    pub unbounded: i128,
    /// Narrowed by its author.
    #[schemars(range(min = 0, max = 100))]
    pub percent: i64,
    pub maybe_u64: Option<u64>,
    pub maybe_i64: Option<i64>,
    pub maybe_u32: Option<u32>,
    pub maybe_usize: Option<usize>,
    pub list_u64: Vec<u64>,
    pub list_maybe_u64: Vec<Option<u64>>,
    pub map_i64: BTreeMap<String, i64>,
}

fn unbounded_integer(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({"type": "integer"})
}

/// Echoes integers of every kind.
#[buril::tool]
pub fn integer_extremes(buril::Input(extremes): buril::Input<Extremes>) -> Extremes {
    extremes
}

/// Told apart by `kind`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pick {
    /// A count.
    Count {
        /// 64 bits.
        n: u64,
    },
    /// A ratio.
    Ratio {
        /// A float.
        r: f64,
    },
}

/// No tag: an exact count or an approximate one.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Amount {
    /// Exact.
    Exact(u64),
    /// Approximate.
    Approx(f64),
}

/// No tag: a number or a name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Id {
    /// A number.
    Number(u64),
    /// A name.
    Name(String),
}

/// Takes integers of every width, in every shape, and floats.
#[buril::tool]
#[allow(clippy::too_many_arguments)]
pub fn integer_send(
    /// 64 bits, unsigned.
    count: Option<u64>,
    /// 64 bits, signed.
    signed: Option<i64>,
    /// 32 bits, signed.
    small: Option<i32>,
    /// 32 bits, unsigned.
    medium: Option<u32>,
    /// A float.
    ratio: Option<f64>,
    /// A list of counts.
    counts: Option<Vec<u64>>,
    /// Counts by name.
    by_name: Option<BTreeMap<String, u64>>,
    /// A tagged union.
    pick: Option<Pick>,
    /// An untagged union with a float alternative.
    amount: Option<Amount>,
    /// An untagged union whose only number is an integer.
    id: Option<Id>,
) {
    let _ = (
        count, signed, small, medium, ratio, counts, by_name, pick, amount, id,
    );
}

/// The sources of this file's tools.
fn sources() -> Vec<ToolSource> {
    ["integer_extremes", "integer_send"]
        .into_iter()
        .map(|name| {
            let tool = buril::registry().get(name).expect("the tool is registered");
            ToolSource::from_descriptor(&tool)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The IR.

/// Each Rust integer type's schema, as schemars and buril publish it, and the kind it gets.
#[test]
fn every_rust_integer_type_gets_the_kind_of_its_range() {
    use TypeRef::*;
    let sources = sources();
    let schema = &sources[0].input_schema;
    let property = |name: &str| &schema["properties"][name];
    // What buril publishes: the exact range, no schemars format.
    let published = [
        ("i8", json!(i8::MIN), json!(i8::MAX)),
        ("i16", json!(i16::MIN), json!(i16::MAX)),
        ("i32", json!(i32::MIN), json!(i32::MAX)),
        ("i64", json!(i64::MIN), json!(i64::MAX)),
        ("isize", json!(i64::MIN), json!(i64::MAX)),
        ("u8", json!(0), json!(u8::MAX)),
        ("u16", json!(0), json!(u16::MAX)),
        ("u32", json!(0), json!(u32::MAX)),
        ("u64", json!(0), json!(u64::MAX)),
        ("usize", json!(0), json!(u64::MAX)),
        ("i128", json!(i64::MIN), json!(u64::MAX)),
        ("u128", json!(0), json!(u64::MAX)),
        ("percent", json!(0), json!(100)),
    ];
    for (name, min, max) in published {
        let p = property(name);
        assert_eq!(p["type"], "integer", "{name}: {p}");
        assert_eq!((&p["minimum"], &p["maximum"]), (&min, &max), "{name}: {p}");
        assert!(p.get("format").is_none(), "{name}: {p}");
    }
    assert_eq!(property("unbounded")["type"], "integer");
    assert!(property("unbounded").get("maximum").is_none());

    let api = normalize(&sources).expect("the tools normalise");
    let TypeDef::Struct(input) = &api.types["IntegerExtremesInput"] else {
        panic!("the input is a struct");
    };
    let boxed = |ty: TypeRef| Box::new(ty);
    let expected = [
        ("i8", Int32),
        ("i16", Int32),
        ("i32", Int32),
        ("i64", Int64),
        ("isize", Int64),
        ("u8", Int32),
        ("u16", Int32),
        ("u32", UInt32),
        ("u64", UInt64),
        ("usize", UInt64),
        ("i128", BigInteger),
        ("u128", UInt64),
        ("unbounded", BigInteger),
        ("percent", Int32),
        ("maybe_u64", Nullable(boxed(UInt64))),
        ("maybe_i64", Nullable(boxed(Int64))),
        ("maybe_u32", Nullable(boxed(UInt32))),
        ("maybe_usize", Nullable(boxed(UInt64))),
        ("list_u64", Array(boxed(UInt64))),
        ("list_maybe_u64", Array(boxed(Nullable(boxed(UInt64))))),
        ("map_i64", Map(boxed(Int64))),
    ];
    let kinds: BTreeMap<&str, &TypeRef> = input
        .fields
        .iter()
        .map(|f| (f.wire.as_str(), &f.ty))
        .collect();
    assert_eq!(kinds.len(), expected.len(), "{kinds:?}");
    for (name, kind) in &expected {
        assert_eq!(kinds[name], kind, "{name}");
    }
    // In a tagged union's variant and an untagged union's alternatives too.
    let TypeDef::TaggedUnion(pick) = &api.types["Pick"] else {
        panic!("{:?}", api.types["Pick"]);
    };
    assert_eq!(pick.variants[0].fields[0].ty, UInt64);
    let TypeDef::Untagged(amount) = &api.types["Amount"] else {
        panic!("{:?}", api.types["Amount"]);
    };
    assert_eq!(amount.variants, [UInt64, Float64]);
}

// ---------------------------------------------------------------------------------------------
// C#.

/// Every field at the bottom of its range (for `i128` and the unbounded field, of the Rust
/// type's range; for `u128`, of the published one).
fn minimums() -> Extremes {
    Extremes {
        i8: i8::MIN,
        i16: i16::MIN,
        i32: i32::MIN,
        i64: i64::MIN,
        isize: isize::MIN,
        u8: 0,
        u16: 0,
        u32: 0,
        u64: 0,
        usize: 0,
        i128: i128::MIN,
        u128: 0,
        unbounded: i128::MIN,
        percent: 0,
        maybe_u64: None,
        maybe_i64: Some(i64::MIN),
        maybe_u32: Some(0),
        maybe_usize: Some(0),
        list_u64: vec![0, 0],
        list_maybe_u64: vec![None, Some(0)],
        map_i64: BTreeMap::from([("min".to_owned(), i64::MIN)]),
    }
}

/// Every field at the top of its range.
fn maximums() -> Extremes {
    Extremes {
        i8: i8::MAX,
        i16: i16::MAX,
        i32: i32::MAX,
        i64: i64::MAX,
        isize: isize::MAX,
        u8: u8::MAX,
        u16: u16::MAX,
        u32: u32::MAX,
        u64: u64::MAX,
        usize: usize::MAX,
        i128: i128::MAX,
        u128: u128::from(u64::MAX),
        unbounded: i128::MAX,
        percent: 100,
        maybe_u64: Some(u64::MAX),
        maybe_i64: Some(i64::MAX),
        maybe_u32: Some(u32::MAX),
        maybe_usize: Some(usize::MAX),
        list_u64: vec![u64::MAX, 1 << 53, (1 << 53) + 1],
        list_maybe_u64: vec![Some(u64::MAX), None],
        map_i64: BTreeMap::from([("max".to_owned(), i64::MAX), ("min".to_owned(), i64::MIN)]),
    }
}

/// `text` with `"{field}":{from}` replaced by `"{field}":{to}` (once, and it must be there).
fn with_field(text: &str, field: &str, from: &str, to: &str) -> String {
    let old = format!("\"{field}\":{from}");
    assert_eq!(text.matches(&old).count(), 1, "{old} in {text}");
    text.replacen(&old, &format!("\"{field}\":{to}"), 1)
}

#[test]
fn every_integer_kind_round_trips_at_its_extremes_through_the_csharp_classes() {
    let api = csharp_support::api_of(&sources());
    let harness = csharp_support::Harness::build(&api, false);

    // The property types, as written...
    let types_cs = &harness
        .files
        .iter()
        .find(|f| f.path == "csharp/Buril.Types.cs")
        .expect("the types")
        .contents;
    for declaration in [
        "public int I8 { get; set; }",
        "public int I16 { get; set; }",
        "public int I32 { get; set; }",
        "public long I64 { get; set; }",
        "public long Isize { get; set; }",
        "public int U8 { get; set; }",
        "public int U16 { get; set; }",
        "public uint U32 { get; set; }",
        "public ulong U64 { get; set; }",
        "public ulong Usize { get; set; }",
        "public global::System.Numerics.BigInteger I128 { get; set; }",
        "public ulong U128 { get; set; }",
        "public global::System.Numerics.BigInteger Unbounded { get; set; }",
        "public int Percent { get; set; }",
        "public ulong? MaybeU64 { get; set; }",
        "public long? MaybeI64 { get; set; }",
        "public uint? MaybeU32 { get; set; }",
        "public global::System.Collections.Generic.List<ulong> ListU64 { get; set; }",
        "public global::System.Collections.Generic.List<ulong?> ListMaybeU64 { get; set; }",
        "public global::System.Collections.Generic.Dictionary<string, long> MapI64 { get; set; }",
        "public static Amount FromUInt64(ulong value)",
        "public bool TryGetUInt64(out ulong value)",
        "public ulong N { get; set; }",
    ] {
        assert!(types_cs.contains(declaration), "{declaration}");
    }

    // ...and as compiled.
    let (min, max) = (minimums(), maximums());
    let min_text = serde_json::to_string(&min).expect("JSON");
    let max_text = serde_json::to_string(&max).expect("JSON");
    // Values no C# type of the field holds: one past each end, or not an integer.
    let refused = [
        with_field(&max_text, "i32", "2147483647", "2147483648"),
        with_field(&min_text, "i32", "-2147483648", "-2147483649"),
        with_field(&max_text, "u32", "4294967295", "4294967296"),
        with_field(&min_text, "u32", "0", "-1"),
        with_field(
            &max_text,
            "i64",
            "9223372036854775807",
            "9223372036854775808",
        ),
        with_field(
            &min_text,
            "i64",
            "-9223372036854775808",
            "-9223372036854775809",
        ),
        with_field(
            &max_text,
            "u64",
            "18446744073709551615",
            "18446744073709551616",
        ),
        with_field(&min_text, "u64", "0", "-1"),
        with_field(
            &max_text,
            "maybe_u64",
            "18446744073709551615",
            "18446744073709551616",
        ),
        with_field(&min_text, "i8", "-128", "1.5"),
        with_field(&min_text, "u64", "0", "0.5"),
        with_field(&min_text, "i64", "-9223372036854775808", "\"1\""),
        with_field(&min_text, "u32", "0", "null"),
    ];
    // Integers written as floats without a fraction are read, as the host reads them.
    let integral_floats = with_field(&min_text, "i8", "-128", "-128.0");
    let mut values = vec![min_text.clone(), max_text.clone(), integral_floats];
    values.extend(refused.iter().cloned());
    let entries: Vec<String> = values
        .iter()
        .map(|value| format!("{{\"tool\":\"integer_extremes\",\"value\":{value}}}"))
        .collect();
    let path = harness.dir.path().join("values.json");
    fs::write(&path, format!("[{}]", entries.join(","))).expect("the values are written");
    let output = harness.run(&["exact", &path.display().to_string()], &[]);

    let types = &output["types"]["integer_extremes"];
    let expected_types = json!({
        "i8": "System.Int32", "i16": "System.Int32", "i32": "System.Int32",
        "i64": "System.Int64", "isize": "System.Int64",
        "u8": "System.Int32", "u16": "System.Int32", "u32": "System.UInt32",
        "u64": "System.UInt64", "usize": "System.UInt64",
        "i128": "System.Numerics.BigInteger", "u128": "System.UInt64",
        "unbounded": "System.Numerics.BigInteger", "percent": "System.Int32",
        "maybe_u64": "System.Nullable`1[System.UInt64]",
        "maybe_i64": "System.Nullable`1[System.Int64]",
        "maybe_u32": "System.Nullable`1[System.UInt32]",
        "maybe_usize": "System.Nullable`1[System.UInt64]",
        "list_u64": "System.Collections.Generic.List`1[System.UInt64]",
        "list_maybe_u64": "System.Collections.Generic.List`1[System.Nullable`1[System.UInt64]]",
        "map_i64": "System.Collections.Generic.Dictionary`2[System.String,System.Int64]",
    });
    assert_eq!(types, &expected_types);

    let results = output["results"].as_array().expect("results");
    assert_eq!(results.len(), values.len());
    // Read and written back exactly, by text and through JSON values: what the C# side wrote
    // reads back on the Rust side as the very values Rust wrote.
    for (result, original) in results.iter().zip([&min, &max, &min]) {
        assert!(result.get("error").is_none(), "{result}");
        for key in ["text", "tokenText"] {
            let text = result[key].as_str().expect("text");
            let back: Extremes =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{key}: {e}: {text}"));
            assert_eq!(&back, original, "{key}: {text}");
        }
    }
    // The extremes as text, digit for digit (a float or a rounded value would not read back
    // as the same integer, but say it plainly).
    let max_written = results[1]["text"].as_str().expect("text");
    for digits in [
        "\"u64\":18446744073709551615",
        "\"i64\":9223372036854775807",
        "\"i128\":170141183460469231731687303715884105727",
        "\"maybe_u64\":18446744073709551615",
        "\"list_u64\":[18446744073709551615,9007199254740992,9007199254740993]",
    ] {
        assert!(max_written.contains(digits), "{digits} in {max_written}");
    }
    let min_written = results[0]["tokenText"].as_str().expect("text");
    for digits in [
        "\"i64\":-9223372036854775808",
        "\"unbounded\":-170141183460469231731687303715884105728",
    ] {
        assert!(min_written.contains(digits), "{digits} in {min_written}");
    }
    // What no type holds is an error naming the property, never a rounded or wrapped value.
    for (result, value) in results[3..].iter().zip(&refused) {
        let error = result["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with("JsonSerializationException")
                || error.starts_with("JsonReaderException"),
            "{value} was read: {result}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// TypeScript.

#[test]
fn the_typescript_client_refuses_integers_a_number_does_not_hold_before_sending() {
    use typescript_support::{Folder, file, generate};
    let files = generate(&sources());
    let types = file(&files, "typescript/types.ts");
    // Integers that fit 2^53 are plain numbers; wider ones are `Int64` and say so.
    let interface = &types[types
        .find("export interface IntegerExtremesInput {")
        .expect("the input")..];
    let interface = &interface[..interface.find("\n}\n").expect("its end")];
    for line in [
        "  i32: number;",
        "  u32: number;",
        "  u16: number;",
        "  i64: Int64;",
        "  u64: Int64;",
        "  usize: Int64;",
        "  i128: Int64;",
        "  unbounded: Int64;",
        "  maybe_u64?: Int64 | null;",
        "  maybe_u32?: number | null;",
        "  list_u64: Int64[];",
    ] {
        assert!(
            interface.contains(&format!("\n{line}\n")),
            "{line} in {interface}"
        );
    }
    let note =
        |kind: &str| format!("This is {kind}: a JavaScript number holds it exactly only within");
    // The doc comment right above a field's line ("" when there is none).
    let field_doc = |field: &str| {
        let at = interface
            .find(&format!("\n  {field}"))
            .unwrap_or_else(|| panic!("{field}"));
        let above = &interface[..at];
        if !above.ends_with("*/") {
            return String::new();
        }
        let start = above.rfind("/**").expect("a doc comment");
        above[start..].replace("\n   * ", " ")
    };
    assert!(field_doc("u64:").contains(&note("a 64-bit unsigned integer (0 to 2^64 - 1)")));
    assert!(field_doc("i64:").contains(&note("a 64-bit signed integer (-2^63 to 2^63 - 1)")));
    assert!(field_doc("unbounded:").contains(&note("an integer of no fixed size")));
    assert!(field_doc("list_u64:").contains("Each integer in it is a 64-bit unsigned integer"));
    // A 32-bit field has no such note.
    assert_eq!(field_doc("u32:"), "");
    assert_eq!(field_doc("maybe_u32?:"), "");

    let folder = Folder::with(&files);
    folder.write("integers.ts", include_str!("typescript/integers.ts"));
    folder.emit(false);
    let printed: Value =
        serde_json::from_str(&folder.node("out/integers.js", &[])).expect("node prints JSON");
    let case = |label: &str| -> &Value {
        printed
            .as_array()
            .expect("an array")
            .iter()
            .find(|c| c["label"] == label)
            .unwrap_or_else(|| panic!("no case {label}: {printed}"))
    };
    // Sent: safe integers at the edge, floats of any size, nulls, unions where a float
    // alternative holds the value.
    for label in [
        "safe max",
        "safe min",
        "u32 max",
        "large floats",
        "tagged float",
        "untagged float",
        "untagged safe",
        "untagged name",
        "null",
        "extremes safe",
    ] {
        let sent = case(label);
        assert_eq!(sent["sent"], true, "{sent}");
        assert!(sent.get("refused").is_none(), "{sent}");
    }
    // The float arrives unchanged.
    assert_eq!(case("large floats")["input"], json!({"ratio": 1e300}));
    assert_eq!(
        case("safe max")["input"],
        json!({"count": 9_007_199_254_740_991u64})
    );
    // Refused before the transport is called, as a validation failure naming each value.
    let refused = |label: &str, problems: &[(&str, &str)]| {
        let c = case(label);
        assert_eq!(c["sent"], false, "{c}");
        let refusal = &c["refused"];
        assert_eq!(refusal["isBurilToolError"], true, "{c}");
        assert_eq!(refusal["type"], "validation", "{c}");
        assert_eq!(refusal["tool"], "integer_send", "{c}");
        let found = refusal["problems"].as_array().expect("problems");
        assert_eq!(found.len(), problems.len(), "{c}");
        for (problem, (path, value)) in found.iter().zip(problems) {
            assert_eq!(problem["path"], *path, "{c}");
            let message = problem["message"].as_str().expect("a message");
            assert!(message.contains(value), "{value} in {message}");
        }
        let error = refusal["error"].as_str().expect("the error");
        assert!(error.starts_with("invalid input"), "{error}");
        c.clone()
    };
    let pow53 = refused("2^53", &[("/count", "9007199254740992")]);
    assert!(
        pow53["refused"]["problems"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Number.MAX_SAFE_INTEGER")),
        "{pow53}"
    );
    // 2^53 - 1 + 2 is 2^53 + 1, which no double holds: it is 2^53 already, and refused as such.
    refused("safe max + 2", &[("/count", "9007199254740992")]);
    refused("2^53 + 2", &[("/count", "9007199254740994")]);
    refused("negative 2^53", &[("/signed", "-9007199254740992")]);
    refused("fraction", &[("/small", "1.5")]);
    refused(
        "list",
        &[
            ("/counts/1", "9007199254740992"),
            ("/counts/3", "1152921504606847000"),
        ],
    );
    refused("map", &[("/by_name/a~1b", "9007199254740992")]);
    refused("tagged", &[("/pick/n", "9007199254740992")]);
    let untagged = refused("untagged", &[("/id", "9007199254740992")]);
    assert!(
        untagged["refused"]["message"].as_str().is_some_and(
            |m| m.starts_with("integer_send failed (validation): invalid input: /id: ")
        ),
        "{untagged}"
    );
    let extremes = case("extremes 2^64");
    assert_eq!(extremes["sent"], false, "{extremes}");
    assert_eq!(extremes["refused"]["tool"], "integer_extremes");
    let paths: Vec<&str> = extremes["refused"]["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter_map(|p| p["path"].as_str())
        .collect();
    assert_eq!(paths, ["/u64", "/maybe_u64", "/list_maybe_u64/0"]);
}
