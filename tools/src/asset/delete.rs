//! `asset_delete`: removing assets, off unless the host enables it.

use std::fs;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::paths::{self, ASSETS};
use crate::project::{Project, meta};

/// The result of a deletion.
#[derive(Debug, Serialize, JsonSchema)]
struct Deleted {
    /// What was deleted.
    path: String,
    /// How many files were deleted.
    files_deleted: usize,
    /// How many bytes they held.
    bytes_freed: u64,
    /// Scenes and prefabs that still refer to the deleted path and now have a missing
    /// reference.
    broken_references: Vec<String>,
}

/// Deletes an asset, or a folder with `recursive`, from disk for good (there is no undo), with
/// its `.meta`.
/// Open scenes cannot be deleted; close them first. Reports scenes and prefabs left with a
/// reference to what was deleted.
#[buril::tool(dangerous, confirm, destructive, title = "Delete asset")]
fn asset_delete(
    /// The asset or folder to delete, e.g. `Assets/Materials/Old.mat`.
    path: String,
    /// Delete a folder that is not empty, with everything in it. Default: false.
    recursive: Option<bool>,
    ctx: &buril::Context,
) -> Result<Deleted, ToolError> {
    let path = paths::asset(&path, "path")?;
    if path == ASSETS {
        return Err(ToolError::invalid(
            "refusing to delete the `Assets` folder itself; delete what is inside it one by one",
        ));
    }
    let project = ctx.state::<Project>()?;
    let absolute = project.file(&path)?;
    if !absolute.exists() {
        return Err(ToolError::invalid(format!(
            "no asset at `{path}`; asset_list lists the assets"
        )));
    }
    let editor = project.editor();
    if let Some(open) = editor
        .scenes
        .iter()
        .find(|s| paths::is_within(&s.path, &path))
    {
        return Err(ToolError::invalid(format!(
            "scene {} is open; close it with scene_close before deleting `{path}`",
            open.name()
        )));
    }
    let (files_deleted, bytes_freed) = if absolute.is_dir() {
        let files: Vec<_> = project
            .walk(&path, true)?
            .into_iter()
            .filter(|e| !e.is_dir)
            .collect();
        if !files.is_empty() && recursive != Some(true) {
            return Err(ToolError::invalid(format!(
                "`{path}` is a folder holding {} files; pass recursive: true to delete it with \
                 everything in it",
                files.len()
            )));
        }
        fs::remove_dir_all(&absolute)?;
        meta::remove(&absolute)?;
        (files.len(), files.iter().map(|e| e.bytes).sum())
    } else {
        let bytes = fs::metadata(&absolute)?.len();
        fs::remove_file(&absolute)?;
        meta::remove(&absolute)?;
        (1, bytes)
    };
    let mut broken_references: Vec<String> = editor
        .scenes
        .iter()
        .filter(|s| s.scene.references(&path))
        .map(|s| s.path.clone())
        .collect();
    for entry in project.walk(ASSETS, true)? {
        let kind = paths::extension_of(&entry.path);
        if entry.is_dir
            || !matches!(kind, Some("scene" | "prefab"))
            || editor.by_path(&entry.path).is_some()
        {
            continue;
        }
        if project
            .load_scene(&entry.path)
            .is_ok_and(|scene| scene.references(&path))
        {
            broken_references.push(entry.path);
        }
    }
    broken_references.sort();
    Ok(Deleted {
        path,
        files_deleted,
        bytes_freed,
        broken_references,
    })
}
