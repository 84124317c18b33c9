//! A tool's schemas in their compiled form: generated, normalised and with their validator,
//! built the first time something asks.

use std::sync::{Arc, OnceLock};

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

use crate::content::{ContentShape, content_output_schema, content_shape};
use crate::schema::{
    empty_object_schema, input_generator, is_object_schema, normalize, output_generator,
    wrap_result,
};
use crate::validate::Validator;

/// How a tool's return value becomes the envelope's `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputShape {
    /// The value is an object already.
    Object,
    /// The tool returns `()`: `data` is `{}`.
    Unit,
    /// Anything else: `data` is `{"result": value}`.
    Wrapped,
    /// Content blocks (one or a list): `data` is `{"content": [...]}`.
    Content(ContentShape),
}

/// A tool's schemas, built on first use, and its validator, compiled on the first call: listing
/// the tools or hashing the registry's metadata (which a server does as it starts, for every
/// tool) needs the schemas, not the validators.
pub(crate) struct CompiledSchemas {
    pub input: Value,
    /// Shared: every provided tool without an output schema has the one of content blocks.
    pub output: Arc<Value>,
    pub output_shape: OutputShape,
    validator: OnceLock<Result<Validator, String>>,
}

impl CompiledSchemas {
    /// The validator of the input schema of `tool` (whose schemas these are).
    pub(crate) fn validator(&self, tool: &str) -> &Result<Validator, String> {
        self.validator
            .get_or_init(|| Validator::new(tool, &self.input))
    }
}

pub(crate) fn compile(
    input: fn(&mut SchemaGenerator) -> Schema,
    output: fn(&mut SchemaGenerator) -> Schema,
    returns_unit: bool,
) -> CompiledSchemas {
    let mut input_schema = input(&mut input_generator()).to_value();
    normalize(&mut input_schema);
    let mut schema = if returns_unit {
        Value::Null
    } else {
        output(&mut output_generator()).to_value()
    };
    let is_unit = returns_unit || schema.get("type").and_then(Value::as_str) == Some("null");
    let content = if is_unit {
        None
    } else {
        content_shape(&schema)
    };
    let (output_schema, output_shape) = if is_unit {
        (empty_object_schema(), OutputShape::Unit)
    } else if let Some(shape @ (ContentShape::One | ContentShape::Many)) = content {
        let mut schema = content_output_schema(schema, shape);
        normalize(&mut schema);
        (schema, OutputShape::Content(shape))
    } else {
        normalize(&mut schema);
        if is_object_schema(&schema) {
            (schema, OutputShape::Object)
        } else {
            (wrap_result(schema), OutputShape::Wrapped)
        }
    };
    CompiledSchemas {
        input: input_schema,
        output: Arc::new(output_schema),
        output_shape,
        validator: OnceLock::new(),
    }
}

/// A schema function that is never asked (the input side of [`blocks_output`]'s compile).
fn no_schema(_: &mut SchemaGenerator) -> Schema {
    Schema::default()
}

/// The output schema and shape of a tool whose data is content blocks (`{"content": [block,
/// …]}`): the same for every such tool, made once.
pub fn blocks_output() -> &'static (Arc<Value>, OutputShape) {
    static BLOCKS: OnceLock<(Arc<Value>, OutputShape)> = OnceLock::new();
    BLOCKS.get_or_init(|| {
        let blocks = compile(
            no_schema,
            crate::schema::root_schema::<Vec<crate::content::Content>>,
            false,
        );
        (blocks.output, blocks.output_shape)
    })
}

/// The schemas of a tool provided at run time, as its provider gave them (kept as they are,
/// so that clients see what the provider wrote). The input schema is checked against JSON
/// Schema's meta-schema now, so that a schema that is not one is refused when the tool is made;
/// its validator is compiled on the first call, as a linked tool's is (a server of 10,000 tools
/// would otherwise hold 10,000 validators nobody may call). Without an output schema the tool
/// answers content blocks: its data is `{"content": [block, …]}`.
pub(crate) fn given(
    tool: &str,
    input: Value,
    output: Option<Value>,
) -> Result<CompiledSchemas, String> {
    crate::validate::check_schema(tool, &input)?;
    let (output, output_shape) = match output {
        Some(output) => {
            if !is_object_schema(&output) {
                return Err(format!(
                    "the output schema of `{tool}` must have root `type: \"object\"`"
                ));
            }
            (Arc::new(output), OutputShape::Object)
        }
        None => blocks_output().clone(),
    };
    Ok(CompiledSchemas {
        input,
        output,
        output_shape,
        validator: OnceLock::new(),
    })
}
