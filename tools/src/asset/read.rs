//! `asset_read`: the text of an asset, read without blocking the runtime.

use std::io;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use super::AssetKind;
use crate::project::Project;
use crate::project::paths;

/// Files larger than this are not read at all.
const LARGEST_FILE: u64 = 16 * 1024 * 1024;

/// The text of an asset.
#[derive(Debug, Serialize, JsonSchema)]
struct AssetText {
    /// The file.
    path: String,
    /// What it is.
    kind: AssetKind,
    /// The file's size in bytes.
    bytes: u64,
    /// The text, cut at `max_bytes`.
    content: String,
    /// Whether the text was cut.
    truncated: bool,
}

/// Reads a text asset (scene, prefab, material, script, shader, ...) and returns its contents,
/// cut at `max_bytes`. Binary files (textures, models, sounds) are refused.
#[buril::tool(off_thread, read_only, idempotent, title = "Read asset")]
async fn asset_read(
    /// The file, e.g. `Assets/Scripts/PlayerController.cs`.
    path: String,
    /// At most this many bytes of text (1 to 1048576). Default: 65536.
    max_bytes: Option<u32>,
    ctx: &buril::Context,
) -> Result<AssetText, ToolError> {
    let path = paths::asset(&path, "path")?;
    let project = ctx.state::<Project>()?;
    let file = project.file(&path)?;
    let metadata = match tokio::fs::metadata(&file).await {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(ToolError::invalid(format!(
                "no asset at `{path}`; asset_list lists the assets"
            )));
        }
        Err(error) => return Err(error.into()),
    };
    if metadata.is_dir() {
        return Err(ToolError::invalid(format!(
            "`{path}` is a folder; asset_list lists what is in it"
        )));
    }
    if metadata.len() > LARGEST_FILE {
        return Err(ToolError::invalid(format!(
            "`{path}` is {} bytes, too large to read as text",
            metadata.len()
        )));
    }
    let bytes = tokio::fs::read(&file).await?;
    let total = bytes.len() as u64;
    let mut content = String::from_utf8(bytes).map_err(|_| {
        ToolError::invalid(format!(
            "`{path}` is a binary file ({total} bytes); asset_read reads text assets only"
        ))
    })?;
    let max = usize::try_from(max_bytes.unwrap_or(65536).clamp(1, 1 << 20)).unwrap_or(1 << 20);
    let truncated = content.len() > max;
    if truncated {
        let mut cut = max;
        while !content.is_char_boundary(cut) {
            cut -= 1;
        }
        content.truncate(cut);
    }
    Ok(AssetText {
        kind: AssetKind::of_file(&path),
        path,
        bytes: total,
        content,
        truncated,
    })
}
