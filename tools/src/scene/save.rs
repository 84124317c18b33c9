//! Writing scene files: saving open scenes and creating new ones.

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::template;
use crate::project::Project;
use crate::project::editor::OpenScene;
use crate::project::paths;

/// The result of saving a scene.
#[derive(Debug, Serialize, JsonSchema)]
struct SavedScene {
    /// The scene's name (changes with `save_as`).
    name: String,
    /// The file written.
    path: String,
    /// How many game objects were saved.
    object_count: usize,
    /// The size of the file written, in bytes.
    bytes: u64,
}

/// Writes an open scene to its file, clearing its unsaved-changes flag. With `save_as` the
/// scene is written to a new file instead, and the open scene refers to that file from then on.
/// Not allowed in play mode: stop it first, which discards play-mode changes.
#[buril::tool(idempotent, title = "Save scene")]
fn scene_save(
    /// The open scene to save, by name or path. Default: the active scene.
    scene: Option<String>,
    /// A new `.scene` file under `Assets/` to save to; it must not exist yet.
    save_as: Option<String>,
    ctx: &buril::Context,
) -> Result<SavedScene, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    editor.require_edit_mode("save scenes")?;
    let index = editor.index(scene.as_deref())?;
    let current = editor.scenes[index].path.clone();
    let target = match save_as {
        Some(save_as) => {
            let target = paths::asset_with_extension(&save_as, "save_as", "scene")?;
            if target != current && project.file(&target)?.exists() {
                return Err(ToolError::invalid(format!(
                    "`{target}` already exists; choose another path, or open that scene with \
                     scene_open"
                )));
            }
            target
        }
        None => current.clone(),
    };
    let text = editor.scenes[index].scene.to_json()?;
    let bytes = project.write(&target, text.as_bytes())?;
    let was_active = editor.active_path() == Some(current.as_str());
    let open = &mut editor.scenes[index];
    open.path = target.clone();
    open.dirty = false;
    let saved = SavedScene {
        name: open.name().to_owned(),
        path: target.clone(),
        object_count: open.scene.objects.len(),
        bytes,
    };
    if target != current {
        if was_active {
            editor.active = Some(target);
        }
        project.save_session(&editor)?;
    }
    Ok(saved)
}

/// What a new scene starts with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum SceneTemplate {
    /// A Main Camera and a Directional Light, like a new scene in the editor.
    #[default]
    Basic,
    /// No objects at all.
    Empty,
}

/// The result of creating a scene.
#[derive(Debug, Serialize, JsonSchema)]
struct CreatedScene {
    /// The new scene's name.
    name: String,
    /// The new scene file.
    path: String,
    /// How many game objects the scene starts with.
    object_count: usize,
    /// Whether the scene was opened (and made active).
    opened: bool,
}

/// Creates a new scene file from a template. It is not opened unless `open` is set, in which
/// case it opens beside the open scenes and becomes the active scene.
#[buril::tool(title = "Create scene")]
fn scene_create(
    /// The new file, e.g. `Assets/Scenes/Level2.scene`; it must not exist yet.
    path: String,
    /// What the scene starts with. Default: `basic` (a camera and a light).
    template: Option<SceneTemplate>,
    /// Open the new scene and make it active. Default: false.
    open: Option<bool>,
    ctx: &buril::Context,
) -> Result<CreatedScene, ToolError> {
    let path = paths::asset_with_extension(&path, "path", "scene")?;
    let project = ctx.state::<Project>()?;
    if project.file(&path)?.exists() {
        return Err(ToolError::invalid(format!(
            "`{path}` already exists; pick another path, or open it with scene_open"
        )));
    }
    let open = open.unwrap_or(false);
    let mut editor = project.editor();
    if open {
        editor.require_edit_mode("open scenes")?;
    }
    let scene = match template.unwrap_or_default() {
        SceneTemplate::Basic => template::basic(),
        SceneTemplate::Empty => template::empty(),
    };
    project.write(&path, scene.to_json()?.as_bytes())?;
    let object_count = scene.objects.len();
    if open {
        editor.scenes.push(OpenScene {
            path: path.clone(),
            scene,
            dirty: false,
        });
        editor.set_active(Some(path.clone()));
        project.save_session(&editor)?;
    }
    Ok(CreatedScene {
        name: paths::stem(&path).to_owned(),
        path,
        object_count,
        opened: open,
    })
}
