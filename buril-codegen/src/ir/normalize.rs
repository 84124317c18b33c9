//! JSON Schema (as schemars writes it) to the IR.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::{Map, Value};

use super::names::{camel_case, pascal_case};
use super::{
    Api, EnumDef, EnumVariant, Field, StructDef, TaggedUnionDef, TaggedVariant, ToolDef, TypeDef,
    TypeRef, UntaggedDef,
};
use crate::source::ToolSource;

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
            input_schema_json: source.input_schema.to_string(),
            output_schema_json: source.output_schema.to_string(),
            dangerous: source.dangerous,
            off_thread: source.off_thread,
            read_only: source.read_only,
            destructive: source.destructive,
            idempotent: source.idempotent,
            open_world: source.open_world,
            title: source.title.clone(),
        });
    }
    let hash = crate::source::metadata_hash(&sources);
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

impl Cx<'_> {
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
            for (wire, property) in properties {
                let hint = format!("{owner}{}", pascal_case(wire));
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
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, pointer);
        }
        if let Some(all) = object.get("allOf").and_then(Value::as_array) {
            return match all.as_slice() {
                [only] => self.type_ref(only, hint, &pointer.join("allOf").join("0")),
                _ => Err(self.unsupported(pointer, "`allOf` with several schemas")),
            };
        }
        for keyword in [
            "not",
            "if",
            "then",
            "else",
            "dependentSchemas",
            "patternProperties",
        ] {
            if object.contains_key(keyword) {
                return Err(self.unsupported(pointer, format!("the `{keyword}` keyword")));
            }
        }
        if let Some(types) = object.get("type").and_then(Value::as_array) {
            let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            let nullable = non_null.len() < types.len();
            let inner = match non_null.as_slice() {
                [] => return Ok(TypeRef::Json),
                [one] => {
                    let mut single = object.clone();
                    single.insert("type".into(), (*one).clone());
                    self.type_ref(&Value::Object(single), hint, pointer)?
                }
                _ => return Err(self.unsupported(pointer, "a value of several JSON types")),
            };
            return Ok(if nullable { nullable_of(inner) } else { inner });
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(variants) = object.get(keyword).and_then(Value::as_array) {
                return self.union(object, variants, keyword, hint, pointer);
            }
        }
        if let Some(values) = object.get("enum").and_then(Value::as_array) {
            return self.string_enum(
                object,
                values.iter().map(|v| (v, None)).collect(),
                hint,
                pointer,
            );
        }
        if let Some(constant) = object.get("const") {
            return match constant {
                Value::String(_) => Ok(TypeRef::String),
                Value::Bool(_) => Ok(TypeRef::Bool),
                Value::Number(n) if n.is_f64() => Ok(TypeRef::Float64),
                Value::Number(_) => Ok(TypeRef::Int64),
                _ => Ok(TypeRef::Json),
            };
        }
        match object.get("type").and_then(Value::as_str) {
            None => {
                if object.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) {
                    Ok(TypeRef::Json)
                } else {
                    Err(self.unsupported(pointer, "a schema without a `type`"))
                }
            }
            Some("string") => Ok(TypeRef::String),
            Some("boolean") => Ok(TypeRef::Bool),
            Some("number") => Ok(TypeRef::Float64),
            Some("integer") => Ok(integer(object)),
            Some("null") => Ok(TypeRef::Nullable(Box::new(TypeRef::Json))),
            Some("array") => {
                let items = match object.get("items") {
                    Some(Value::Bool(false)) | None => match object.get("prefixItems") {
                        Some(_) => {
                            return Err(
                                self.unsupported(pointer, "a tuple (`prefixItems`); use a struct")
                            );
                        }
                        None => TypeRef::Json,
                    },
                    Some(items) => {
                        self.type_ref(items, &format!("{hint}Item"), &pointer.join("items"))?
                    }
                };
                if object.contains_key("prefixItems") {
                    return Err(self.unsupported(pointer, "a tuple (`prefixItems`); use a struct"));
                }
                Ok(TypeRef::Array(Box::new(items)))
            }
            Some("object") => {
                let has_properties = object
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
                match object.get("additionalProperties") {
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
        let Some(schema) = self.defs.and_then(|defs| defs.get(def_name)).cloned() else {
            return Err(self.unsupported(pointer, format!("`{reference}` is not defined")));
        };
        self.types.in_progress.insert(name.clone());
        let resolved = self.type_ref(&schema, &name, &Pointer::root("$defs").join(def_name));
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
        let resolved: Vec<Value> = variants.iter().map(|v| self.resolve(v)).collect();
        // `T | null`.
        let non_null: Vec<(usize, &Value)> = resolved
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
        variants: &[Value],
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
    fn resolve(&self, schema: &Value) -> Value {
        let reference = schema.get("$ref").and_then(Value::as_str);
        match reference.and_then(|r| r.strip_prefix("#/$defs/")) {
            Some(name) => self
                .defs
                .and_then(|defs| defs.get(name))
                .cloned()
                .unwrap_or_else(|| schema.clone()),
            None if reference == Some("#") => self.root.clone(),
            None => schema.clone(),
        }
    }
}

fn nullable_of(inner: TypeRef) -> TypeRef {
    match inner {
        TypeRef::Nullable(_) | TypeRef::Json => inner,
        other => TypeRef::Nullable(Box::new(other)),
    }
}

fn integer(object: &Map<String, Value>) -> TypeRef {
    match object.get("format").and_then(Value::as_str) {
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
fn common_tag(variants: &[Value]) -> Option<String> {
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
