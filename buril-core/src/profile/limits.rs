//! The providers' documented limits on tool names and schema size, and the checks against them.
//!
//! | limit | value | source |
//! | --- | --- | --- |
//! | MCP tool name | 1–128 of `[A-Za-z0-9_.-]` | MCP specification 2025-11-25, "Tool names" |
//! | OpenAI function name | `^[a-zA-Z0-9_-]{1,64}$` | OpenAI API reference, function tools |
//! | Anthropic tool name | `^[a-zA-Z0-9_-]{1,64}$` | Anthropic Messages API reference, `tools[].name` |
//! | Gemini function name | a letter or `_` first, then `[A-Za-z0-9_.:-]`, at most 64 | Gemini / Vertex AI `FunctionDeclaration.name`; current Gemini API docs allow 128, the older limit of 64 is kept so one definition works everywhere |
//! | Gemini parameter name | a letter or `_` first, then `[A-Za-z0-9_]`, at most 64 | Vertex AI `FunctionDeclaration.parameters` |
//! | OpenAI strict schemas | 5000 object properties, 10 levels of nesting, 1000 enum values, 120,000 characters of property names, definition names, enum and const values; one enum of more than 250 string values at most 15,000 characters | OpenAI Structured Outputs guide, "Supported schemas" (these bind strict mode only) |
//! | Gemini schemas | 10 levels of nesting, 1000 enum values | Gemini rejects deep and large schemas ("exceeds the maximum allowed nesting depth", "too many states") without documenting numbers: OpenAI's documented values are used as a guard |
//!
//! Nesting counts object and array schemas on a path from the root, following `$ref`s (a
//! `$ref` back into a schema already on the path, a recursive type, is not followed again).

use serde_json::Value;

use super::error::Issue;
use super::walk::{INPUT, Object, child, is_array, is_object, resolve, subschemas};

/// A provider's rule for names (of tools, or of parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NameRule {
    /// The rule, as the provider writes it.
    pub pattern: &'static str,
    /// At most this many characters.
    pub max_len: usize,
    /// Punctuation allowed besides ASCII letters and digits.
    pub punctuation: &'static str,
    /// The first character must be an ASCII letter or `_`.
    pub letter_first: bool,
}

impl NameRule {
    /// `Ok` when `name` follows the rule; otherwise what is wrong with it.
    pub fn check(&self, name: &str) -> Result<(), String> {
        let length = name.chars().count();
        if length == 0 || length > self.max_len {
            return Err(format!(
                "`{name}` has {length} characters, not 1 to {}: names must match `{}`",
                self.max_len, self.pattern
            ));
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || self.punctuation.contains(c);
        if let Some(bad) = name.chars().find(|c| !allowed(*c)) {
            return Err(format!(
                "`{name}` contains `{bad}`: names must match `{}`",
                self.pattern
            ));
        }
        let first_ok = |c: char| c.is_ascii_alphabetic() || c == '_';
        if self.letter_first && !name.chars().next().is_some_and(first_ok) {
            return Err(format!(
                "`{name}` must start with a letter or `_`: names must match `{}`",
                self.pattern
            ));
        }
        Ok(())
    }
}

/// MCP tool names.
pub const MCP_NAME: NameRule = NameRule {
    pattern: "^[A-Za-z0-9_.-]{1,128}$",
    max_len: 128,
    punctuation: "_.-",
    letter_first: false,
};

/// OpenAI function names.
pub const OPENAI_NAME: NameRule = NameRule {
    pattern: "^[a-zA-Z0-9_-]{1,64}$",
    max_len: 64,
    punctuation: "_-",
    letter_first: false,
};

/// Anthropic tool names.
pub const ANTHROPIC_NAME: NameRule = NameRule {
    pattern: "^[a-zA-Z0-9_-]{1,64}$",
    max_len: 64,
    punctuation: "_-",
    letter_first: false,
};

/// Gemini function names (the older, stricter length of 64).
pub const GEMINI_NAME: NameRule = NameRule {
    pattern: "^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$",
    max_len: 64,
    punctuation: "_.:-",
    letter_first: true,
};

/// Gemini parameter names: the input schema's top-level property names.
pub const GEMINI_PARAMETER: NameRule = NameRule {
    pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$",
    max_len: 64,
    punctuation: "_",
    letter_first: true,
};

/// A long enum: more than `values` string values may total at most `chars` characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LongEnum {
    /// Enums with more values than this are checked.
    pub values: usize,
    /// The most characters their values may total.
    pub chars: usize,
}

/// Limits on the size of one schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaLimits {
    /// The most object properties, counted over the whole schema.
    pub max_properties: Option<usize>,
    /// The most levels of nesting.
    pub max_depth: usize,
    /// The most enum values, counted over the whole schema.
    pub max_enum_values: usize,
    /// The most characters of property names, definition names, enum and const values.
    pub max_chars: Option<usize>,
    /// The limit on one long enum.
    pub long_enum: Option<LongEnum>,
}

/// OpenAI's limits for strict schemas.
pub const OPENAI_STRICT: SchemaLimits = SchemaLimits {
    max_properties: Some(5000),
    max_depth: 10,
    max_enum_values: 1000,
    max_chars: Some(120_000),
    long_enum: Some(LongEnum {
        values: 250,
        chars: 15_000,
    }),
};

/// The limits used for Gemini (OpenAI's nesting and enum values, as a guard).
pub const GEMINI: SchemaLimits = SchemaLimits {
    max_properties: None,
    max_depth: 10,
    max_enum_values: 1000,
    max_chars: None,
    long_enum: None,
};

impl SchemaLimits {
    /// Checks a tool's input schema: nesting in the `original` (so that pointers lead into it),
    /// sizes in the `converted` schema the provider receives (`original` itself, or the
    /// profile's rewrite of it).
    pub(crate) fn check(&self, original: &Value, converted: &Value) -> Result<(), Issue> {
        let mut stack = vec!["#".to_owned()];
        if let Some(pointer) = too_deep(original, original, INPUT, 0, self.max_depth, &mut stack) {
            return Err(Issue::new(
                pointer,
                format!(
                    "the schema nests more than {} levels of objects and arrays",
                    self.max_depth
                ),
            ));
        }
        let mut counts = Counts::default();
        counts.add(converted, INPUT, self.long_enum)?;
        if let Some(max) = self.max_properties.filter(|max| counts.properties > *max) {
            return Err(Issue::new(
                INPUT,
                format!(
                    "the schema has {} properties, more than {max}",
                    counts.properties
                ),
            ));
        }
        if counts.enum_values > self.max_enum_values {
            return Err(Issue::new(
                INPUT,
                format!(
                    "the schema has {} enum values, more than {}",
                    counts.enum_values, self.max_enum_values
                ),
            ));
        }
        if let Some(max) = self.max_chars.filter(|max| counts.chars > *max) {
            return Err(Issue::new(
                INPUT,
                format!(
                    "the schema's property names, definition names and enum values total {} \
                     characters, more than {max}",
                    counts.chars
                ),
            ));
        }
        Ok(())
    }
}

/// The first place where nesting passes `limit` levels, if any.
fn too_deep(
    schema: &Value,
    root: &Value,
    pointer: &str,
    level: usize,
    limit: usize,
    stack: &mut Vec<String>,
) -> Option<String> {
    let object = schema.as_object()?;
    let level = level + usize::from(is_object(object) || is_array(object));
    if level > limit {
        return Some(pointer.to_owned());
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str)
        && !stack.iter().any(|r| r == reference)
        && let Some((target, at)) = resolve(root, reference)
    {
        stack.push(reference.to_owned());
        let found = too_deep(target, root, &at, level, limit, stack);
        stack.pop();
        if found.is_some() {
            return found;
        }
    }
    subschemas(schema, pointer)
        .into_iter()
        .filter(|(_, at)| !at.starts_with(&child(pointer, "$defs")))
        .find_map(|(value, at)| too_deep(value, root, &at, level, limit, stack))
}

/// Sizes counted over a whole schema document.
#[derive(Debug, Default)]
struct Counts {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

impl Counts {
    fn add(&mut self, schema: &Value, pointer: &str, long: Option<LongEnum>) -> Result<(), Issue> {
        if let Some(object) = schema.as_object() {
            self.add_names(object);
            if let Some(values) = object.get("enum").and_then(Value::as_array) {
                self.enum_values += values.len();
                let chars: usize = values.iter().map(value_chars).sum();
                self.chars += chars;
                if let Some(long) = long.filter(|l| values.len() > l.values && chars > l.chars) {
                    return Err(Issue::new(
                        child(pointer, "enum"),
                        format!(
                            "an enum of {} values totals {chars} characters, more than {} \
                             (allowed for enums of more than {} values)",
                            values.len(),
                            long.chars,
                            long.values
                        ),
                    ));
                }
            }
            if let Some(value) = object.get("const") {
                self.chars += value_chars(value);
            }
        }
        for (value, at) in subschemas(schema, pointer) {
            self.add(value, &at, long)?;
        }
        Ok(())
    }

    fn add_names(&mut self, object: &Object) {
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            self.properties += properties.len();
            self.chars += properties.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        if let Some(defs) = object.get("$defs").and_then(Value::as_object) {
            self.chars += defs.keys().map(|k| k.chars().count()).sum::<usize>();
        }
    }
}

/// The characters a value counts for: a string's own, anything else its JSON text's.
fn value_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}
