//! The hash of tools' metadata: what every generated binding's header carries and what the MCP
//! server answers with, so that a client can tell bindings older than the server. The same tools
//! give the same hash on every machine, and any change to a name, description, flag, annotation
//! or schema changes it.
//!
//! ```
//! /// Greets someone.
//! #[buril::tool]
//! fn demo_greet(
//!     /// Who to greet.
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! /// Says goodbye to someone.
//! #[buril::tool]
//! fn demo_part(
//!     /// Who leaves.
//!     name: String,
//! ) -> String {
//!     format!("Goodbye, {name}!")
//! }
//!
//! let registry = buril::registry();
//! assert_eq!(registry.metadata_hash().len(), 16);
//! let greet = registry.get("demo_greet").unwrap();
//! let part = registry.get("demo_part").unwrap();
//! assert_ne!(greet.metadata_hash(), part.metadata_hash());
//! assert_ne!(greet.metadata_hash(), registry.metadata_hash());
//! ```

use std::io::{self, Write};

use crate::descriptor::{ToolDescriptor, ToolMeta};

impl ToolDescriptor {
    /// The hash of this tool's metadata alone ([`hash`] of it): the generated bindings carry it
    /// per tool, so that a server can say precisely which tool changed since they were
    /// generated.
    pub fn metadata_hash(&self) -> &str {
        self.hash.get_or_init(|| hash_descriptors([self]))
    }
}

/// [`hash`] of `tools`, their schemas serialized straight into the hash (no text of them is
/// kept: a registry of 10,000 tools held 5 MB of it while hashing).
pub(crate) fn hash_descriptors<'a>(tools: impl IntoIterator<Item = &'a ToolDescriptor>) -> String {
    // Each tool's schemas are looked at, not kept (a server hashes every tool as it starts).
    let mut hash = Hash::new();
    for tool in tools {
        tool.look_at_schemas(|input, output| {
            hash.add(tool.meta(), [Schema::Value(input), Schema::Value(output)]);
        });
    }
    hash.finish()
}

/// A schema as the hash reads it: its compact JSON text, given or written on the way.
#[derive(Clone, Copy)]
enum Schema<'a> {
    Text(&'a str),
    Value(&'a serde_json::Value),
}

impl Schema<'_> {
    fn write(self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Schema::Text(text) => out.write_all(text.as_bytes()),
            Schema::Value(value) => serde_json::to_writer(out, value).map_err(io::Error::other),
        }
    }
}

/// FNV-1a (64 bits, 16 hex digits) of the tools' metadata, in the order given (a registry's and
/// the bindings': sorted by name).
///
/// The JSON of each tool is `{"name": …, "description": …, "family": …, "aliases": …,
/// "inputSchema": …, "outputSchema": …, "dangerous": …, "offThread": …, "title": …,
/// "readOnly": …, "destructive": …, "idempotent": …, "openWorld": …}` in compact form, followed
/// by a zero byte; it is streamed into the hash, never built. The fields from `title` on are
/// [`Annotations`](crate::Annotations) as serde writes it, so that a new annotation is hashed without a
/// change here. `inline`, `blocking`, `returns_unit` and `location` are left out: they do not change the
/// bindings. Each tool comes with the compact JSON text of its input and output schemas.
pub fn hash<'a>(tools: impl IntoIterator<Item = (&'a ToolMeta, [&'a str; 2])>) -> String {
    hash_of(
        tools
            .into_iter()
            .map(|(meta, schemas)| (meta, schemas.map(Schema::Text))),
    )
}

/// [`hash`] of each tool's metadata and schemas, however the schemas are given.
fn hash_of<'a>(tools: impl IntoIterator<Item = (&'a ToolMeta, [Schema<'a>; 2])>) -> String {
    let mut hash = Hash::new();
    for (meta, schemas) in tools {
        hash.add(meta, schemas);
    }
    hash.finish()
}

/// [`hash`] taken one tool at a time.
struct Hash {
    hash: Fnv1a,
    /// The annotations' JSON on the way.
    annotations: Vec<u8>,
}

impl Hash {
    fn new() -> Self {
        Hash {
            hash: Fnv1a(0xcbf2_9ce4_8422_2325),
            annotations: Vec::with_capacity(128),
        }
    }

    fn add(&mut self, meta: &ToolMeta, schemas: [Schema<'_>; 2]) {
        // Writing into the hash cannot fail.
        let _ = write_json(meta, schemas, &mut self.annotations, &mut self.hash);
        self.hash.byte(0);
    }

    fn finish(self) -> String {
        format!("{:016x}", self.hash.0)
    }
}

/// Writes the metadata as compact JSON, in the field order of the hash's definition, without
/// building a JSON value. The schemas are given as their compact JSON text (what the IR
/// embeds), so that they are serialized once; `scratch` holds the annotations' JSON on the way.
fn write_json(
    meta: &ToolMeta,
    schemas: [Schema<'_>; 2],
    scratch: &mut Vec<u8>,
    out: &mut impl Write,
) -> io::Result<()> {
    // A macro, not a generic function: this crate does not name serde's traits.
    macro_rules! field {
        ($key:expr, $value:expr) => {
            out.write_all($key.as_bytes())?;
            serde_json::to_writer(&mut *out, $value).map_err(io::Error::other)?;
        };
    }
    field!("{\"name\":", &meta.name);
    field!(",\"description\":", &meta.description);
    field!(",\"family\":", &meta.family);
    field!(",\"aliases\":", &meta.aliases);
    out.write_all(b",\"inputSchema\":")?;
    schemas[0].write(&mut *out)?;
    out.write_all(b",\"outputSchema\":")?;
    schemas[1].write(&mut *out)?;
    field!(",\"dangerous\":", &meta.dangerous);
    field!(",\"offThread\":", &meta.threading.is_off_thread());
    // Only for task tools, so that every other tool's hash stays what it was.
    if meta.task.is_task() {
        field!(",\"task\":", meta.task.as_str());
    }
    // Likewise only for tools done in the editor.
    if meta.editor {
        field!(",\"editor\":", &true);
    }
    // The annotations' own object, spliced in: its `{` becomes the `,` after `offThread`, and
    // its `}` closes the tool's object.
    scratch.clear();
    serde_json::to_writer(&mut *scratch, &meta.annotations).map_err(io::Error::other)?;
    match scratch.split_first() {
        Some((b'{', b"}")) => out.write_all(b"}"),
        Some((b'{', members)) => {
            out.write_all(b",")?;
            out.write_all(members)
        }
        _ => Err(io::Error::other("the annotations are not a JSON object")),
    }
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
    use std::borrow::Cow;

    use serde_json::{Value, json};

    use super::*;

    /// The JSON value the hash was defined over, field by field, written out here rather than
    /// derived from the struct: a field that moves or changes its form shows up as a failure.
    fn defined_value(meta: &ToolMeta, input: &Value, output: &Value) -> Value {
        json!({
            "name": meta.name,
            "description": meta.description,
            "family": meta.family,
            "aliases": meta.aliases,
            "inputSchema": input,
            "outputSchema": output,
            "dangerous": meta.dangerous,
            "offThread": meta.threading.is_off_thread(),
            "title": meta.annotations.title,
            "readOnly": meta.annotations.read_only,
            "destructive": meta.annotations.destructive,
            "idempotent": meta.annotations.idempotent,
            "openWorld": meta.annotations.open_world,
        })
    }

    fn streamed(meta: &ToolMeta, input: &Value, output: &Value) -> String {
        let schemas = [
            serde_json::to_string(input).unwrap(),
            serde_json::to_string(output).unwrap(),
        ];
        let mut streamed = Vec::new();
        write_json(
            meta,
            [Schema::Text(&schemas[0]), Schema::Text(&schemas[1])],
            &mut Vec::new(),
            &mut streamed,
        )
        .unwrap();
        // The same with the schemas written on the way.
        let mut direct = Vec::new();
        write_json(
            meta,
            [Schema::Value(input), Schema::Value(output)],
            &mut Vec::new(),
            &mut direct,
        )
        .unwrap();
        assert_eq!(direct, streamed);
        String::from_utf8(streamed).unwrap()
    }

    fn described() -> ToolMeta {
        let mut meta = ToolMeta::new("scene_open");
        meta.description = "Opens a \"scene\".\nSecond line.".into();
        meta.aliases = Cow::Owned(vec!["scene_load".into()]);
        meta.threading = crate::descriptor::Threading::OffThread;
        meta.annotations.title = Some("Open".into());
        meta.annotations.destructive = Some(false);
        meta.annotations.idempotent = Some(true);
        meta
    }

    /// The streamed JSON is the JSON value the hash was defined over, byte for byte, so the
    /// hashes of committed bindings do not change: with no annotation, some, and all of them.
    #[test]
    fn streamed_json_matches_the_value() {
        let input = json!({"type": "object", "properties": {"path": {"type": "string"}},
                           "required": ["path"], "additionalProperties": false});
        let output = json!({"type": "object", "properties": {}});
        let plain = ToolMeta::new("ping");
        let described = described();
        let mut all = described.clone();
        all.dangerous = true;
        all.annotations.title = Some("T\u{2028}\"i\"".into());
        all.annotations.read_only = Some(true);
        all.annotations.open_world = Some(false);
        for meta in [plain, described, all] {
            let value = defined_value(&meta, &input, &output);
            assert_eq!(streamed(&meta, &input, &output), value.to_string());
        }
    }

    /// What is left out of the hash: the flags that do not change the bindings.
    #[test]
    fn inline_unit_and_location_are_not_hashed() {
        let schema = json!({"type": "object"});
        let text = schema.to_string();
        let hash = |meta: &ToolMeta| hash([(meta, [text.as_str(), text.as_str()])]);
        let meta = described();
        let mut other = meta.clone();
        other.threading = crate::descriptor::Threading::Inline;
        other.returns_unit = true;
        other.location = crate::descriptor::SourceLocation {
            file: "elsewhere.rs",
            line: 7,
            module: "elsewhere",
        };
        assert_eq!(hash(&meta), hash(&other));
        other.annotations.open_world = Some(true);
        assert_ne!(hash(&meta), hash(&other));
    }

    /// The hash of a fixed tool, computed apart from this code (FNV-1a over the compact JSON
    /// of the definition and a zero byte): the committed bindings' headers depend on it.
    #[test]
    fn a_known_hash() {
        let input = r#"{"type":"object"}"#;
        let meta = described();
        assert_eq!(hash([(&meta, [input, input])]), "6aebfcbb07e76ecf");
    }
}
