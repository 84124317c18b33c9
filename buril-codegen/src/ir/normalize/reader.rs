//! Reading one schema into IR types: structs, their fields, scalars, arrays, maps and
//! references. Unions and enums are read in `unions.rs`.

use std::borrow::Cow;

use buril_core::pointer;
use serde_json::{Map, Value};

use super::error::NormalizeError;
use super::keywords::{Keywords, UNSUPPORTED};
use super::schema_pointer::SchemaPointer;
use super::type_table::TypeTable;
use crate::ir::names::{pascal_case, push_pascal_case};
use crate::ir::types::{Field, StructDef, TypeDef, TypeRef};

/// Reads the schemas of one side (input or output) of one tool.
pub(super) struct SchemaReader<'a> {
    /// The tool's wire name, for errors.
    pub(super) tool: &'a str,
    /// The name of the root struct, which `"$ref": "#"` refers to.
    pub(super) root_name: &'a str,
    /// The root schema.
    pub(super) root: &'a Value,
    /// Its `$defs`.
    pub(super) defs: Option<&'a Map<String, Value>>,
    /// The named types of every tool so far.
    pub(super) types: &'a mut TypeTable,
    /// When given, what no writer can express is read as any JSON value, and why is noted
    /// here, instead of failing (schemas from other servers than buril's).
    pub(super) notes: Option<&'a mut Vec<String>>,
}

impl<'a> SchemaReader<'a> {
    /// The error for what is not supported at `pointer`.
    pub(super) fn unsupported(
        &self,
        pointer: &SchemaPointer<'_>,
        reason: impl Into<String>,
    ) -> NormalizeError {
        NormalizeError::Unsupported {
            tool: self.tool.to_owned(),
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }

    /// A struct from an object schema (the input or output root, or a named definition).
    pub(super) fn struct_def(
        &mut self,
        name: &str,
        schema: &Value,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeDef, NormalizeError> {
        let object = schema
            .as_object()
            .ok_or_else(|| self.unsupported(pointer, "expected an object schema"))?;
        if object.get("type").and_then(Value::as_str) != Some("object") {
            return Err(self.unsupported(pointer, "the root must be `type: \"object\"`"));
        }
        let fields = self.fields(name, object, pointer)?;
        Ok(TypeDef::Struct(StructDef {
            name: name.to_owned(),
            description: description(schema),
            fields,
        }))
    }

    /// The fields of an object schema; their types are named after `owner` if they need names.
    pub(super) fn fields(
        &mut self,
        owner: &str,
        object: &Map<String, Value>,
        pointer: &SchemaPointer<'_>,
    ) -> Result<Vec<Field>, NormalizeError> {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            fields.reserve_exact(properties.len());
            // A property's type is named `{Owner}{Property}` if it needs a name: one buffer.
            let mut hint = String::with_capacity(owner.len() + 16);
            hint.push_str(owner);
            for (wire, property) in properties {
                hint.truncate(owner.len());
                push_pascal_case(&mut hint, wire);
                let ty = self.type_ref(property, &hint, &pointer.join("properties").join(wire))?;
                fields.push(Field {
                    wire: wire.clone(),
                    ty,
                    required: required.contains(&wire.as_str()),
                    description: description(property),
                });
            }
        }
        Ok(fields)
    }

    /// The type of a schema; `hint` names it if it needs a name of its own. When the reader
    /// keeps notes, a construct no writer can express is any JSON value, noted.
    pub(super) fn type_ref(
        &mut self,
        schema: &Value,
        hint: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        match self.exact_type_ref(schema, hint, pointer) {
            Err(error @ NormalizeError::Unsupported { .. }) if self.notes.is_some() => {
                if let Some(notes) = self.notes.as_deref_mut() {
                    notes.push(format!("{error}; typed as any JSON value"));
                }
                Ok(TypeRef::Json)
            }
            other => other,
        }
    }

    fn exact_type_ref(
        &mut self,
        schema: &Value,
        hint: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        let object = match schema {
            Value::Bool(true) => return Ok(TypeRef::Json),
            Value::Bool(false) => {
                return Err(self.unsupported(pointer, "the `false` schema admits nothing"));
            }
            Value::Object(object) => object,
            _ => return Err(self.unsupported(pointer, "a schema must be an object or a boolean")),
        };
        self.object_ref(object, Keywords::of(object), hint, pointer)
    }

    /// The type of an object schema whose keywords are `keywords`.
    fn object_ref(
        &mut self,
        object: &Map<String, Value>,
        keywords: Keywords<'_>,
        hint: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        if let Some(reference) = keywords.reference {
            return self.reference(reference, pointer);
        }
        if let Some(all) = keywords.all_of {
            return match all.as_slice() {
                [only] => self.type_ref(only, hint, &pointer.join("allOf").join("0")),
                _ => Err(self.unsupported(pointer, "`allOf` with several schemas")),
            };
        }
        if let Some(rank) = keywords.unsupported {
            let keyword = UNSUPPORTED[rank];
            return Err(self.unsupported(pointer, format!("the `{keyword}` keyword")));
        }
        if let Some(Value::Array(types)) = keywords.ty {
            let mut non_null = types.iter().filter(|t| *t != "null");
            let (one, more) = (non_null.next(), non_null.next());
            let nullable = types.iter().any(|t| t == "null");
            let inner = match (one, more) {
                (None, _) => return Ok(TypeRef::Json),
                (Some(one), None) => {
                    let single = Keywords {
                        ty: Some(one),
                        ..keywords
                    };
                    self.object_ref(object, single, hint, pointer)?
                }
                (Some(_), Some(_)) => {
                    return Err(self.unsupported(pointer, "a value of several JSON types"));
                }
            };
            return Ok(if nullable { nullable_of(inner) } else { inner });
        }
        if let Some((keyword, variants)) = keywords.union {
            return self.union(object, variants, keyword, hint, pointer);
        }
        if let Some(values) = keywords.enumeration {
            return self.string_enum(
                object,
                values.iter().map(|v| (v, None)).collect(),
                hint,
                pointer,
            );
        }
        if let Some(constant) = keywords.constant {
            return match constant {
                Value::String(_) => Ok(TypeRef::String),
                Value::Bool(_) => Ok(TypeRef::Bool),
                Value::Number(n) if n.is_f64() => Ok(TypeRef::Float64),
                Value::Number(n) => {
                    let value = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
                    Ok(TypeRef::integer(value, value))
                }
                _ => Ok(TypeRef::Json),
            };
        }
        match keywords.ty.and_then(Value::as_str) {
            None => {
                if keywords.only_annotations {
                    Ok(TypeRef::Json)
                } else {
                    Err(self.unsupported(pointer, "a schema without a `type`"))
                }
            }
            Some("string") => Ok(TypeRef::String),
            Some("boolean") => Ok(TypeRef::Bool),
            Some("number") => Ok(TypeRef::Float64),
            Some("integer") => Ok(integer(&keywords)),
            Some("null") => Ok(TypeRef::Nullable(Box::new(TypeRef::Json))),
            Some("array") => {
                if keywords.prefix_items {
                    return Err(self.unsupported(pointer, "a tuple (`prefixItems`); use a struct"));
                }
                let items = match keywords.items {
                    Some(Value::Bool(false)) | None => TypeRef::Json,
                    Some(items) => {
                        self.type_ref(items, &format!("{hint}Item"), &pointer.join("items"))?
                    }
                };
                Ok(TypeRef::Array(Box::new(items)))
            }
            Some("object") => {
                let has_properties = keywords.properties.is_some_and(|p| !p.is_empty());
                match keywords.additional {
                    Some(values @ Value::Object(_)) if !has_properties => {
                        let values = self.type_ref(
                            values,
                            &format!("{hint}Value"),
                            &pointer.join("additionalProperties"),
                        )?;
                        Ok(TypeRef::Map(Box::new(values)))
                    }
                    Some(Value::Bool(false)) | Some(Value::Object(_)) => {
                        self.named_struct(object, hint, pointer)
                    }
                    _ if has_properties => self.named_struct(object, hint, pointer),
                    _ => Ok(TypeRef::Map(Box::new(TypeRef::Json))),
                }
            }
            Some(other) => Err(self.unsupported(pointer, format!("the type `{other}`"))),
        }
    }

    /// A struct named `name` from an object schema with properties.
    fn named_struct(
        &mut self,
        object: &Map<String, Value>,
        name: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        let fields = self.fields(name, object, pointer)?;
        let def = TypeDef::Struct(StructDef {
            name: name.to_owned(),
            description: object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            fields,
        });
        self.types
            .insert(def, &format!("`{}` at {pointer}", self.tool))?;
        Ok(TypeRef::Named(name.to_owned()))
    }

    /// The type a `$ref` refers to: the root (`#`) or a definition (`#/$defs/…`).
    fn reference(
        &mut self,
        reference: &str,
        pointer: &SchemaPointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        if reference == "#" {
            return Ok(TypeRef::Named(self.root_name.to_owned()));
        }
        let Some(def_name) = definition_name(reference) else {
            return Err(self.unsupported(pointer, format!("the reference `{reference}`")));
        };
        let name = pascal_case(&def_name);
        if self.types.in_progress.contains(&name) {
            return Ok(TypeRef::Named(name));
        }
        let Some(schema) = self.defs.and_then(|defs| defs.get(def_name.as_ref())) else {
            return Err(self.unsupported(pointer, format!("`{reference}` is not defined")));
        };
        self.types.in_progress.insert(name.clone());
        let resolved = self.type_ref(schema, &name, &SchemaPointer::root("$defs").join(&def_name));
        self.types.in_progress.remove(&name);
        resolved
    }

    /// Follows a `$ref` to its definition, for inspecting union variants.
    pub(super) fn resolve<'s>(&self, schema: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        let reference = schema.get("$ref").and_then(Value::as_str);
        match reference.and_then(definition_name) {
            Some(name) => self
                .defs
                .and_then(|defs| defs.get(name.as_ref()))
                .unwrap_or(schema),
            None if reference == Some("#") => self.root,
            None => schema,
        }
    }
}

/// The key in `$defs` of a reference `#/$defs/{token}`: the token unescaped (RFC 6901), so
/// that `#/$defs/a~1b` names the definition `a/b`.
fn definition_name(reference: &str) -> Option<Cow<'_, str>> {
    reference.strip_prefix("#/$defs/").map(pointer::unescape)
}

/// `inner`, admitting `null` (once).
pub(super) fn nullable_of(inner: TypeRef) -> TypeRef {
    match inner {
        TypeRef::Nullable(_) | TypeRef::Json => inner,
        other => TypeRef::Nullable(Box::new(other)),
    }
}

/// The integer kind of an integer schema: its bounds, within those of its `format` (see
/// [`TypeRef::integer`]).
fn integer(keywords: &Keywords<'_>) -> TypeRef {
    let (mut min, mut max) = keywords.integer_bounds();
    if let Some((low, high)) = keywords.format.and_then(format_range) {
        min = Some(min.map_or(low, |min| min.max(low)));
        max = Some(max.map_or(high, |max| max.min(high)));
    }
    TypeRef::integer(min, max)
}

/// The range of the Rust integer type a schemars `format` names. `int` and `uint` (`isize`,
/// `usize`) are taken as 64 bits, so that the output does not depend on the machine generating
/// it.
fn format_range(format: &str) -> Option<(i128, i128)> {
    let range = |min: i128, max: i128| Some((min, max));
    match format {
        "int8" => range(i8::MIN.into(), i8::MAX.into()),
        "int16" => range(i16::MIN.into(), i16::MAX.into()),
        "int32" => range(i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => range(i64::MIN.into(), i64::MAX.into()),
        "int128" => range(i128::MIN, i128::MAX),
        "uint8" => range(0, u8::MAX.into()),
        "uint16" => range(0, u16::MAX.into()),
        "uint32" => range(0, u32::MAX.into()),
        "uint64" | "uint" => range(0, u64::MAX.into()),
        "uint128" => range(0, i128::MAX),
        _ => None,
    }
}

/// A schema's `description`.
pub(super) fn description(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}
