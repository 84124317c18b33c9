//! The envelope as an MCP `CallToolResult`, and large results written to files.

use std::path::PathBuf;

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde::Deserialize as _;
use serde_json::{Map, Value, json};

use super::handshake::METADATA_META;
use super::state::ServerState;
use buril_core::Outcome;
use buril_core::ToolDescriptor;
use buril_core::frontend::OutputShape;
use buril_core::frontend::{resource_link, result_kind, write_binary_blocks, write_result_file};

/// The `_meta` key that carries a failed call's whole envelope.
pub(crate) const ENVELOPE_META: &str = "buril/envelope";

/// The `_meta` key that carries a successful call's warnings (a deprecated alias, bindings of
/// other metadata), which are also given as text blocks after the data.
pub(crate) const WARNINGS_META: &str = "buril/warnings";

/// The `_meta` key that says a successful result holds content blocks: `"content"` (the
/// blocks are the result's content, before any warnings) or `"rich"` (the first text block is
/// the JSON of the structured data, the blocks follow it).
pub(crate) const RESULT_META: &str = "buril/result";

/// The result of a call: on success `structuredContent` (the data) and a text copy, or a note
/// pointing at a file when the data is large; a tool returning content blocks answers with them
/// (and a [`Rich`](buril_core::content::Rich) tool with its structured data too); on failure `isError` with
/// the envelope's message.
pub(crate) fn call_result(
    state: &ServerState,
    tool: &ToolDescriptor,
    outcome: Outcome,
) -> CallToolResult {
    let warnings: Vec<String> = outcome.warnings().to_vec();
    if !outcome.is_ok() {
        let envelope = outcome.to_envelope();
        let message = outcome
            .error()
            .map(|error| error.message().to_owned())
            .unwrap_or_default();
        let mut content = vec![ContentBlock::text(message)];
        content.extend(warnings.into_iter().map(ContentBlock::text));
        let mut meta = server_meta(state);
        meta.insert(ENVELOPE_META.into(), envelope);
        return CallToolResult::error(content).with_meta(Some(MetaObject(meta)));
    }
    let data = outcome.into_result().unwrap_or(Value::Null);
    let kind = result_kind(tool.output_schema());
    let (mut content, structured) = match kind {
        Some("content") => {
            let list = match data {
                Value::Object(mut parts) => parts.remove("content").unwrap_or(Value::Null),
                _ => Value::Null,
            };
            (blocks(state, tool.name(), list, None), None)
        }
        Some("rich") => {
            let mut parts = match data {
                Value::Object(parts) => parts,
                _ => Map::new(),
            };
            // The text is the tool's value itself; `structuredContent` wraps it when it is not
            // an object, as the MCP output schema says.
            let structured = parts.remove("structured").unwrap_or(Value::Null);
            let text = serde_json::to_string(&structured).unwrap_or_default();
            let structured = rich_structured(structured);
            let blocks = blocks(
                state,
                tool.name(),
                parts.remove("content").unwrap_or(Value::Null),
                Some(text),
            );
            (blocks, Some(structured))
        }
        // A tool returning text: the text itself, not its wrapper's JSON (`structuredContent`
        // keeps the `{"result": …}` object MCP's output schema needs).
        _ if tool.output_shape() == OutputShape::Wrapped
            && data.get("result").is_some_and(Value::is_string) =>
        {
            let text = data["result"].as_str().unwrap_or_default().to_owned();
            let limit = state.max_result_bytes;
            let content = if limit == 0 || text.len() <= limit {
                vec![ContentBlock::text(text)]
            } else {
                data_text(state, tool.name(), &data)
            };
            (content, Some(data))
        }
        _ => (data_text(state, tool.name(), &data), Some(data)),
    };
    let mut meta = server_meta(state);
    if !warnings.is_empty() {
        meta.insert(WARNINGS_META.into(), json!(warnings));
    }
    if let Some(kind) = kind {
        meta.insert(RESULT_META.into(), kind.into());
    }
    content.extend(warnings.into_iter().map(ContentBlock::text));
    let mut result = CallToolResult::success(content).with_meta(Some(MetaObject(meta)));
    result.structured_content = structured;
    result
}

/// The text block copying a call's data, or a note and a link to the file it was written to
/// when it is larger than the server sends.
fn data_text(state: &ServerState, tool: &str, data: &Value) -> Vec<ContentBlock> {
    let text = serde_json::to_string(data).unwrap_or_default();
    let limit = state.max_result_bytes;
    if limit == 0 || text.len() <= limit {
        return vec![ContentBlock::text(text)];
    }
    match spill(state, tool, data) {
        Ok((path, size)) => vec![
            ContentBlock::text(format!(
                "The result of `{tool}` is {} bytes of JSON, more than this server sends in a \
                 reply ({limit} bytes), so it was written to the file {} ({size} bytes). Read \
                 that file for the data, or call the tool again with narrower input.",
                text.len(),
                path.display()
            )),
            block(resource_link(&path, size, "application/json")),
        ],
        Err(error) => vec![
            ContentBlock::text(text),
            ContentBlock::text(format!(
                "The result is larger than {limit} bytes but could not be written to a file \
                 ({error}), so it is given in full."
            )),
        ],
    }
}

/// The content blocks a tool returned (after `first`, the text of a `Rich` tool's data). When
/// they are larger than the server sends in a reply, the bytes of images, sounds and blobs are
/// written to files and linked to instead, with a text block saying so.
fn blocks(
    state: &ServerState,
    tool: &str,
    blocks: Value,
    first: Option<String>,
) -> Vec<ContentBlock> {
    let Value::Array(mut blocks) = blocks else {
        return first.into_iter().map(ContentBlock::text).collect();
    };
    let limit = state.max_result_bytes;
    let mut note = None;
    if limit > 0 {
        let size = serde_json::to_string(&blocks).map_or(0, |text| text.len());
        if size > limit {
            match write_binary_blocks(&mut blocks, &state.output_dir, tool, state.keep_results) {
                Ok(0) => {}
                Ok(written) => {
                    note = Some(format!(
                        "The result of `{tool}` is {size} bytes, more than this server sends in \
                         a reply ({limit} bytes), so the data of {written} of its blocks was \
                         written to files, linked to below."
                    ));
                }
                Err(error) => {
                    note = Some(format!(
                        "The result is larger than {limit} bytes but its binary data could not \
                         be written to a file ({error}), so it is given in full."
                    ));
                }
            }
        }
    }
    first
        .into_iter()
        .chain(note)
        .map(ContentBlock::text)
        .chain(blocks.into_iter().map(block))
        .collect()
}

/// A content block from its JSON (every block buril writes is one; anything else is given as
/// its JSON text). Read from the JSON in place: a block may hold megabytes of base64.
fn block(value: Value) -> ContentBlock {
    match ContentBlock::deserialize(&value) {
        Ok(block) => block,
        Err(_) => ContentBlock::text(value.to_string()),
    }
}

/// What every result's `_meta` carries: the server's metadata hash.
pub(crate) fn server_meta(state: &ServerState) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(
        METADATA_META.into(),
        Value::String(state.registry.metadata_hash().to_owned()),
    );
    meta
}

/// Writes `data` (pretty-printed) to a new file in the output folder; answers its path and
/// size.
fn spill(state: &ServerState, tool: &str, data: &Value) -> std::io::Result<(PathBuf, u64)> {
    let mut bytes = serde_json::to_vec_pretty(data).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let path = write_result_file(&state.output_dir, tool, "json", &bytes, state.keep_results)?;
    Ok((path, bytes.len() as u64))
}

/// The `structuredContent` of a [`Rich`](buril_core::content::Rich) tool's data: its structured value, wrapped as
/// `{"result": …}` when it is not an object (as its MCP output schema says).
fn rich_structured(structured: Value) -> Value {
    if structured.is_object() {
        structured
    } else {
        let mut map = Map::new();
        map.insert("result".into(), structured);
        Value::Object(map)
    }
}
