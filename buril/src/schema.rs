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

/// Fixes what providers reject in schemars output: every array schema gets `items`.
pub(crate) fn normalize(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let is_array = match object.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
                _ => false,
            };
            if is_array && !object.contains_key("items") {
                let items = if object.contains_key("prefixItems") {
                    Value::Bool(false)
                } else {
                    Value::Object(Map::new())
                };
                object.insert("items".into(), items);
            }
            for value in object.values_mut() {
                normalize(value);
            }
        }
        Value::Array(values) => values.iter_mut().for_each(normalize),
        _ => {}
    }
}

/// Builds the input schema of a tool from its parameters. The `#[tool]` attribute emits one
/// call of [`param`](Self::param) per parameter.
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

    /// Applies one step; lets the expansion chain steps that call trait methods.
    #[inline]
    pub fn then(self, step: impl FnOnce(Self) -> Self) -> Self {
        step(self)
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
