//! The root of the IR: the tools and the named types they use.

use std::collections::BTreeMap;

use super::types::TypeDef;

/// Everything a writer needs: the tools, and every named type they use, sorted.
#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    /// The tools, sorted by name.
    pub tools: Vec<ToolDef>,
    /// Every named type, by name.
    pub types: BTreeMap<String, TypeDef>,
    /// A hash of the tool metadata (names, descriptions, schemas): changes when any of them do.
    pub hash: String,
    /// The version of the generator.
    pub generator_version: &'static str,
    /// Whether the tools are another MCP server's than buril's (`codegen --from-server`): the
    /// clients read its answers as buril's hub reads them (content blocks as `{content}`,
    /// `isError` as a `tool` failure), having no envelope of buril's to read.
    pub from_other_server: bool,
}

/// One tool: its metadata as the runtime registers it, and the names and texts the writers
/// derive from it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The name (`scene_open`), description, family, aliases, annotations and flags, as the
    /// tool's source gave them.
    pub meta: buril_core::ToolMeta,
    /// The name in PascalCase: `SceneOpen`.
    pub pascal: String,
    /// The name in camelCase: `sceneOpen`.
    pub camel: String,
    /// The name of the input type: a struct named `{Pascal}Input`.
    pub input_type: String,
    /// The name of the output type: a struct named `{Pascal}Output`.
    pub output_type: String,
    /// The input schema as compact JSON, to embed.
    pub input_schema_json: String,
    /// The output schema as compact JSON, to embed.
    pub output_schema_json: String,
}

impl ToolDef {
    /// The tool's own metadata hash, as the server computes it for the tool alone
    /// (`buril_core::ToolDescriptor::metadata_hash`): what generated clients send with each call as
    /// `_meta["buril/tool-metadata"]`.
    pub fn metadata_hash(&self) -> String {
        buril_core::metadata::hash([(
            &self.meta,
            [
                self.input_schema_json.as_str(),
                self.output_schema_json.as_str(),
            ],
        )])
    }
}
