//! JSON literals: any JSON value as a TypeScript expression, keys by the key rule, strings as
//! `strings.rs` writes them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::keys::write_literal_key;
use super::strings::write_string;

/// Objects and arrays shorter than this (on one line) stay on one line.
const INLINE_WIDTH: usize = 60;

/// JSON text as a TypeScript expression, indented by two spaces per level (relative to the
/// first line, which the caller places). Keys keep their order; `__proto__` is a computed key.
pub(crate) fn json_literal(json: &str) -> Result<String, serde_json::Error> {
    let value: Json<'_> = serde_json::from_str(json)?;
    let mut out = String::with_capacity(json.len() + json.len() / 2);
    write_value(&mut out, &value, 0);
    Ok(out)
}

/// A JSON value that borrows its strings from the text it was read from: reading a tool's
/// schema back allocates only its arrays and objects (and strings written with escapes), not
/// a string per key and value as `serde_json::Value` does. With thousands of tools, those
/// short-lived allocations were most of the allocator's work.
enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

impl<'de> serde::Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, value: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(value))
    }
    fn visit_u64<E>(self, value: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(value.into()))
    }
    fn visit_i64<E>(self, value: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(value.into()))
    }
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json<'de>, E> {
        Number::from_f64(value)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(value)))
    }
    fn visit_str<E>(self, value: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(value.to_owned())))
    }
    fn visit_string<E>(self, value: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(value)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(key) = map.next_key_seed(KeySeed)? {
            entries.push((key, map.next_value()?));
        }
        Ok(Json::Object(entries))
    }
}

/// An object's key, borrowed when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(value))
    }
    fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(value.to_owned()))
    }
    fn visit_string<E>(self, value: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(value))
    }
}

fn write_value(out: &mut String, value: &Json<'_>, depth: usize) {
    use std::fmt::Write as _;
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Json::String(s) => write_string(out, s),
        Json::Array(items) if items.is_empty() => out.push_str("[]"),
        Json::Object(entries) if entries.is_empty() => out.push_str("{}"),
        Json::Array(items) => {
            if write_inline(out, value) {
                return;
            }
            out.push_str("[\n");
            for item in items {
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
                out.push_str(",\n");
            }
            indent(out, depth);
            out.push(']');
        }
        Json::Object(entries) => {
            if write_inline(out, value) {
                return;
            }
            out.push_str("{\n");
            for (key, item) in entries {
                indent(out, depth + 1);
                write_literal_key(out, key);
                out.push_str(": ");
                write_value(out, item, depth + 1);
                out.push_str(",\n");
            }
            indent(out, depth);
            out.push('}');
        }
    }
}

/// Writes the one-line form of a small array or object of scalars, if it is short enough;
/// answers whether it did (otherwise `out` is as it was).
fn write_inline(out: &mut String, value: &Json<'_>) -> bool {
    let scalar = |v: &Json<'_>| !matches!(v, Json::Array(_) | Json::Object(_));
    let start = out.len();
    match value {
        Json::Array(items) if items.iter().all(scalar) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item, 0);
            }
            out.push(']');
        }
        Json::Object(entries) if entries.iter().all(|(_, v)| scalar(v)) => {
            out.push_str("{ ");
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_literal_key(out, key);
                out.push_str(": ");
                write_value(out, item, 0);
            }
            out.push_str(" }");
        }
        _ => return false,
    }
    if out.len() - start <= INLINE_WIDTH {
        true
    } else {
        out.truncate(start);
        false
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn literal(value: &Value) -> String {
        json_literal(&value.to_string()).expect("JSON")
    }

    #[test]
    fn values() {
        assert_eq!(literal(&json!({"type": "string"})), r#"{ type: "string" }"#);
        assert_eq!(
            literal(&json!({"a": [1, 2], "__proto__": {"b": null}})),
            "{\n  a: [1, 2],\n  [\"__proto__\"]: { b: null },\n}"
        );
        assert_eq!(
            literal(&json!({"with-dash": 1.5})),
            r#"{ "with-dash": 1.5 }"#
        );
    }

    #[test]
    fn keys_are_written_by_the_key_rule() {
        let value = json!({
            "type": 1, "with-dash": 2, "__proto__": 3, "a\"b": 4, "é": 5, "$ref": 6, "1x": 7,
            "class": 8, "": 9
        });
        assert_eq!(
            literal(&value),
            "{\n  type: 1,\n  \"with-dash\": 2,\n  [\"__proto__\"]: 3,\n  \"a\\\"b\": 4,\n  \"é\": 5,\n  \
             $ref: 6,\n  \"1x\": 7,\n  class: 8,\n  \"\": 9,\n}"
        );
    }

    #[test]
    fn escaped_and_plain_text_read_back_alike() {
        // Strings with escapes are read into owned text, the rest borrowed: the same literal.
        let value = json!({
            "plain": "text",
            "quoted \"key\"": "line\nbreak </script>",
            "list": [1, -2, 3.5, 1e300, true, null, "x"],
            "nested": {"deeper": {"deepest": [{"a": "b"}], "u": "\u{2028}"}},
            "long": ["a long enough string to push the line past its width", "and another one"]
        });
        let text = literal(&value);
        assert!(
            text.contains("\"quoted \\\"key\\\"\": \"line\\nbreak <\\/script>\""),
            "{text}"
        );
        assert!(
            text.contains("list: [1, -2, 3.5, 1e+300, true, null, \"x\"]"),
            "{text}"
        );
        assert!(text.contains("u: \"\\u2028\""), "{text}");
        assert!(text.contains("long: [\n"), "{text}");
        assert!(json_literal("{").is_err());
    }
}
