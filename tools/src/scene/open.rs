//! Opening, closing and activating scenes in the editor.

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use super::SceneSummary;
use crate::project::Project;
use crate::project::editor::OpenScene;
use crate::project::paths;

/// The result of opening a scene.
#[derive(Debug, Serialize, JsonSchema)]
struct OpenedScene {
    /// The scene now open and active.
    scene: SceneSummary,
    /// The names of every open scene, in order.
    open_scenes: Vec<String>,
    /// Scenes closed with their unsaved changes dropped (only with `discard_changes`).
    discarded_changes: Vec<String>,
}

/// Opens a scene file in the editor and makes it the active scene. By default the scene
/// replaces every open scene, loaded fresh from its file; this is refused while an open scene
/// has unsaved changes unless `discard_changes` is set. With `additive` the scene opens beside
/// the others (a scene already open just becomes active). Not allowed in play mode.
#[buril::tool(idempotent, title = "Open scene")]
fn scene_open(
    /// The scene file, e.g. `Assets/Scenes/Main.scene` (`scene_list` lists them).
    path: String,
    /// Keep the open scenes and add this one. Default: false.
    additive: Option<bool>,
    /// Drop unsaved changes of the scenes this call closes or reloads. Default: false.
    discard_changes: Option<bool>,
    ctx: &buril::Context,
) -> Result<OpenedScene, ToolError> {
    let path = paths::asset_with_extension(&path, "path", "scene")?;
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    editor.require_edit_mode("open scenes")?;
    let additive = additive.unwrap_or(false);
    let mut discarded = Vec::new();
    if additive {
        if editor.by_path(&path).is_none() {
            let scene = project.load_scene(&path)?;
            editor.scenes.push(OpenScene {
                path: path.clone(),
                scene,
                dirty: false,
            });
        }
    } else {
        let dirty: Vec<String> = editor
            .scenes
            .iter()
            .filter(|s| s.dirty)
            .map(|s| s.name().to_owned())
            .collect();
        if !dirty.is_empty() && discard_changes != Some(true) {
            return Err(ToolError::invalid(format!(
                "scene {} has unsaved changes; call scene_save first, or pass \
                 discard_changes: true to drop them (or additive: true to keep it open)",
                dirty.join(", ")
            )));
        }
        let scene = project.load_scene(&path)?;
        discarded = dirty;
        editor.scenes = vec![OpenScene {
            path: path.clone(),
            scene,
            dirty: false,
        }];
    }
    editor.set_active(Some(path.clone()));
    project.save_session(&editor)?;
    let open = editor.scene(Some(&path))?;
    Ok(OpenedScene {
        scene: SceneSummary::of(open, &editor),
        open_scenes: editor.open_names(),
        discarded_changes: discarded,
    })
}

/// The result of closing a scene.
#[derive(Debug, Serialize, JsonSchema)]
struct ClosedScene {
    /// The name of the scene closed.
    closed: String,
    /// Whether unsaved changes were dropped.
    discarded_changes: bool,
    /// The active scene now, if any scene is still open.
    active_scene: Option<String>,
    /// The names of the scenes still open.
    open_scenes: Vec<String>,
}

/// Closes an open scene. Refused when it has unsaved changes, unless `discard_changes` is set.
/// When the active scene closes, the first remaining scene becomes active. Not allowed in play
/// mode.
#[buril::tool(destructive, title = "Close scene")]
fn scene_close(
    /// The open scene to close, by name or path. Default: the active scene.
    scene: Option<String>,
    /// Drop the scene's unsaved changes instead of refusing. Default: false.
    discard_changes: Option<bool>,
    ctx: &buril::Context,
) -> Result<ClosedScene, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    editor.require_edit_mode("close scenes")?;
    let index = editor.index(scene.as_deref())?;
    let dirty = editor.scenes[index].dirty;
    if dirty && discard_changes != Some(true) {
        return Err(ToolError::invalid(format!(
            "scene {} has unsaved changes; call scene_save first, or pass discard_changes: true \
             to drop them",
            editor.scenes[index].name()
        )));
    }
    let was_active = editor.is_active(scene.as_deref())?;
    let closed = editor.scenes.remove(index);
    if was_active {
        let next = editor.scenes.first().map(|s| s.path.clone());
        editor.set_active(next);
    }
    project.save_session(&editor)?;
    Ok(ClosedScene {
        closed: closed.name().to_owned(),
        discarded_changes: dirty,
        active_scene: editor.active_path().map(|p| paths::stem(p).to_owned()),
        open_scenes: editor.open_names(),
    })
}

/// The active scene after a change.
#[derive(Debug, Serialize, JsonSchema)]
struct ActiveScene {
    /// The active scene.
    scene: SceneSummary,
    /// The names of every open scene.
    open_scenes: Vec<String>,
}

/// Makes an open scene the active one: new game objects go there by default, and the
/// selection (which belongs to the active scene) is cleared when it changes.
#[buril::tool(idempotent, title = "Set active scene")]
fn scene_set_active(
    /// The open scene, by name (`Main`) or path.
    scene: String,
    ctx: &buril::Context,
) -> Result<ActiveScene, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let path = editor.scene(Some(&scene))?.path.clone();
    editor.set_active(Some(path.clone()));
    project.save_session(&editor)?;
    Ok(ActiveScene {
        scene: SceneSummary::of(editor.scene(Some(&path))?, &editor),
        open_scenes: editor.open_names(),
    })
}
