//! The keywords normalisation reads from one schema object.

use serde_json::{Map, Number, Value};

/// Keys that describe a schema without constraining its shape.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "format",
    "$defs",
];

/// Keywords no writer can express, in the order they are reported when a schema has several.
pub(super) const UNSUPPORTED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "patternProperties",
];

/// The keywords normalisation reads from one schema object, found in one pass over its keys:
/// a schema has a handful of keys, and looking each keyword up would hash it, some twenty times
/// per property.
#[derive(Clone, Copy)]
pub(super) struct Keywords<'v> {
    /// `$ref`, when a string.
    pub(super) reference: Option<&'v str>,
    /// `allOf`, when an array.
    pub(super) all_of: Option<&'v Vec<Value>>,
    /// The index in [`UNSUPPORTED`] of the first of them present.
    pub(super) unsupported: Option<usize>,
    /// `type`: a string or an array of them.
    pub(super) ty: Option<&'v Value>,
    /// `oneOf` or else `anyOf`, when an array, with the keyword's name.
    pub(super) union: Option<(&'static str, &'v Vec<Value>)>,
    /// `enum`, when an array.
    pub(super) enumeration: Option<&'v Vec<Value>>,
    /// `const`.
    pub(super) constant: Option<&'v Value>,
    /// `format`, when a string.
    pub(super) format: Option<&'v str>,
    /// `minimum`, when a number.
    pub(super) minimum: Option<&'v Number>,
    /// `maximum`, when a number.
    pub(super) maximum: Option<&'v Number>,
    /// `exclusiveMinimum`, when a number.
    pub(super) exclusive_minimum: Option<&'v Number>,
    /// `exclusiveMaximum`, when a number.
    pub(super) exclusive_maximum: Option<&'v Number>,
    /// `items`.
    pub(super) items: Option<&'v Value>,
    /// Whether `prefixItems` is present.
    pub(super) prefix_items: bool,
    /// `properties`, when an object.
    pub(super) properties: Option<&'v Map<String, Value>>,
    /// `additionalProperties`.
    pub(super) additional: Option<&'v Value>,
    /// Whether every key is one of [`ANNOTATIONS`].
    pub(super) only_annotations: bool,
}

impl<'v> Keywords<'v> {
    /// The keywords of `object`.
    pub(super) fn of(object: &'v Map<String, Value>) -> Self {
        let mut found = Keywords {
            reference: None,
            all_of: None,
            unsupported: None,
            ty: None,
            union: None,
            enumeration: None,
            constant: None,
            format: None,
            minimum: None,
            maximum: None,
            exclusive_minimum: None,
            exclusive_maximum: None,
            items: None,
            prefix_items: false,
            properties: None,
            additional: None,
            only_annotations: true,
        };
        let mut any_of = None;
        for (key, value) in object {
            let key = key.as_str();
            if !ANNOTATIONS.contains(&key) {
                found.only_annotations = false;
            }
            match key {
                "$ref" => found.reference = value.as_str(),
                "allOf" => found.all_of = value.as_array(),
                "type" => found.ty = Some(value),
                "oneOf" => {
                    found.union = value.as_array().map(|variants| ("oneOf", variants));
                }
                "anyOf" => any_of = value.as_array().map(|variants| ("anyOf", variants)),
                "enum" => found.enumeration = value.as_array(),
                "const" => found.constant = Some(value),
                "format" => found.format = value.as_str(),
                "minimum" => found.minimum = number(value),
                "maximum" => found.maximum = number(value),
                "exclusiveMinimum" => found.exclusive_minimum = number(value),
                "exclusiveMaximum" => found.exclusive_maximum = number(value),
                "items" => found.items = Some(value),
                "prefixItems" => found.prefix_items = true,
                "properties" => found.properties = value.as_object(),
                "additionalProperties" => found.additional = Some(value),
                _ => {
                    if let Some(rank) = UNSUPPORTED.iter().position(|k| *k == key) {
                        found.unsupported =
                            Some(found.unsupported.map_or(rank, |first| first.min(rank)));
                    }
                }
            }
        }
        found.union = found.union.or(any_of);
        found
    }

    /// The smallest and largest integers the bounds admit (`None`: no bound on that side),
    /// exactly: an integer bound is read as the `i64` or `u64` it is, a fractional one rounded
    /// inwards, and an exclusive bound moved one integer inwards. Where both an inclusive and an
    /// exclusive bound are given, the tighter counts.
    pub(super) fn integer_bounds(&self) -> (Option<i128>, Option<i128>) {
        let tighter = |a: Option<i128>, b: Option<i128>, pick: fn(i128, i128) -> i128| match (a, b)
        {
            (Some(a), Some(b)) => Some(pick(a, b)),
            (a, b) => a.or(b),
        };
        let min = tighter(
            self.minimum.map(|n| integer_at_least(n, false)),
            self.exclusive_minimum.map(|n| integer_at_least(n, true)),
            i128::max,
        );
        let max = tighter(
            self.maximum.map(|n| integer_at_most(n, false)),
            self.exclusive_maximum.map(|n| integer_at_most(n, true)),
            i128::min,
        );
        (min, max)
    }
}

/// A value that is a JSON number.
fn number(value: &Value) -> Option<&Number> {
    match value {
        Value::Number(n) => Some(n),
        _ => None,
    }
}

/// The number as an exact integer, when it is one (`i64` or `u64`).
fn exact(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// The smallest integer `>= n` (`> n` when `exclusive`). Floats beyond `i128` saturate, which
/// is beyond every fixed-size kind all the same.
fn integer_at_least(n: &Number, exclusive: bool) -> i128 {
    match (exact(n), n.as_f64()) {
        (Some(i), _) => i.saturating_add(i128::from(exclusive)),
        (None, Some(f)) if exclusive => (f.floor() as i128).saturating_add(1),
        (None, Some(f)) => f.ceil() as i128,
        (None, None) => i128::MIN,
    }
}

/// The largest integer `<= n` (`< n` when `exclusive`).
fn integer_at_most(n: &Number, exclusive: bool) -> i128 {
    match (exact(n), n.as_f64()) {
        (Some(i), _) => i.saturating_sub(i128::from(exclusive)),
        (None, Some(f)) if exclusive => (f.ceil() as i128).saturating_sub(1),
        (None, Some(f)) => f.floor() as i128,
        (None, None) => i128::MAX,
    }
}
