//! What the generator reads: one [`ToolSource`] per tool, taken from a registry or built by
//! hand (tests, fuzzing, tools from another process's `list --json`).

use serde_json::Value;

/// One tool as the generator reads it: the metadata the runtime registers ([`buril_core::ToolMeta`],
/// the same struct), and its schemas as values.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSource {
    /// The name, description, family, aliases, annotations and flags.
    pub meta: buril_core::ToolMeta,
    /// The input JSON Schema (root `type: "object"`).
    pub input_schema: Value,
    /// The output JSON Schema (root `type: "object"`): the envelope's `data`.
    pub output_schema: Value,
}

impl ToolSource {
    /// A tool given by hand: its wire name and schemas, with the defaults of
    /// [`buril_core::ToolMeta::new`] (the family of the name's first segment, as `#[tool]` defaults
    /// it; no description, aliases or annotations; on the main thread and not dangerous). Set
    /// other fields afterwards: `source.meta.description = "…".into()`.
    pub fn new(name: impl Into<String>, input_schema: Value, output_schema: Value) -> Self {
        ToolSource {
            meta: buril_core::ToolMeta::new(name.into()),
            input_schema,
            output_schema,
        }
    }

    /// A registered tool. Its metadata borrows the registry's strings: cloning it copies no text.
    pub fn from_descriptor(tool: &buril_core::ToolDescriptor) -> Self {
        ToolSource {
            meta: tool.meta().clone(),
            input_schema: tool.input_schema().clone(),
            output_schema: tool.output_schema().clone(),
        }
    }

    /// Every tool linked into a registry's binary, sorted by name: the bindings are of the
    /// binary's own tools (those other servers provide at run time have bindings of their
    /// own: `codegen --from-server`).
    pub fn from_registry(registry: &buril_core::Registry) -> Vec<ToolSource> {
        registry
            .linked()
            .iter()
            .map(|tool| ToolSource::from_descriptor(tool))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn new_takes_the_family_from_the_name() {
        let source = ToolSource::new("scene_open", json!({"type": "object"}), json!({}));
        assert_eq!(source.meta.name, "scene_open");
        assert_eq!(source.meta.family, "scene");
        assert!(source.meta.description.is_empty() && source.meta.aliases.is_empty());
        assert!(!source.meta.threading.is_off_thread() && !source.meta.dangerous);
        assert!(source.meta.annotations.is_empty());
        assert_eq!(
            ToolSource::new("ping", json!({}), json!({})).meta.family,
            "ping"
        );
    }
}
