//! Synthetic tools, any number of them, without compiling a function per tool: hand-built
//! [`buril::ToolDescriptor`]s (what `#[buril::tool]` emits, minus the function) leaked into a
//! [`buril::Registry`], and [`buril_codegen::ToolSource`]s for the code generators.

use buril::__private as schema;
use buril::__private::InputSchema;
use buril::__private::{Args, Invoke};
use buril::ToolMeta;
use buril::{Context, Registry, SourceLocation, ToolDescriptor, ToolError};
use schemars::{Schema, SchemaGenerator};
use serde_json::{Value, json};

/// The name of synthetic tool `i`: 100 families of tools.
pub fn name(i: usize) -> String {
    format!("fam{:03}_run_tool{i:05}", i % 100)
}

fn family(i: usize) -> String {
    format!("fam{:03}", i % 100)
}

/// The one function behind every synthetic tool: takes `text`, answers its length.
fn invoke(_ctx: &Context, mut args: Args) -> Result<Value, ToolError> {
    let text: Option<String> = args.required("text");
    args.finish()?;
    let text = text.unwrap_or_default();
    Ok(json!({"length": text.len()}))
}

fn input_schema(generator: &mut SchemaGenerator) -> Schema {
    InputSchema::new(generator)
        .param::<String>("text", "The text to measure.", true)
        .finish()
}

fn output_schema(generator: &mut SchemaGenerator) -> Schema {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Measured {
        length: usize,
    }
    schema::root_schema::<Measured>(generator)
}

/// `n` descriptors, leaked (a real binary keeps them in statics).
pub fn descriptors(n: usize) -> Vec<&'static ToolDescriptor> {
    (0..n)
        .map(|i| {
            let name: &'static str = Box::leak(name(i).into_boxed_str());
            let family: &'static str = Box::leak(family(i).into_boxed_str());
            let mut meta = ToolMeta::new(name);
            meta.description = "Measures a text (a synthetic tool).".into();
            meta.family = family.into();
            meta.threading = buril::Threading::OffThread;
            meta.location = SourceLocation {
                file: file!(),
                line: line!(),
                module: module_path!(),
            };
            let descriptor =
                ToolDescriptor::new(meta, Invoke::Sync(invoke), input_schema, output_schema);
            &*Box::leak(Box::new(descriptor))
        })
        .collect()
}

/// A registry of `n` synthetic tools, leaked.
pub fn registry(n: usize) -> &'static Registry {
    let registry = Registry::new(descriptors(n)).expect("synthetic names are unique");
    Box::leak(Box::new(registry))
}

/// `count` names (separate strings, as a caller's requests would be) of `distinct` tools
/// spread evenly over a registry of `n` tools.
pub fn spread_names(n: usize, distinct: usize, count: usize) -> Vec<String> {
    let distinct = distinct.clamp(1, n);
    (0..count)
        .map(|k| name((k % distinct) * n / distinct))
        .collect()
}

/// `n` tools for the code generators, each with its own input and output types: strings,
/// numbers, an optional field, a string enum, a nested object and a list, so that every writer
/// path (classes, enums, nested types, arrays) runs per tool.
pub fn sources(n: usize) -> Vec<buril_codegen::ToolSource> {
    (0..n)
        .map(|i| {
            let target = format!("Target{i:05}");
            let input = json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The object's name."},
                    "count": {"type": "integer", "format": "uint32", "minimum": 0,
                              "description": "How many."},
                    "weight": {"type": "number", "format": "double", "description": "Weight."},
                    "note": {"type": ["string", "null"], "description": "An optional note."},
                    "mode": {"type": "string", "enum": ["fast", "safe", "exact"],
                             "description": "How to run."},
                    "target": {"$ref": format!("#/$defs/{target}")},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["name", "count", "weight", "mode", "target", "tags"],
                "additionalProperties": false,
                "$defs": {
                    target.clone(): {
                        "type": "object",
                        "description": "Where to apply it.",
                        "properties": {
                            "path": {"type": "string"},
                            "depth": {"type": "integer", "format": "int32"}
                        },
                        "required": ["path", "depth"]
                    }
                }
            });
            let output = json!({
                "type": "object",
                "properties": {
                    "done": {"type": "boolean"},
                    "items": {"type": "array", "items": {"type": "string"}},
                    "elapsed": {"type": "number", "format": "double"}
                },
                "required": ["done", "items", "elapsed"]
            });
            let mut source = buril_codegen::ToolSource::new(name(i), input, output);
            source.meta.description = format!("Runs synthetic tool number {i}.").into();
            source.meta.family = family(i).into();
            source.meta.threading = buril::Threading::OffThread;
            source.meta.annotations.read_only = Some(i % 2 == 0);
            source
        })
        .collect()
}
