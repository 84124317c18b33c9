//! The envelope as an MCP `CallToolResult`, and large results written to files.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::{Map, Value, json};

use super::handshake::METADATA_META;
use super::state::ServerState;
use crate::envelope::Outcome;

/// The `_meta` key that carries a failed call's whole envelope.
pub(crate) const ENVELOPE_META: &str = "buril/envelope";

/// The `_meta` key that carries a successful call's warnings (a deprecated alias, bindings of
/// other metadata), which are also given as text blocks after the data.
pub(crate) const WARNINGS_META: &str = "buril/warnings";

/// The result of a call: on success `structuredContent` (the data) and a text copy, or a note
/// pointing at a file when the data is large; on failure `isError` with the envelope's message.
pub(crate) fn call_result(state: &ServerState, tool: &str, outcome: Outcome) -> CallToolResult {
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
    let text = serde_json::to_string(&data).unwrap_or_default();
    let mut content = Vec::new();
    let limit = state.max_result_bytes;
    if limit > 0 && text.len() > limit {
        match spill(state, tool, &data) {
            Ok((path, size)) => {
                content.push(ContentBlock::text(format!(
                    "The result of `{tool}` is {} bytes of JSON, more than this server sends in \
                     a reply ({limit} bytes), so it was written to the file {} ({size} bytes). \
                     Read that file for the data, or call the tool again with narrower input.",
                    text.len(),
                    path.display()
                )));
                content.push(resource_link(&path, size));
            }
            Err(error) => {
                content.push(ContentBlock::text(text));
                content.push(ContentBlock::text(format!(
                    "The result is larger than {limit} bytes but could not be written to a file \
                     ({error}), so it is given in full."
                )));
            }
        }
    } else {
        content.push(ContentBlock::text(text));
    }
    let mut meta = server_meta(state);
    if !warnings.is_empty() {
        meta.insert(WARNINGS_META.into(), json!(warnings));
    }
    content.extend(warnings.into_iter().map(ContentBlock::text));
    let mut result = CallToolResult::success(content).with_meta(Some(MetaObject(meta)));
    result.structured_content = Some(data);
    result
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
    std::fs::create_dir_all(&state.output_dir)?;
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let number = state.spilled.fetch_add(1, Ordering::Relaxed);
    let path = state
        .output_dir
        .join(format!("{tool}-{millis}-{number}.json"));
    let mut bytes = serde_json::to_vec_pretty(data).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    std::fs::write(&path, &bytes)?;
    if let Some(keep) = state.keep_results {
        prune(&state.output_dir, millis.saturating_sub(keep.as_millis()));
    }
    Ok((path, bytes.len() as u64))
}

/// Removes the results this server wrote (`TOOL-MILLIS-N.json`) before `before` (milliseconds
/// since the Unix epoch, from the name). Other files are left alone; failures are ignored (a
/// file another server removed first, say).
fn prune(dir: &Path, before: u128) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if let Some(written) = name.to_str().and_then(written_at)
            && written < before
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// When a result file was written, from its name: `TOOL-MILLIS-N.json`.
fn written_at(name: &str) -> Option<u128> {
    let stem = name.strip_suffix(".json")?;
    let mut parts = stem.rsplitn(3, '-');
    let number = parts.next()?;
    let millis = parts.next()?;
    let tool = parts.next()?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(number) && digits(millis) && !tool.is_empty())
        .then(|| millis.parse().ok())
        .flatten()
}

/// A `resource_link` content block to a local file.
fn resource_link(path: &Path, size: u64) -> ContentBlock {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let link = json!({
        "type": "resource_link",
        "uri": file_uri(path),
        "name": name,
        "mimeType": "application/json",
        "size": size,
    });
    serde_json::from_value(link).unwrap_or_else(|_| ContentBlock::text(file_uri(path)))
}

/// `file://` URI of an absolute path, percent-encoding every byte outside the unreserved set
/// and `/`.
pub(crate) fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::from("file://");
    if !text.starts_with('/') {
        uri.push('/');
    }
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_file_names_tell_when_they_were_written() {
        assert_eq!(
            written_at("scene_list-1700000000000-3.json"),
            Some(1_700_000_000_000)
        );
        assert_eq!(written_at("a-b-c-12-0.json"), Some(12));
        for other in [
            "notes.json",
            "x-12.json",
            "x-12-a.json",
            "-12-0.json",
            "x-12-0.txt",
        ] {
            assert_eq!(written_at(other), None, "{other}");
        }
    }

    #[test]
    fn file_uris_encode_what_they_must() {
        assert_eq!(
            file_uri(Path::new("/tmp/a b/x%y.json")),
            "file:///tmp/a%20b/x%25y.json"
        );
        assert_eq!(
            file_uri(Path::new("/p/scene_list-1-0.json")),
            "file:///p/scene_list-1-0.json"
        );
    }
}
