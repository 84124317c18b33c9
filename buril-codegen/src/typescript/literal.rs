//! String and JSON literals: any text, any JSON value, written so that it cannot end the string
//! early, inject code, or end an HTML `<script>` element the file might be inlined into.

use serde_json::Value;

use super::names::literal_key;

/// Objects and arrays shorter than this (on one line) stay on one line.
const INLINE_WIDTH: usize = 60;

/// A double-quoted string literal with `JSON.stringify`'s escaping, plus `</` as `<\/`, `<!--`
/// as `\u003c!--`, and U+2028/U+2029 as `\u2028`/`\u2029`. The value is unchanged.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    out
}

/// [`string_literal`], written at the end of `out`.
fn write_string(out: &mut String, text: &str) {
    use std::fmt::Write as _;
    out.push('"');
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("</") {
            out.push_str("<\\/");
            rest = &rest[2..];
            continue;
        }
        if rest.starts_with("<!--") {
            out.push_str("\\u003c!--");
            rest = &rest[4..];
            continue;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out.push('"');
}

/// A JSON value as a TypeScript expression, indented by two spaces per level (relative to the
/// first line, which the caller places). Keys keep their order; `__proto__` is a computed key.
pub(crate) fn json_literal(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out
}

fn write_value(out: &mut String, value: &Value, depth: usize) {
    use std::fmt::Write as _;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Array(items) => {
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
        Value::Object(map) => {
            if write_inline(out, value) {
                return;
            }
            out.push_str("{\n");
            for (key, item) in map {
                indent(out, depth + 1);
                out.push_str(&literal_key(key));
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
fn write_inline(out: &mut String, value: &Value) -> bool {
    let scalar = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
    let start = out.len();
    match value {
        Value::Array(items) if items.iter().all(scalar) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item, 0);
            }
            out.push(']');
        }
        Value::Object(map) if map.values().all(scalar) => {
            out.push_str("{ ");
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&literal_key(key));
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
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_cannot_escape() {
        assert_eq!(string_literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string_literal("</script>"), r#""<\/script>""#);
        assert_eq!(string_literal("<!-- x"), r#""\u003c!-- x""#);
        assert_eq!(string_literal("\u{2028}\u{2029}"), r#""\u2028\u2029""#);
        assert_eq!(string_literal("\u{0}\n"), r#""\u0000\n""#);
        assert_eq!(string_literal("${x} `t`"), r#""${x} `t`""#);
        assert_eq!(string_literal("é✓"), "\"é✓\"");
    }

    #[test]
    fn values() {
        assert_eq!(
            json_literal(&json!({"type": "string"})),
            r#"{ type: "string" }"#
        );
        assert_eq!(
            json_literal(&json!({"a": [1, 2], "__proto__": {"b": null}})),
            "{\n  a: [1, 2],\n  [\"__proto__\"]: { b: null },\n}"
        );
        assert_eq!(
            json_literal(&json!({"with-dash": 1.5})),
            r#"{ "with-dash": 1.5 }"#
        );
    }
}
