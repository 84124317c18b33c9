//! The `asset_` family: the files under `Assets/`.

mod delete;
mod material;
mod read;
mod relocate;
mod search;

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::project::paths::{self, ASSETS};
use crate::project::{Project, glob, meta};

/// What an asset is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AssetKind {
    /// A folder.
    Folder,
    /// A scene (`.scene`).
    Scene,
    /// A prefab (`.prefab`).
    Prefab,
    /// A material (`.mat`).
    Material,
    /// A C# script (`.cs`).
    Script,
    /// A shader (`.shader`).
    Shader,
    /// An image (`.png`, `.jpg`, `.tga`, `.psd`).
    Texture,
    /// A 3D model (`.fbx`, `.obj`, `.blend`).
    Model,
    /// A sound (`.wav`, `.mp3`, `.ogg`).
    Audio,
    /// Anything else.
    Other,
}

impl AssetKind {
    /// The kind of the file at `path`.
    pub fn of_file(path: &str) -> Self {
        let extension = paths::extension_of(path).map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("scene") => AssetKind::Scene,
            Some("prefab") => AssetKind::Prefab,
            Some("mat") => AssetKind::Material,
            Some("cs") => AssetKind::Script,
            Some("shader") => AssetKind::Shader,
            Some("png" | "jpg" | "jpeg" | "tga" | "psd") => AssetKind::Texture,
            Some("fbx" | "obj" | "blend") => AssetKind::Model,
            Some("wav" | "mp3" | "ogg") => AssetKind::Audio,
            _ => AssetKind::Other,
        }
    }
}

/// One asset in a listing.
#[derive(Debug, Serialize, JsonSchema)]
struct AssetEntry {
    /// The path, relative to the project folder.
    path: String,
    /// What it is.
    kind: AssetKind,
    /// Its size in bytes (0 for a folder).
    bytes: u64,
}

/// The assets found.
#[derive(Debug, Serialize, JsonSchema)]
struct AssetListing {
    /// The folder listed.
    folder: String,
    /// How many assets matched in all.
    total_count: usize,
    /// The matches, sorted by path, at most `max_results`.
    assets: Vec<AssetEntry>,
    /// Whether matches were left out because of `max_results`.
    truncated: bool,
}

/// Lists the files and folders under a folder of `Assets/`, optionally only those matching a
/// glob (`*.mat`, `Assets/Prefabs/**`) or of given kinds.
#[buril::tool(off_thread, read_only, idempotent, title = "List assets")]
fn asset_list(
    /// The folder to list. Default: `Assets`.
    folder: Option<String>,
    /// A glob over paths (`*` within a folder, `**` across folders, `?` one character); a
    /// pattern without `/` matches file names, e.g. `*.prefab`.
    pattern: Option<String>,
    /// Only these kinds, e.g. `["material", "prefab"]`. Default: every kind.
    kinds: Option<Vec<AssetKind>>,
    /// Descend into subfolders. Default: true.
    recursive: Option<bool>,
    /// At most this many assets (1 to 2000). Default: 200.
    max_results: Option<u32>,
    ctx: &buril::Context,
) -> Result<AssetListing, ToolError> {
    let folder = paths::asset(folder.as_deref().unwrap_or(ASSETS), "folder")?;
    let project = ctx.state::<Project>()?;
    let max = usize::try_from(max_results.unwrap_or(200).clamp(1, 2000)).unwrap_or(2000);
    let matching: Vec<AssetEntry> = project
        .walk(&folder, recursive.unwrap_or(true))?
        .into_iter()
        .filter(|e| pattern.as_ref().is_none_or(|p| glob::matches(p, &e.path)))
        .map(|e| AssetEntry {
            kind: if e.is_dir {
                AssetKind::Folder
            } else {
                AssetKind::of_file(&e.path)
            },
            path: e.path,
            bytes: e.bytes,
        })
        .filter(|e| kinds.as_ref().is_none_or(|k| k.contains(&e.kind)))
        .collect();
    let total_count = matching.len();
    let assets: Vec<AssetEntry> = matching.into_iter().take(max).collect();
    Ok(AssetListing {
        folder,
        total_count,
        truncated: total_count > assets.len(),
        assets,
    })
}

/// The result of creating a folder.
#[derive(Debug, Serialize, JsonSchema)]
struct FolderCreated {
    /// The folder.
    path: String,
    /// false when it existed already.
    created: bool,
}

/// Creates a folder under `Assets/`, with any missing parents, each with its `.meta`. Succeeds
/// without change when it exists.
#[buril::tool(idempotent, title = "Create folder")]
fn asset_create_folder(
    /// The folder, e.g. `Assets/Prefabs/Enemies`.
    path: String,
    ctx: &buril::Context,
) -> Result<FolderCreated, ToolError> {
    let path = paths::asset(&path, "path")?;
    let project = ctx.state::<Project>()?;
    let absolute = project.file(&path)?;
    if absolute.is_dir() {
        return Ok(FolderCreated {
            path,
            created: false,
        });
    }
    if absolute.exists() {
        return Err(ToolError::invalid(format!(
            "`{path}` is a file, not a folder; pick another name"
        )));
    }
    meta::create_folders(&project.file(ASSETS)?, &absolute)?;
    Ok(FolderCreated {
        path,
        created: true,
    })
}
