//! `asset_move`: moving and renaming assets, keeping references working.

use std::fs;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::paths::{self, ASSETS};
use crate::project::{Project, meta};

/// The result of a move.
#[derive(Debug, Serialize, JsonSchema)]
struct Moved {
    /// Where the asset was.
    from: String,
    /// Where it is now.
    to: String,
    /// How many files moved (a folder moves with everything in it).
    files_moved: usize,
    /// Open scenes whose file moved; they stay open under the new path.
    moved_open_scenes: Vec<String>,
    /// Scenes and prefabs whose references to the moved path were updated. Open scenes are
    /// updated in memory and marked unsaved; the others are rewritten on disk.
    updated_references: Vec<String>,
}

/// Moves or renames an asset or a folder under `Assets/`, as the editor does: its `.meta` (and
/// so its GUID) goes with it, open scenes follow their files, and references to the old path in scenes and prefabs (a renderer's
/// `material`, say) are updated. The extension of a file cannot change.
#[buril::tool(title = "Move asset")]
fn asset_move(
    /// The asset or folder to move, e.g. `Assets/Materials/Red.mat`.
    from: String,
    /// The new path, e.g. `Assets/Art/Materials/Red.mat`; it must not exist yet.
    to: String,
    ctx: &buril::Context,
) -> Result<Moved, ToolError> {
    let from = paths::asset(&from, "from")?;
    let to = paths::asset(&to, "to")?;
    if from == ASSETS || to == ASSETS {
        return Err(ToolError::invalid(
            "the `Assets` folder itself cannot move; move something inside it",
        ));
    }
    let project = ctx.state::<Project>()?;
    let source = project.file(&from)?;
    let target = project.file(&to)?;
    if !source.exists() {
        return Err(ToolError::invalid(format!(
            "no asset at `{from}`; asset_list lists the assets"
        )));
    }
    if target.exists() {
        return Err(ToolError::invalid(format!(
            "`{to}` already exists; pick another path, or delete it first with asset_delete"
        )));
    }
    if paths::is_within(&to, &from) {
        return Err(ToolError::invalid(format!(
            "cannot move `{from}` into itself (`{to}`)"
        )));
    }
    let is_dir = source.is_dir();
    if !is_dir && paths::extension_of(&from) != paths::extension_of(&to) {
        return Err(ToolError::invalid(format!(
            "`to` must keep the extension of `{from}`: the extension decides what the asset is"
        )));
    }
    let files_moved = if is_dir {
        project
            .walk(&from, true)?
            .iter()
            .filter(|e| !e.is_dir)
            .count()
    } else {
        1
    };
    if let Some(folder) = target.parent() {
        meta::create_folders(&project.file(ASSETS)?, folder)?;
    }
    fs::rename(&source, &target)?;
    // The GUID moves with the asset, so references by GUID keep working.
    meta::follow(&source, &target)?;

    let relocated = |path: &str| -> Option<String> {
        if paths::is_within(path, &from) {
            Some(format!("{to}{}", &path[from.len()..]))
        } else {
            None
        }
    };
    let mut editor = project.editor();
    let mut moved_open_scenes = Vec::new();
    let mut updated_references = Vec::new();
    let active = editor.active.clone();
    for open in &mut editor.scenes {
        if let Some(path) = relocated(&open.path) {
            moved_open_scenes.push(open.name().to_owned());
            open.path = path;
        }
        if open.scene.rewrite_references(&from, &to) > 0 {
            open.dirty = true;
            updated_references.push(open.path.clone());
        }
    }
    editor.active = active.map(|a| relocated(&a).unwrap_or(a));
    // In play mode the scenes come back from the snapshot when it stops: move them there too.
    for open in editor.play_snapshot.iter_mut().flatten() {
        if let Some(path) = relocated(&open.path) {
            open.path = path;
        }
        if open.scene.rewrite_references(&from, &to) > 0 {
            open.dirty = true;
        }
    }
    if !moved_open_scenes.is_empty() {
        project.save_session(&editor)?;
    }
    for entry in project.walk(ASSETS, true)? {
        let kind = paths::extension_of(&entry.path);
        if entry.is_dir
            || !matches!(kind, Some("scene" | "prefab"))
            || editor.by_path(&entry.path).is_some()
        {
            continue;
        }
        let Ok(mut scene) = project.load_scene(&entry.path) else {
            continue;
        };
        if scene.rewrite_references(&from, &to) > 0 {
            project.write(&entry.path, scene.to_json()?.as_bytes())?;
            updated_references.push(entry.path);
        }
    }
    updated_references.sort();
    Ok(Moved {
        from,
        to,
        files_moved,
        moved_open_scenes,
        updated_references,
    })
}
