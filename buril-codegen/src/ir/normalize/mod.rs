//! JSON Schema (as schemars writes it) to the IR.
//!
//! [`normalize`] reads each tool's input and output schema with a [`reader::SchemaReader`]
//! (structs, fields, scalars, references; unions in [`unions`]), collecting the named types in
//! a [`type_table::TypeTable`] that merges a type seen again and reports two different types
//! wanting one name.

mod error;
mod keywords;
mod reader;
mod schema_pointer;
mod type_table;
mod unions;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub use error::NormalizeError;

use self::reader::SchemaReader;
use self::schema_pointer::SchemaPointer;
use self::type_table::TypeTable;
use crate::ir::api::{Api, ToolDef};
use crate::ir::names::{camel_case, pascal_case};
use crate::source::ToolSource;
use buril_core::metadata;

/// Normalises the tools' schemas into an [`Api`]. Fails on constructs no writer can express and
/// on two different types that would share a name.
pub fn normalize(sources: &[ToolSource]) -> Result<Api, NormalizeError> {
    normalize_noting(sources, None)
}

/// [`normalize`], reading what no writer can express as any JSON value and noting why in
/// `notes` (schemas from other servers than buril's), when `notes` is given.
pub fn normalize_noting(
    sources: &[ToolSource],
    mut notes: Option<&mut Vec<String>>,
) -> Result<Api, NormalizeError> {
    let mut sources: Vec<&ToolSource> = sources.iter().collect();
    sources.sort_by(|a, b| a.meta.name.cmp(&b.meta.name));
    let mut types = TypeTable::default();
    let mut tools = Vec::with_capacity(sources.len());
    for source in &sources {
        let name = &source.meta.name;
        let pascal = pascal_case(name);
        let input_type = format!("{pascal}Input");
        let output_type = format!("{pascal}Output");
        for (type_name, schema, side) in [
            (&input_type, &source.input_schema, "input"),
            (&output_type, &source.output_schema, "output"),
        ] {
            let mut reader = SchemaReader {
                tool: name,
                root_name: type_name,
                defs: schema.get("$defs").and_then(Value::as_object),
                root: schema,
                types: &mut types,
                notes: notes.as_deref_mut(),
            };
            let origin = format!("the {side} of `{name}`");
            let def = reader.struct_def(type_name, schema, &SchemaPointer::root(side))?;
            reader.types.insert(def, &origin)?;
        }
        tools.push(ToolDef {
            meta: source.meta.clone(),
            camel: camel_case(name),
            pascal,
            input_type,
            output_type,
            input_schema_json: compact_json(&source.input_schema),
            output_schema_json: compact_json(&source.output_schema),
        });
    }
    let hash = metadata::hash(tools.iter().map(|tool| {
        (
            &tool.meta,
            [
                tool.input_schema_json.as_str(),
                tool.output_schema_json.as_str(),
            ],
        )
    }));
    Ok(Api {
        tools,
        types: types.into_sorted(),
        hash,
        generator_version: env!("CARGO_PKG_VERSION"),
        from_other_server: notes.is_some(),
    })
}

/// A schema as compact JSON: the bytes of its `Display`, written straight into a buffer.
fn compact_json(schema: &Value) -> String {
    // Serializing a `Value` into a `Vec` cannot fail: its keys are strings.
    serde_json::to_string(schema).unwrap_or_else(|_| schema.to_string())
}
