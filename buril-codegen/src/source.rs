//! What the generator reads: one [`ToolSource`] per tool, taken from a registry or built by
//! hand (tests, fuzzing, tools from another process's `list --json`).

use std::io::{self, Write};

use serde_json::Value;

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
    /// The metadata of a tool given by hand: its wire name and schemas, in the family of the
    /// name's first segment (as `#[tool]` defaults it), with no description, no aliases, no
    /// annotations, on the main thread and not dangerous. Set other fields with struct update
    /// syntax: `ToolSource { description: "…".into(), ..ToolSource::new(name, input, output) }`.
    pub fn new(name: impl Into<String>, input_schema: Value, output_schema: Value) -> Self {
        let name = name.into();
        let family = name.split('_').next().unwrap_or_default().to_owned();
        ToolSource {
            name,
            description: String::new(),
            family,
            aliases: Vec::new(),
            input_schema,
            output_schema,
            dangerous: false,
            off_thread: false,
            title: None,
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
        }
    }

    /// The metadata of a registered tool.
    pub fn from_descriptor(tool: &buril::ToolDescriptor) -> Self {
        let annotations = tool.annotations();
        ToolSource {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            family: tool.family().to_owned(),
            aliases: tool.aliases().iter().map(|a| a.to_string()).collect(),
            input_schema: tool.input_schema().clone(),
            output_schema: tool.output_schema().clone(),
            dangerous: tool.is_dangerous(),
            off_thread: tool.is_off_thread(),
            title: annotations.title.as_deref().map(str::to_owned),
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

    /// Writes the metadata as compact JSON, in the field order of the hash's definition, without
    /// building a JSON value (the hash streams it). The schemas are given as their compact JSON
    /// text (what the IR embeds), so that they are serialized once.
    fn write_json(&self, schemas: [&str; 2], out: &mut impl Write) -> io::Result<()> {
        // A macro, not a generic function: this crate does not name serde's traits.
        macro_rules! field {
            ($key:expr, $value:expr) => {
                out.write_all($key.as_bytes())?;
                serde_json::to_writer(&mut *out, $value).map_err(io::Error::other)?;
            };
        }
        field!("{\"name\":", &self.name);
        field!(",\"description\":", &self.description);
        field!(",\"family\":", &self.family);
        field!(",\"aliases\":", &self.aliases);
        out.write_all(b",\"inputSchema\":")?;
        out.write_all(schemas[0].as_bytes())?;
        out.write_all(b",\"outputSchema\":")?;
        out.write_all(schemas[1].as_bytes())?;
        field!(",\"dangerous\":", &self.dangerous);
        field!(",\"offThread\":", &self.off_thread);
        field!(",\"title\":", &self.title);
        field!(",\"readOnly\":", &self.read_only);
        field!(",\"destructive\":", &self.destructive);
        field!(",\"idempotent\":", &self.idempotent);
        field!(",\"openWorld\":", &self.open_world);
        out.write_all(b"}")
    }
}

/// FNV-1a (64 bits, hex) of the tools' metadata, sorted by name: the same tools give the same
/// hash on every machine, and any change to a name, description or schema changes it.
///
/// The JSON of each tool is `{"name": …, "description": …, "family": …, "aliases": …,
/// "inputSchema": …, "outputSchema": …, "dangerous": …, "offThread": …, "title": …,
/// "readOnly": …, "destructive": …, "idempotent": …, "openWorld": …}` in compact form, followed
/// by a zero byte; it is streamed into the hash, never built. Each source comes with the compact
/// JSON text of its input and output schemas.
pub(crate) fn metadata_hash<'a>(
    sources: impl IntoIterator<Item = (&'a ToolSource, [&'a str; 2])>,
) -> String {
    let mut hash = Fnv1a(0xcbf2_9ce4_8422_2325);
    for (source, schemas) in sources {
        // Writing into the hash cannot fail.
        let _ = source.write_json(schemas, &mut hash);
        hash.byte(0);
    }
    format!("{:016x}", hash.0)
}

/// FNV-1a over the bytes written into it.
struct Fnv1a(u64);

impl Fnv1a {
    #[inline]
    fn byte(&mut self, byte: u8) {
        self.0 ^= u64::from(byte);
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

impl Write for Fnv1a {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for &byte in bytes {
            self.byte(byte);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn new_takes_the_family_from_the_name() {
        let source = ToolSource::new("scene_open", json!({"type": "object"}), json!({}));
        assert_eq!(source.name, "scene_open");
        assert_eq!(source.family, "scene");
        assert!(source.description.is_empty() && source.aliases.is_empty());
        assert!(!source.off_thread && !source.dangerous && source.title.is_none());
        assert_eq!(ToolSource::new("ping", json!({}), json!({})).family, "ping");
    }

    /// The streamed JSON is the JSON value the hash was defined over, byte for byte, so the
    /// hashes of committed bindings do not change.
    #[test]
    fn streamed_json_matches_the_value() {
        let source = ToolSource {
            name: "scene_open".into(),
            description: "Opens a \"scene\".\nSecond line.".into(),
            family: "scene".into(),
            aliases: vec!["scene_load".into()],
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}},
                                 "required": ["path"], "additionalProperties": false}),
            output_schema: json!({"type": "object", "properties": {}}),
            dangerous: false,
            off_thread: true,
            title: Some("Open".into()),
            read_only: None,
            destructive: Some(false),
            idempotent: Some(true),
            open_world: None,
        };
        let value = json!({
            "name": source.name,
            "description": source.description,
            "family": source.family,
            "aliases": source.aliases,
            "inputSchema": source.input_schema,
            "outputSchema": source.output_schema,
            "dangerous": source.dangerous,
            "offThread": source.off_thread,
            "title": source.title,
            "readOnly": source.read_only,
            "destructive": source.destructive,
            "idempotent": source.idempotent,
            "openWorld": source.open_world,
        });
        let mut streamed = Vec::new();
        let schemas = [
            serde_json::to_string(&source.input_schema).unwrap(),
            serde_json::to_string(&source.output_schema).unwrap(),
        ];
        source
            .write_json([&schemas[0], &schemas[1]], &mut streamed)
            .unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), value.to_string());
    }
}
