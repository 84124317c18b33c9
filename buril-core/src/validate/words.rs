//! Values, types and ranges in the words of a problem: what the general validator and the
//! shape of an object of scalars both say, so that both say it the same way.

use std::fmt::Write as _;

use serde_json::Value;

/// At most this many problems are listed; the rest are counted.
pub const MAX_PROBLEMS: usize = 32;

/// JSON types in words, as a type error says them: `a string`, `an integer or null`.
pub(super) fn type_words(names: &[&str]) -> String {
    let words: Vec<String> = names.iter().map(|n| article(n)).collect();
    match words.as_slice() {
        [] => "a value".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn article(type_name: &str) -> String {
    match type_name {
        "null" => "null".to_owned(),
        "array" | "object" | "integer" => format!("an {type_name}"),
        other => format!("a {other}"),
    }
}

/// The numbers a schema allows, in words: `an integer from 0 to 4294967295`, `a number greater
/// than 0`.
pub(super) fn range_words(schema: &Value) -> String {
    let what = match schema.get("type") {
        Some(Value::String(t)) if t == "integer" => "an integer",
        Some(Value::Array(types)) if types.iter().any(|t| t == "integer") => "an integer",
        _ => "a number",
    };
    let bound = |key: &str| {
        schema
            .get(key)
            .filter(|v| v.is_number())
            .map(Value::to_string)
    };
    let low = bound("minimum")
        .map(|n| (n, false))
        .or_else(|| bound("exclusiveMinimum").map(|n| (n, true)));
    let high = bound("maximum")
        .map(|n| (n, false))
        .or_else(|| bound("exclusiveMaximum").map(|n| (n, true)));
    match (low, high) {
        (Some((low, false)), Some((high, false))) => format!("{what} from {low} to {high}"),
        (low, high) => {
            let mut parts = Vec::new();
            match low {
                Some((n, false)) => parts.push(format!("at least {n}")),
                Some((n, true)) => parts.push(format!("greater than {n}")),
                None => {}
            }
            match high {
                Some((n, false)) => parts.push(format!("at most {n}")),
                Some((n, true)) => parts.push(format!("less than {n}")),
                None => {}
            }
            if parts.is_empty() {
                what.to_owned()
            } else {
                format!("{what} {}", parts.join(" and "))
            }
        }
    }
}

/// A short description of a JSON value, for messages: `the string "abc"`, `the number 3`.
pub(super) fn describe(value: &Value) -> String {
    let mut text = String::new();
    push_described(&mut text, value);
    text
}

/// Appends [`describe`]'s description of `value` to `out`.
pub(super) fn push_described(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            out.push_str("the number ");
            if let Some(n) = n.as_u64() {
                push_decimal(out, n);
            } else if let Some(n) = n.as_i64() {
                out.push('-');
                push_decimal(out, n.unsigned_abs());
            } else {
                // Writing to a `String` cannot fail.
                let _ = write!(out, "{n}");
            }
        }
        Value::String(s) => {
            out.push_str("the string ");
            push_compact_string(out, s);
        }
        Value::Array(items) => {
            let _ = write!(out, "an array of {} items", items.len());
        }
        Value::Object(_) => out.push_str("an object"),
    }
}

/// Appends the decimal digits of `n`, as its `Display` writes them, without the formatting
/// machinery (this is on the path of every refused call).
pub(crate) fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&digit| char::from(digit)));
}

/// A JSON rendering cut to 60 characters.
pub(super) fn compact(value: &Value) -> String {
    let mut out = String::new();
    push_cut(&mut out, &value.to_string());
    out
}

/// Appends [`compact`]'s rendering of the string `s` to `out`, without copying `s` into a
/// `Value` first.
fn push_compact_string(out: &mut String, s: &str) {
    // Nothing to escape and short enough: the rendering is `s` quoted.
    if s.len() + 2 <= 60 && !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        push_cut(out, &Value::from(s).to_string());
    }
}

/// Appends `text`, or its first 57 characters and `...` when it has more than 60.
fn push_cut(out: &mut String, text: &str) {
    match text.char_indices().nth(57) {
        Some((at, _)) if text.char_indices().nth(60).is_some() => {
            out.push_str(&text[..at]);
            out.push_str("...");
        }
        _ => out.push_str(text),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn previews_a_value_as_its_json_cut_to_sixty_characters() {
        // The rendering as first written: the value's JSON, cut to 57 characters and `...`
        // past 60.
        fn reference(value: &Value) -> String {
            let text = value.to_string();
            let text = if text.chars().count() <= 60 {
                text
            } else {
                let cut: String = text.chars().take(57).collect();
                format!("{cut}...")
            };
            match value {
                Value::String(_) => format!("the string {text}"),
                Value::Number(_) => format!("the number {text}"),
                Value::Array(items) => format!("an array of {} items", items.len()),
                Value::Object(_) => "an object".to_owned(),
                Value::Null | Value::Bool(_) => text,
            }
        }
        let mut strings: Vec<String> = ["", "a", "\"", "\\", "\n", "\u{1}", "\u{7f}", "é", "日本"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for len in 50..66 {
            for fill in ["x", "é", "\"", "\u{1f}", "日"] {
                strings.push(fill.repeat(len));
                strings.push(format!("{}\n", "y".repeat(len)));
            }
        }
        let mut values: Vec<Value> = strings.into_iter().map(Value::String).collect();
        values.extend([
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-7),
            json!(1.5),
            json!(1e300),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(-1),
            json!(10),
            json!(1_000_000),
            json!(-0.0),
            json!([1, 2]),
            json!({"a": 1}),
        ]);
        for value in &values {
            assert_eq!(describe(value), reference(value), "{value}");
        }
        let long = json!("z".repeat(100));
        assert_eq!(compact(&long), reference(&long)["the string ".len()..]);
    }
}
