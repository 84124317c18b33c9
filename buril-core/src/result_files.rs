//! Results written to files: a large result, or the bytes of an image, a sound or a blob, put
//! where the caller can read them instead of in a reply or on a terminal.
//!
//! Files are named `TOOL-MILLIS-N.EXT` (the tool, when it was written in milliseconds since the
//! Unix epoch, a number unique in the process), so that old ones can be pruned by name.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The default folder for large results and the bytes of binary content, relative to the
/// current folder.
pub const DEFAULT_OUTPUT_DIR: &str = ".buril/outputs";

/// The number of the next file this process writes.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to a new file `TOOL-MILLIS-N.EXT` in `dir` (created if missing); answers its
/// absolute path. With `keep`, files of that form older than `keep` are removed.
pub fn write(
    dir: &Path,
    tool: &str,
    extension: &str,
    bytes: &[u8],
    keep: Option<Duration>,
) -> io::Result<PathBuf> {
    let dir = &std::path::absolute(dir)?;
    std::fs::create_dir_all(dir)?;
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let number = WRITTEN.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!("{tool}-{millis}-{number}.{extension}"));
    // Written beside it and renamed whole: a file cut short (a full disk, a size limit) is
    // removed, never left under the name a reader would find.
    let staged = dir.join(format!(".{tool}-{millis}-{number}.{extension}.part"));
    if let Err(error) =
        std::fs::write(&staged, bytes).and_then(|()| std::fs::rename(&staged, &path))
    {
        let _ = std::fs::remove_file(&staged);
        return Err(error);
    }
    if let Some(keep) = keep {
        prune(dir, millis.saturating_sub(keep.as_millis()));
    }
    Ok(path)
}

/// Replaces each block of `blocks` that carries bytes (an image, a sound, a blob resource) by a
/// `resource_link` to a file holding those bytes. Answers how many were written; a block whose
/// data is not base64 is left as it is.
pub fn write_binary_blocks(
    blocks: &mut [Value],
    dir: &Path,
    tool: &str,
    keep: Option<Duration>,
) -> io::Result<usize> {
    let mut written = 0;
    for block in blocks {
        let Some((data, mime)) = binary_of(block) else {
            continue;
        };
        let Some(bytes) = data.as_str().and_then(|text| decode_base64(text).ok()) else {
            continue;
        };
        let path = write(dir, tool, extension_for(&mime), &bytes, keep)?;
        *block = resource_link(&path, bytes.len() as u64, &mime);
        written += 1;
    }
    Ok(written)
}

/// Removes the files [`write`] wrote (`TOOL-MILLIS-N.EXT`) before `before` (milliseconds since
/// the Unix epoch, from the name). Other files are left alone; failures are ignored (a file
/// another process removed first, say).
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

/// When a result file was written, from its name: `TOOL-MILLIS-N.EXT`.
fn written_at(name: &str) -> Option<u128> {
    let (stem, extension) = name.rsplit_once('.')?;
    if extension.is_empty() || !extension.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
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
pub fn resource_link(path: &Path, size: u64, mime: &str) -> Value {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({
        "type": "resource_link",
        "uri": file_uri(path),
        "name": name,
        "mimeType": mime,
        "size": size,
    })
}

/// `file://` URI of an absolute path, percent-encoding every byte outside the unreserved set
/// and `/`.
pub fn file_uri(path: &Path) -> String {
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

/// The bytes a block carries in base64, its MIME type and the key holding them (`data` of an
/// image or audio, `resource.blob` of an embedded resource); `None` for other blocks.
fn binary_of(block: &mut Value) -> Option<(&mut Value, String)> {
    let kind = block.get("type")?.as_str()?;
    match kind {
        "image" | "audio" => {
            let mime = block.get("mimeType")?.as_str()?.to_owned();
            Some((block.get_mut("data")?, mime))
        }
        "resource" => {
            let resource = block.get_mut("resource")?;
            let mime = resource
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("application/octet-stream")
                .to_owned();
            Some((resource.get_mut("blob")?, mime))
        }
        _ => None,
    }
}

/// Decodes base64 text (the standard alphabet, padded, as MCP sends it).
fn decode_base64(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    STANDARD.decode(text)
}

/// The usual file extension for a MIME type, `bin` when not known.
fn extension_for(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/json" => "json",
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        _ => "bin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_data_is_found_in_blocks() {
        let mut image =
            serde_json::to_value(crate::content::Content::from(crate::content::Image::png([
                1u8,
            ])))
            .unwrap();
        let (data, mime) = binary_of(&mut image).unwrap();
        assert_eq!((data.as_str(), mime.as_str()), (Some("AQ=="), "image/png"));
        let mut text = serde_json::to_value(crate::content::Content::text("x")).unwrap();
        assert!(binary_of(&mut text).is_none());
        let mut blob = serde_json::to_value(crate::content::Content::from(
            crate::content::Resource::blob("r:", "image/gif", [0u8]),
        ))
        .unwrap();
        assert_eq!(binary_of(&mut blob).unwrap().1, "image/gif");
    }

    #[test]
    fn result_file_names_tell_when_they_were_written() {
        assert_eq!(
            written_at("scene_list-1700000000000-3.json"),
            Some(1_700_000_000_000)
        );
        assert_eq!(written_at("a-b-c-12-0.json"), Some(12));
        assert_eq!(written_at("map_render-12-0.png"), Some(12));
        for other in [
            "notes.json",
            "x-12.json",
            "x-12-a.json",
            "-12-0.json",
            "x-12-0",
            "x-12-0.",
            "x-12-0.p g",
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

    #[test]
    fn binary_blocks_become_links_to_files_holding_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut blocks = vec![
            json!({"type": "text", "text": "a map"}),
            json!({"type": "image", "data": "AQID", "mimeType": "image/png"}),
            json!({"type": "resource", "resource": {"uri": "r:", "blob": "BA==", "mimeType": "application/pdf"}}),
            json!({"type": "audio", "data": "not base64!", "mimeType": "audio/wav"}),
        ];
        let written = write_binary_blocks(&mut blocks, dir.path(), "map", None).unwrap();
        assert_eq!(written, 2);
        assert_eq!(blocks[0]["type"], "text");
        assert_eq!(blocks[1]["type"], "resource_link");
        assert_eq!(blocks[1]["mimeType"], "image/png");
        assert_eq!(blocks[1]["size"], 3);
        let name = blocks[1]["name"].as_str().unwrap();
        assert!(name.ends_with(".png"), "{name}");
        assert_eq!(std::fs::read(dir.path().join(name)).unwrap(), [1, 2, 3]);
        assert!(blocks[2]["name"].as_str().unwrap().ends_with(".pdf"));
        assert_eq!(blocks[3]["type"], "audio", "left alone: not base64");
    }
}
