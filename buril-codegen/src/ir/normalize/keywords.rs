//! The keywords normalisation reads from one schema object.

use serde_json::{Map, Value};

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
}
