//! The `scene_` family: scene files and the scenes open in the editor.

mod hierarchy;
mod map;
mod open;
mod save;
pub(crate) mod template;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::Project;
use crate::project::editor::{EditorState, OpenScene};
use crate::project::paths::{self, ASSETS};

/// An open scene at a glance.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SceneSummary {
    /// The scene's name (its file name without `.scene`).
    pub name: String,
    /// The scene file.
    pub path: String,
    /// Whether it has unsaved changes.
    pub dirty: bool,
    /// Whether it is the active scene, where new objects go by default.
    pub active: bool,
    /// How many game objects it holds.
    pub object_count: usize,
    /// The names of its root objects, in order.
    pub root_objects: Vec<String>,
}

impl SceneSummary {
    /// The summary of `open`.
    pub fn of(open: &OpenScene, editor: &EditorState) -> Self {
        SceneSummary {
            name: open.name().to_owned(),
            path: open.path.clone(),
            dirty: open.dirty,
            active: editor.active_path() == Some(open.path.as_str()),
            object_count: open.scene.objects.len(),
            root_objects: open.scene.roots().map(|o| o.name.clone()).collect(),
        }
    }
}

/// A scene file in the project.
#[derive(Debug, Serialize, JsonSchema)]
struct SceneFile {
    /// The scene's name.
    name: String,
    /// The file, relative to the project folder.
    path: String,
    /// The file's size in bytes.
    bytes: u64,
    /// Whether the scene is open in the editor.
    open: bool,
    /// Whether it is the active scene.
    active: bool,
    /// Whether it is open with unsaved changes.
    dirty: bool,
}

/// The scene files of the project.
#[derive(Debug, Serialize, JsonSchema)]
struct SceneListing {
    /// Every `.scene` file under `Assets/`, sorted by path.
    scenes: Vec<SceneFile>,
}

/// Lists every scene file (`*.scene`) under `Assets/`, with whether each is open in the editor,
/// active, or has unsaved changes. Use it to find the path to pass to `scene_open`.
#[buril::tool(off_thread, read_only, idempotent, title = "List scenes")]
fn scene_list(ctx: &buril::Context) -> Result<SceneListing, ToolError> {
    let project = ctx.state::<Project>()?;
    let entries = project.walk(ASSETS, true)?;
    let editor = project.editor();
    let scenes = entries
        .into_iter()
        .filter(|e| !e.is_dir && paths::extension_of(&e.path) == Some("scene"))
        .map(|entry| {
            let open = editor.by_path(&entry.path);
            SceneFile {
                name: paths::stem(&entry.path).to_owned(),
                active: editor.active_path() == Some(entry.path.as_str()),
                open: open.is_some(),
                dirty: open.is_some_and(|o| o.dirty),
                bytes: entry.bytes,
                path: entry.path,
            }
        })
        .collect();
    Ok(SceneListing { scenes })
}
