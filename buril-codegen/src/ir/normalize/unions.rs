//! Reading unions: `T | null`, string enums (`enum`, or `oneOf` of documented constants),
//! tagged unions and untagged unions.

use serde_json::{Map, Value};

use super::error::NormalizeError;
use super::reader::{SchemaReader, description, nullable_of};
use super::schema_pointer::SchemaPointer;
use crate::ir::names::pascal_case;
use crate::ir::types::{
    EnumDef, EnumVariant, TaggedUnionDef, TaggedVariant, TypeDef, TypeRef, UntaggedDef,
};

impl SchemaReader<'_> {
    /// The type of a `oneOf` or `anyOf` (`keyword`) of `variants`.
    pub(super) fn union(
        &mut self,
        object: &Map<String, Value>,
        variants: &[Value],
        keyword: &str,
        hint: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        let resolved: Vec<&Value> = variants.iter().map(|v| self.resolve(v)).collect();
        // `T | null`.
        let non_null: Vec<(usize, &&Value)> = resolved
            .iter()
            .enumerate()
            .filter(|(_, v)| v.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if non_null.len() < resolved.len() {
            let inner = match non_null.as_slice() {
                [] => TypeRef::Json,
                [(i, _)] => self.type_ref(&variants[*i], hint, &pointer.join(keyword).index(*i))?,
                _ => {
                    let rest: Vec<Value> =
                        non_null.iter().map(|(i, _)| variants[*i].clone()).collect();
                    let mut without_null = object.clone();
                    without_null.insert(keyword.into(), Value::Array(rest));
                    self.type_ref(&Value::Object(without_null), hint, pointer)?
                }
            };
            return Ok(nullable_of(inner));
        }
        // A string enum written as `oneOf` of documented constants.
        let constants: Option<Vec<(&Value, Option<String>)>> = resolved
            .iter()
            .map(|v| {
                let value = v.get("const").or_else(|| {
                    v.get("enum")
                        .and_then(Value::as_array)
                        .filter(|e| e.len() == 1)
                        .map(|e| &e[0])
                })?;
                value.is_string().then(|| (value, description(v)))
            })
            .collect();
        if let Some(constants) = constants {
            return self.string_enum(object, constants, hint, pointer);
        }
        if let Some(tag) = common_tag(&resolved) {
            return self.tagged_union(object, &resolved, &tag, hint, pointer, keyword);
        }
        let mut alternatives = Vec::new();
        for (i, variant) in variants.iter().enumerate() {
            let name = format!("{hint}Variant{i}");
            alternatives.push(self.type_ref(variant, &name, &pointer.join(keyword).index(i))?);
        }
        let def = TypeDef::Untagged(UntaggedDef {
            name: hint.to_owned(),
            description: object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            variants: alternatives,
        });
        self.types
            .insert(def, &format!("`{}` at {pointer}", self.tool))?;
        Ok(TypeRef::Named(hint.to_owned()))
    }

    /// A union of objects told apart by the property `tag`.
    fn tagged_union(
        &mut self,
        object: &Map<String, Value>,
        variants: &[&Value],
        tag: &str,
        hint: &str,
        pointer: &SchemaPointer<'_>,
        keyword: &str,
    ) -> Result<TypeRef, NormalizeError> {
        let mut out = Vec::new();
        for (i, variant) in variants.iter().enumerate() {
            let Some(fields_object) = variant.as_object() else {
                return Err(self.unsupported(pointer, "a tagged variant that is not an object"));
            };
            let tag_value = tag_value(variant, tag).unwrap_or_default().to_owned();
            let name = format!("{hint}{}", pascal_case(&tag_value));
            let fields = self
                .fields(&name, fields_object, &pointer.join(keyword).index(i))?
                .into_iter()
                .filter(|f| f.wire != tag)
                .collect();
            out.push(TaggedVariant {
                tag_value,
                name,
                description: description(variant),
                fields,
            });
        }
        let def = TypeDef::TaggedUnion(TaggedUnionDef {
            name: hint.to_owned(),
            description: object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            tag: tag.to_owned(),
            variants: out,
        });
        self.types
            .insert(def, &format!("`{}` at {pointer}", self.tool))?;
        Ok(TypeRef::Named(hint.to_owned()))
    }

    /// A string enum of `values` (with their descriptions); a `null` among them makes it
    /// nullable.
    pub(super) fn string_enum(
        &mut self,
        object: &Map<String, Value>,
        values: Vec<(&Value, Option<String>)>,
        hint: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        let mut variants = Vec::new();
        let mut nullable = false;
        for (value, description) in values {
            match value {
                Value::String(wire) => variants.push(EnumVariant {
                    wire: wire.clone(),
                    description,
                }),
                Value::Null => nullable = true,
                _ => {
                    return Err(self.unsupported(pointer, "an `enum` of values other than strings"));
                }
            }
        }
        let def = TypeDef::Enum(EnumDef {
            name: hint.to_owned(),
            description: object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            variants,
        });
        self.types
            .insert(def, &format!("`{}` at {pointer}", self.tool))?;
        let named = TypeRef::Named(hint.to_owned());
        Ok(if nullable { nullable_of(named) } else { named })
    }
}

/// The tag's string value in one variant: `const` or a one-value `enum`.
fn tag_value<'v>(variant: &'v Value, tag: &str) -> Option<&'v str> {
    let property = variant.get("properties")?.get(tag)?;
    property
        .get("const")
        .or_else(|| {
            property
                .get("enum")
                .and_then(Value::as_array)
                .filter(|e| e.len() == 1)
                .map(|e| &e[0])
        })
        .and_then(Value::as_str)
}

/// A property every variant has, required, with a distinct constant string value.
fn common_tag(variants: &[&Value]) -> Option<String> {
    let first = variants.first()?;
    if variants.len() < 2 {
        return None;
    }
    let candidates = first.get("properties")?.as_object()?.keys();
    candidates
        .filter(|tag| {
            let mut seen = Vec::new();
            variants.iter().all(|variant| {
                let required = variant
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|n| n == tag.as_str()));
                match tag_value(variant, tag) {
                    Some(value) if required && !seen.contains(&value) => {
                        seen.push(value);
                        true
                    }
                    _ => false,
                }
            })
        })
        .min()
        .cloned()
}
