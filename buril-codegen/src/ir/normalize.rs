//! JSON Schema (as schemars writes it) to the IR.

use std::fmt;

use serde_json::{Map, Value};

use super::names::{camel_case, pascal_case, push_pascal_case};
use super::{
    Api, EnumDef, EnumVariant, Field, StructDef, TaggedUnionDef, TaggedVariant, ToolDef, TypeDef,
    TypeRef, UntaggedDef,
};
use crate::source::ToolSource;
use crate::{HashMap, HashSet};

/// Why the tools cannot be turned into bindings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NormalizeError {
    /// A schema uses a construct no writer can express.
    Unsupported {
        /// The tool whose schema it is.
        tool: String,
        /// A JSON pointer into that schema.
        pointer: String,
        /// What is not supported.
        reason: String,
    },
    /// Two different types would get the same name.
    Collision {
        /// The generated type name.
        name: String,
        /// Where the first came from.
        first: String,
        /// Where the second came from.
        second: String,
    },
}

impl fmt::Display for NormalizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NormalizeError::Unsupported {
                tool,
                pointer,
                reason,
            } => write!(
                f,
                "the schema of `{tool}` cannot be generated at `{pointer}`: {reason}"
            ),
            NormalizeError::Collision {
                name,
                first,
                second,
            } => write!(
                f,
                "two different types would both be named `{name}` ({first}; {second}): rename \
                 one of the Rust types (or `#[schemars(rename = \"...\")]`), nothing is renamed \
                 or overwritten silently"
            ),
        }
    }
}

impl std::error::Error for NormalizeError {}

/// Normalises the tools' schemas into an [`Api`]. Fails on constructs no writer can express and
/// on two different types that would share a name.
pub fn normalize(sources: &[ToolSource]) -> Result<Api, NormalizeError> {
    let mut sources: Vec<&ToolSource> = sources.iter().collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    let mut types = Types::default();
    let mut tools = Vec::with_capacity(sources.len());
    for source in &sources {
        let pascal = pascal_case(&source.name);
        let input = format!("{pascal}Input");
        let output = format!("{pascal}Output");
        for (name, schema, what) in [
            (&input, &source.input_schema, "input"),
            (&output, &source.output_schema, "output"),
        ] {
            let mut cx = Cx {
                tool: &source.name,
                root_name: name,
                defs: schema.get("$defs").and_then(Value::as_object),
                root: schema,
                types: &mut types,
            };
            let origin = format!("the {what} of `{}`", source.name);
            let def = cx.struct_def(name, schema, &Pointer::root(what))?;
            cx.types.insert(def, &origin)?;
        }
        tools.push(ToolDef {
            name: source.name.clone(),
            camel: camel_case(&source.name),
            pascal,
            description: source.description.clone(),
            family: source.family.clone(),
            aliases: source.aliases.clone(),
            input,
            output,
            input_schema_json: compact_json(&source.input_schema),
            output_schema_json: compact_json(&source.output_schema),
            dangerous: source.dangerous,
            off_thread: source.off_thread,
            read_only: source.read_only,
            destructive: source.destructive,
            idempotent: source.idempotent,
            open_world: source.open_world,
            title: source.title.clone(),
        });
    }
    let hash = crate::source::metadata_hash(sources.iter().zip(&tools).map(|(source, tool)| {
        (
            *source,
            [
                tool.input_schema_json.as_str(),
                tool.output_schema_json.as_str(),
            ],
        )
    }));
    Ok(Api {
        tools,
        types: types.defs.into_iter().collect(),
        hash,
        generator_version: env!("CARGO_PKG_VERSION"),
    })
}

/// The named types found so far. Hash maps: with thousands of tools, a sorted map's lookups
/// compare long, similar names level after level; the IR's sorted map is built once at the end.
#[derive(Default)]
struct Types {
    defs: HashMap<String, TypeDef>,
    origins: HashMap<String, String>,
    /// Definitions being resolved: a reference back to one of them is a recursive type.
    in_progress: HashSet<String>,
}

impl Types {
    /// Adds a named type. The same type seen again (from another tool) is merged: a property is
    /// required only where every use requires it, so one class serves input and output.
    fn insert(&mut self, def: TypeDef, origin: &str) -> Result<(), NormalizeError> {
        let name = def.name().to_owned();
        let Some(existing) = self.defs.get(&name) else {
            self.origins.insert(name.clone(), origin.to_owned());
            self.defs.insert(name, def);
            return Ok(());
        };
        let merged = merge(existing, &def).ok_or_else(|| NormalizeError::Collision {
            name: name.clone(),
            first: self.origins[&name].clone(),
            second: origin.to_owned(),
        })?;
        self.defs.insert(name, merged);
        Ok(())
    }
}

fn merge(a: &TypeDef, b: &TypeDef) -> Option<TypeDef> {
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (TypeDef::Struct(a), TypeDef::Struct(b)) => Some(TypeDef::Struct(StructDef {
            name: a.name.clone(),
            description: a.description.clone().or_else(|| b.description.clone()),
            fields: merge_fields(&a.fields, &b.fields)?,
        })),
        (TypeDef::TaggedUnion(a), TypeDef::TaggedUnion(b))
            if a.tag == b.tag && a.variants.len() == b.variants.len() =>
        {
            let variants = a
                .variants
                .iter()
                .zip(&b.variants)
                .map(|(x, y)| {
                    (x.tag_value == y.tag_value && x.name == y.name).then_some(())?;
                    Some(TaggedVariant {
                        fields: merge_fields(&x.fields, &y.fields)?,
                        ..x.clone()
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(TypeDef::TaggedUnion(TaggedUnionDef {
                variants,
                ..a.clone()
            }))
        }
        (TypeDef::Enum(a), TypeDef::Enum(b))
            if a.variants
                .iter()
                .map(|v| &v.wire)
                .eq(b.variants.iter().map(|v| &v.wire)) =>
        {
            Some(TypeDef::Enum(a.clone()))
        }
        _ => None,
    }
}

fn merge_fields(a: &[Field], b: &[Field]) -> Option<Vec<Field>> {
    if a.len() != b.len() {
        return None;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            if x.wire != y.wire {
                return None;
            }
            // `Option<T>` reads as "may be absent" and writes as "present, maybe null".
            let ty = if x.ty == y.ty {
                x.ty.clone()
            } else if x.ty.non_null() == y.ty.non_null() {
                TypeRef::Nullable(Box::new(x.ty.non_null().clone()))
            } else {
                return None;
            };
            Some(Field {
                wire: x.wire.clone(),
                ty,
                required: x.required && y.required,
                description: x.description.clone().or_else(|| y.description.clone()),
            })
        })
        .collect()
}

struct Cx<'a> {
    tool: &'a str,
    /// The name of the root struct, which `"$ref": "#"` refers to.
    root_name: &'a str,
    root: &'a Value,
    defs: Option<&'a Map<String, Value>>,
    types: &'a mut Types,
}

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
const UNSUPPORTED: &[&str] = &[
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
struct Keywords<'v> {
    /// `$ref`, when a string.
    reference: Option<&'v str>,
    /// `allOf`, when an array.
    all_of: Option<&'v Vec<Value>>,
    /// The index in [`UNSUPPORTED`] of the first of them present.
    unsupported: Option<usize>,
    /// `type`: a string or an array of them.
    ty: Option<&'v Value>,
    /// `oneOf` or else `anyOf`, when an array, with the keyword's name.
    union: Option<(&'static str, &'v Vec<Value>)>,
    /// `enum`, when an array.
    enumeration: Option<&'v Vec<Value>>,
    /// `const`.
    constant: Option<&'v Value>,
    /// `format`, when a string.
    format: Option<&'v str>,
    /// `items`.
    items: Option<&'v Value>,
    /// Whether `prefixItems` is present.
    prefix_items: bool,
    /// `properties`, when an object.
    properties: Option<&'v Map<String, Value>>,
    /// `additionalProperties`.
    additional: Option<&'v Value>,
    /// Whether every key is one of [`ANNOTATIONS`].
    only_annotations: bool,
}

impl<'v> Keywords<'v> {
    fn of(object: &'v Map<String, Value>) -> Self {
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

impl<'a> Cx<'a> {
    fn unsupported(&self, pointer: &Pointer<'_>, reason: impl Into<String>) -> NormalizeError {
        NormalizeError::Unsupported {
            tool: self.tool.to_owned(),
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }

    /// A struct from an object schema (the input or output root, or a named definition).
    fn struct_def(
        &mut self,
        name: &str,
        schema: &Value,
        pointer: &Pointer<'_>,
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

    fn fields(
        &mut self,
        owner: &str,
        object: &Map<String, Value>,
        pointer: &Pointer<'_>,
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

    /// The type of a schema; `hint` names it if it needs a name of its own.
    fn type_ref(
        &mut self,
        schema: &Value,
        hint: &str,
        pointer: &Pointer<'_>,
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
        pointer: &Pointer<'_>,
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
                Value::Number(_) => Ok(TypeRef::Int64),
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
            Some("integer") => Ok(integer(keywords.format)),
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

    fn named_struct(
        &mut self,
        object: &Map<String, Value>,
        name: &str,
        pointer: &Pointer<'_>,
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

    fn reference(
        &mut self,
        reference: &str,
        pointer: &Pointer<'_>,
    ) -> Result<TypeRef, NormalizeError> {
        if reference == "#" {
            return Ok(TypeRef::Named(self.root_name.to_owned()));
        }
        let Some(def_name) = reference.strip_prefix("#/$defs/") else {
            return Err(self.unsupported(pointer, format!("the reference `{reference}`")));
        };
        let name = pascal_case(def_name);
        if self.types.in_progress.contains(&name) {
            return Ok(TypeRef::Named(name));
        }
        let Some(schema) = self.defs.and_then(|defs| defs.get(def_name)) else {
            return Err(self.unsupported(pointer, format!("`{reference}` is not defined")));
        };
        self.types.in_progress.insert(name.clone());
        let resolved = self.type_ref(schema, &name, &Pointer::root("$defs").join(def_name));
        self.types.in_progress.remove(&name);
        resolved
    }

    fn union(
        &mut self,
        object: &Map<String, Value>,
        variants: &[Value],
        keyword: &str,
        hint: &str,
        pointer: &Pointer<'_>,
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

    fn tagged_union(
        &mut self,
        object: &Map<String, Value>,
        variants: &[&Value],
        tag: &str,
        hint: &str,
        pointer: &Pointer<'_>,
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

    fn string_enum(
        &mut self,
        object: &Map<String, Value>,
        values: Vec<(&Value, Option<String>)>,
        hint: &str,
        pointer: &Pointer<'_>,
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

    /// Follows a `$ref` to its definition, for inspecting union variants.
    fn resolve<'s>(&self, schema: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        let reference = schema.get("$ref").and_then(Value::as_str);
        match reference.and_then(|r| r.strip_prefix("#/$defs/")) {
            Some(name) => self.defs.and_then(|defs| defs.get(name)).unwrap_or(schema),
            None if reference == Some("#") => self.root,
            None => schema,
        }
    }
}

/// A schema as compact JSON: the bytes of its `Display`, written straight into a buffer.
fn compact_json(schema: &Value) -> String {
    // Serializing a `Value` into a `Vec` cannot fail: its keys are strings.
    serde_json::to_string(schema).unwrap_or_else(|_| schema.to_string())
}

fn nullable_of(inner: TypeRef) -> TypeRef {
    match inner {
        TypeRef::Nullable(_) | TypeRef::Json => inner,
        other => TypeRef::Nullable(Box::new(other)),
    }
}

fn integer(format: Option<&str>) -> TypeRef {
    match format {
        Some("int8" | "int16" | "int32" | "uint8" | "uint16") => TypeRef::Int32,
        _ => TypeRef::Int64,
    }
}

fn description(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
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

/// A JSON pointer into a tool's schema, for error messages only: segments link to their parent
/// and are joined only when an error is worded.
#[derive(Clone, Copy)]
pub(crate) struct Pointer<'a> {
    parent: Option<&'a Pointer<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Name(&'a str),
    Index(usize),
}

impl<'a> Pointer<'a> {
    fn root(segment: &'a str) -> Self {
        Pointer {
            parent: None,
            segment: Segment::Name(segment),
        }
    }

    fn join(&'a self, segment: &'a str) -> Pointer<'a> {
        Pointer {
            parent: Some(self),
            segment: Segment::Name(segment),
        }
    }

    fn index(&'a self, index: usize) -> Pointer<'a> {
        Pointer {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }
}

impl std::fmt::Display for Pointer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match self.segment {
            Segment::Name(name) => write!(f, "/{name}"),
            Segment::Index(index) => write!(f, "/{index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
        for format in ["int8", "int16", "int32", "uint8", "uint16"] {
            let schema = json!({"type": "integer", "format": format});
            assert_eq!(type_of(schema), Ok(TypeRef::Int32), "{format}");
        }
        for format in [json!("int64"), json!("uint32"), json!("uint64"), json!(7)] {
            let schema = json!({"type": "integer", "format": format});
            assert_eq!(type_of(schema), Ok(TypeRef::Int64), "{format}");
        }
        assert_eq!(type_of(json!({"type": "integer"})), Ok(TypeRef::Int64));
        assert_eq!(
            type_of(json!({"type": "null"})),
            Ok(nullable(TypeRef::Json))
        );
        assert_eq!(type_of(json!(true)), Ok(TypeRef::Json));
        assert_eq!(type_of(json!({})), Ok(TypeRef::Json));
        let annotated = json!({"description": "d", "title": "t", "default": 1, "format": "x"});
        assert_eq!(type_of(annotated), Ok(TypeRef::Json));
    }

    #[test]
    fn constants_by_kind() {
        assert_eq!(type_of(json!({"const": "a"})), Ok(TypeRef::String));
        assert_eq!(type_of(json!({"const": true})), Ok(TypeRef::Bool));
        assert_eq!(type_of(json!({"const": 1.5})), Ok(TypeRef::Float64));
        assert_eq!(type_of(json!({"const": 2})), Ok(TypeRef::Int64));
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
        assert_eq!(type_of(both), Ok(nullable(TypeRef::Int64)));
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
        let untagged = json!({"anyOf": [{"type": "string"}, {"type": "integer"},
                                        {"type": "null"}]});
        let (ty, api) = property(untagged, json!({})).unwrap();
        assert_eq!(ty, nullable(named("ProbeInputP")));
        let TypeDef::Untagged(u) = &api.types["ProbeInputP"] else {
            panic!("an untagged union");
        };
        assert_eq!(u.variants, [TypeRef::String, TypeRef::Int64]);
    }
}
