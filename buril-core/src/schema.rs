//! Schema generation (schemars, JSON Schema 2020-12): the generators, the input schema built
//! from a tool's parameters, and the normalisations every schema gets.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

/// A generator for input schemas: JSON Schema 2020-12, the deserialize contract, no `$schema`.
pub fn input_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .for_deserialize()
        .into_generator()
}

/// A generator for output schemas: JSON Schema 2020-12, the serialize contract, no `$schema`.
pub fn output_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .for_serialize()
        .into_generator()
}

/// `{"type": "object", "additionalProperties": false}`: the schema of a tool without
/// parameters, and of the data of a tool returning `()`.
pub fn empty_object_schema() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Wraps a non-object output schema as `{"result": schema}`, moving `$defs` to the root.
pub(crate) fn wrap_result(mut schema: Value) -> Value {
    let defs = schema.as_object_mut().and_then(|o| {
        o.remove("title");
        o.remove("$defs")
    });
    let mut root = json!({
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
        "additionalProperties": false,
    });
    if let (Some(defs), Some(object)) = (defs, root.as_object_mut()) {
        object.insert("$defs".into(), defs);
    }
    root
}

/// Makes schemars' output say exactly what the function accepts, in a form every client reads:
///
/// - every array schema gets `items` (providers reject arrays without it);
/// - every integer schema carries the range of its Rust type (schemars writes `minimum: 0` for
///   `u32` and `u64` and no bounds at all for `i32`, `i64`, `isize`, `usize`), so that a number
///   the schema accepts always fits the parameter; a bound the author set stays when it is
///   tighter;
/// - `format`s that no JSON Schema validator knows (schemars' `int32`, `uint64`, `double`, ...)
///   are dropped: the bounds carry their meaning, and clients log every unknown format they
///   meet. The formats JSON Schema defines (`date-time`, `uuid`, `ipv4`, ...) stay.
///
/// Literal values (`const`, `enum`, `default`, `examples`) are left as they are.
pub(crate) fn normalize(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let types = |object: &Map<String, Value>, name: &str| match object.get("type") {
                Some(Value::String(t)) => t == name,
                Some(Value::Array(types)) => types.iter().any(|t| t == name),
                _ => false,
            };
            if types(object, "array") && !object.contains_key("items") {
                let items = if object.contains_key("prefixItems") {
                    Value::Bool(false)
                } else {
                    Value::Object(Map::new())
                };
                object.insert("items".into(), items);
            }
            let format = object.get("format").and_then(Value::as_str);
            if let Some(format) = format
                && !is_standard_format(format)
            {
                let range = types(object, "integer")
                    .then(|| integer_range(format))
                    .flatten();
                // The bounds take the format's place: `type`, `minimum`, `maximum`, the rest.
                let at = object.keys().position(|key| key == "format").unwrap_or(0);
                object.shift_remove("format");
                if let Some((min, max)) = range {
                    let after = tighten(object, "minimum", min, at, |new, old| new > old);
                    tighten(object, "maximum", max, after, |new, old| new < old);
                }
            }
            for (key, value) in object.iter_mut() {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    normalize(value);
                }
            }
        }
        Value::Array(values) => values.iter_mut().for_each(normalize),
        _ => {}
    }
}

/// The formats JSON Schema 2020-12 defines, which validators know.
fn is_standard_format(format: &str) -> bool {
    matches!(
        format,
        "date-time"
            | "date"
            | "time"
            | "duration"
            | "email"
            | "idn-email"
            | "hostname"
            | "idn-hostname"
            | "ipv4"
            | "ipv6"
            | "uri"
            | "uri-reference"
            | "iri"
            | "iri-reference"
            | "uuid"
            | "uri-template"
            | "json-pointer"
            | "relative-json-pointer"
            | "regex"
    )
}

/// The values a Rust integer type of schemars' `format` can take, as far as a JSON number can
/// reach it (128-bit types receive at most what a JSON parser keeps exactly: `i64` to `u64`).
pub(crate) fn integer_range(format: &str) -> Option<(i128, i128)> {
    let range = |min: i128, max: i128| Some((min, max));
    match format {
        "int8" => range(i8::MIN.into(), i8::MAX.into()),
        "int16" => range(i16::MIN.into(), i16::MAX.into()),
        "int32" => range(i32::MIN.into(), i32::MAX.into()),
        "int64" => range(i64::MIN.into(), i64::MAX.into()),
        "int" => range(isize::MIN as i128, isize::MAX as i128),
        "int128" => range(i64::MIN.into(), u64::MAX.into()),
        "uint8" => range(0, u8::MAX.into()),
        "uint16" => range(0, u16::MAX.into()),
        "uint32" => range(0, u32::MAX.into()),
        "uint64" | "uint128" => range(0, u64::MAX.into()),
        "uint" => range(0, usize::MAX as i128),
        _ => None,
    }
}

/// Sets `key` to `bound` unless the schema's own bound is tighter (`tighter(new, old)` says
/// whether the type's bound is); a new key goes at index `at`. Answers the index after `key`.
fn tighten(
    object: &mut Map<String, Value>,
    key: &str,
    bound: i128,
    at: usize,
    tighter: impl Fn(f64, f64) -> bool,
) -> usize {
    if let Some(index) = object.keys().position(|k| k == key) {
        let looser = object
            .get(key)
            .and_then(Value::as_f64)
            .is_none_or(|old| tighter(bound as f64, old));
        if looser {
            object.insert(key.into(), integer_value(bound));
        }
        return index + 1;
    }
    let at = at.min(object.len());
    object.shift_insert(at, key.into(), integer_value(bound));
    at + 1
}

fn integer_value(n: i128) -> Value {
    match (u64::try_from(n), i64::try_from(n)) {
        (Ok(n), _) => Value::from(n),
        (_, Ok(n)) => Value::from(n),
        _ => Value::from(n as f64),
    }
}

/// Builds the input schema of a tool from its parameters: the `#[tool]` expansion calls
/// `properties::input_schema`, which calls [`param`](Self::param) through each parameter's
/// type (`Parameter::property`).
pub struct InputSchema<'g> {
    generator: &'g mut SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl<'g> InputSchema<'g> {
    /// Starts an input schema.
    pub fn new(generator: &'g mut SchemaGenerator) -> Self {
        InputSchema {
            generator,
            properties: Map::new(),
            required: Vec::new(),
        }
    }

    /// Adds the property `name` of type `T`.
    pub fn param<T: JsonSchema + ?Sized>(
        mut self,
        name: &str,
        description: &str,
        required: bool,
    ) -> Self {
        let mut schema = self.generator.subschema_for::<T>();
        if !description.is_empty() {
            schema.insert("description".into(), Value::String(description.into()));
        }
        self.properties.insert(name.into(), schema.to_value());
        if required {
            self.required.push(Value::String(name.into()));
        }
        self
    }

    /// Mirrors the property `name` into the HTTP header `Mcp-Param-{header}` (MCP's
    /// `x-mcp-header`, from the attribute's `headers`).
    pub fn header(mut self, name: &str, header: &str) -> Self {
        if let Some(Value::Object(property)) = self.properties.get_mut(name) {
            property.insert("x-mcp-header".into(), Value::String(header.into()));
        }
        self
    }

    /// The finished schema: an object of the parameters, no other properties allowed.
    pub fn finish(self) -> Schema {
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        root.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), Value::Array(self.required));
        }
        root.insert("additionalProperties".into(), Value::Bool(false));
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        Schema::from(root)
    }
}

/// The root schema of `T`, for a tool taking a single input struct or for an output type.
pub fn root_schema<T: JsonSchema + ?Sized>(generator: &mut SchemaGenerator) -> Schema {
    generator.root_schema_for::<T>()
}
