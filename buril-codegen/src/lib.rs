//! Generates the other sides of a deployment from a buril registry: C# for a Unity editor,
//! TypeScript for MCP bridges and web clients, and agent skills.
//!
//! This crate grows with the codegen work; today it offers the registry snapshot every writer
//! starts from.

#![warn(missing_docs)]

use serde_json::{Value, json};

/// The registry as one JSON document, sorted by tool name: what every writer reads.
pub fn snapshot(registry: &buril::Registry) -> Value {
    Value::Array(
        registry
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name(),
                    "description": tool.description(),
                    "family": tool.family(),
                    "aliases": tool.aliases(),
                    "inputSchema": tool.input_schema(),
                    "outputSchema": tool.output_schema(),
                })
            })
            .collect(),
    )
}
