//! What the generator reads: one [`ToolSource`] per tool, taken from a registry or built by
//! hand (tests, fuzzing, tools from another process's `list --json`).

use serde_json::{Value, json};

/// The metadata of one tool, as the writers need it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSource {
    /// The wire name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The family.
    pub family: String,
    /// Deprecated former names.
    pub aliases: Vec<String>,
    /// The input JSON Schema (root `type: "object"`).
    pub input_schema: Value,
    /// The output JSON Schema (root `type: "object"`): the envelope's `data`.
    pub output_schema: Value,
    /// Off until a host enables it.
    pub dangerous: bool,
    /// May run off the main thread.
    pub off_thread: bool,
    /// MCP `title`.
    pub title: Option<String>,
    /// MCP `readOnlyHint`.
    pub read_only: Option<bool>,
    /// MCP `destructiveHint`.
    pub destructive: Option<bool>,
    /// MCP `idempotentHint`.
    pub idempotent: Option<bool>,
    /// MCP `openWorldHint`.
    pub open_world: Option<bool>,
}

impl ToolSource {
    /// The metadata of a registered tool.
    pub fn from_descriptor(tool: &buril::ToolDescriptor) -> Self {
        let annotations = tool.annotations();
        ToolSource {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            family: tool.family().to_owned(),
            aliases: tool.aliases().iter().map(|a| (*a).to_owned()).collect(),
            input_schema: tool.input_schema().clone(),
            output_schema: tool.output_schema().clone(),
            dangerous: tool.is_dangerous(),
            off_thread: tool.is_off_thread(),
            title: annotations.title.map(str::to_owned),
            read_only: annotations.read_only,
            destructive: annotations.destructive,
            idempotent: annotations.idempotent,
            open_world: annotations.open_world,
        }
    }

    /// Every tool of a registry, sorted by name.
    pub fn from_registry(registry: &buril::Registry) -> Vec<ToolSource> {
        registry.iter().map(ToolSource::from_descriptor).collect()
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "family": self.family,
            "aliases": self.aliases,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "dangerous": self.dangerous,
            "offThread": self.off_thread,
            "title": self.title,
            "readOnly": self.read_only,
            "destructive": self.destructive,
            "idempotent": self.idempotent,
            "openWorld": self.open_world,
        })
    }
}

/// FNV-1a (64 bits, hex) of the tools' metadata, sorted by name: the same tools give the same
/// hash on every machine, and any change to a name, description or schema changes it.
pub(crate) fn metadata_hash(sources: &[&ToolSource]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for source in sources {
        for byte in source.to_json().to_string().bytes().chain([0u8]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}
