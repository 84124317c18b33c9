//! The editor's in-memory state: open scenes (with unsaved changes), the active scene, play
//! mode and the selection.

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::paths;
use super::scene::{GameObject, Scene};

/// A scene loaded in the editor. Changes stay in memory, marked dirty, until `scene_save`.
#[derive(Debug, Clone)]
pub struct OpenScene {
    /// The scene file, relative to the project folder.
    pub path: String,
    /// The scene as edited.
    pub scene: Scene,
    /// Whether there are changes not yet saved to the file.
    pub dirty: bool,
}

impl OpenScene {
    /// The scene's name: its file name without `.scene`.
    pub fn name(&self) -> &str {
        paths::stem(&self.path)
    }

    /// The object with `id`, or an error a model can act on.
    pub fn object(&self, id: u64) -> Result<&GameObject, ToolError> {
        self.scene.get(id).ok_or_else(|| self.missing(id))
    }

    /// The object with `id`, to change it; marks the scene dirty.
    pub fn object_mut(&mut self, id: u64) -> Result<&mut GameObject, ToolError> {
        match self.scene.objects.iter().position(|o| o.id == id) {
            Some(index) => {
                self.dirty = true;
                Ok(&mut self.scene.objects[index])
            }
            None => Err(self.missing(id)),
        }
    }

    /// The "no such object" error.
    pub fn missing(&self, id: u64) -> ToolError {
        ToolError::invalid(format!(
            "no game object with id {id} in scene {}; gameobject_find lists them",
            self.name()
        ))
    }
}

/// Whether the game is running in the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayMode {
    /// Editing: changes can be saved.
    #[default]
    Stopped,
    /// The game runs; changes made now are discarded when play mode stops.
    Playing,
    /// The game is in play mode but paused.
    Paused,
}

/// Everything the editor holds in memory.
#[derive(Debug, Default)]
pub struct EditorState {
    /// The open scenes, in the order they were opened.
    pub scenes: Vec<OpenScene>,
    /// The path of the active scene, where new objects go by default.
    pub active: Option<String>,
    /// Play mode.
    pub play_mode: PlayMode,
    /// The scenes as they were when play mode started, restored when it stops.
    pub play_snapshot: Option<Vec<OpenScene>>,
    /// Ids of the selected objects in the active scene.
    pub selection: Vec<u64>,
}

impl EditorState {
    /// The position of the scene `key` (a name or a path) among the open scenes, or of the
    /// active scene when `key` is `None`.
    pub fn index(&self, key: Option<&str>) -> Result<usize, ToolError> {
        if self.scenes.is_empty() {
            return Err(ToolError::invalid(
                "no scene is open; call scene_open first (scene_list lists the scene files)",
            ));
        }
        let Some(key) = key else {
            let active = self.active.as_deref().unwrap_or(&self.scenes[0].path);
            return Ok(self
                .scenes
                .iter()
                .position(|s| s.path == active)
                .unwrap_or(0));
        };
        let wanted = key.trim().replace('\\', "/");
        self.scenes
            .iter()
            .position(|s| s.path == wanted || s.name() == wanted)
            .ok_or_else(|| {
                ToolError::invalid(format!(
                    "scene `{key}` is not open; the open scenes are {}. Call scene_open to open it",
                    self.open_names().join(", ")
                ))
            })
    }

    /// The scene `key`, or the active scene.
    pub fn scene(&self, key: Option<&str>) -> Result<&OpenScene, ToolError> {
        let index = self.index(key)?;
        Ok(&self.scenes[index])
    }

    /// The scene `key`, or the active scene, to change it.
    pub fn scene_mut(&mut self, key: Option<&str>) -> Result<&mut OpenScene, ToolError> {
        let index = self.index(key)?;
        Ok(&mut self.scenes[index])
    }

    /// The open scene with this file, if any.
    pub fn by_path(&self, path: &str) -> Option<&OpenScene> {
        self.scenes.iter().find(|s| s.path == path)
    }

    /// The names of the open scenes.
    pub fn open_names(&self) -> Vec<String> {
        self.scenes.iter().map(|s| s.name().to_owned()).collect()
    }

    /// The active scene's path: the recorded one, or the first open scene.
    pub fn active_path(&self) -> Option<&str> {
        self.active
            .as_deref()
            .filter(|a| self.by_path(a).is_some())
            .or_else(|| self.scenes.first().map(|s| s.path.as_str()))
    }

    /// Whether `key` names the active scene (`None` always does).
    pub fn is_active(&self, key: Option<&str>) -> Result<bool, ToolError> {
        let index = self.index(key)?;
        Ok(self.active_path() == Some(self.scenes[index].path.as_str()))
    }

    /// Makes `path` the active scene; the selection belongs to the active scene, so it clears
    /// when the active scene changes.
    pub fn set_active(&mut self, path: Option<String>) {
        if self.active != path {
            self.selection.clear();
        }
        self.active = path;
    }

    /// Drops ids that no longer exist from the selection.
    pub fn prune_selection(&mut self) {
        let keep: Vec<u64> = match self.active_path().and_then(|a| self.by_path(a)) {
            Some(open) => self
                .selection
                .iter()
                .copied()
                .filter(|id| open.scene.get(*id).is_some())
                .collect(),
            None => Vec::new(),
        };
        self.selection = keep;
    }

    /// An error when the editor is in play mode, for operations that need edit mode.
    pub fn require_edit_mode(&self, action: &str) -> Result<(), ToolError> {
        if self.play_mode == PlayMode::Stopped {
            Ok(())
        } else {
            Err(ToolError::invalid(format!(
                "cannot {action} in play mode; call editor_play_mode_set with mode `stopped` first"
            )))
        }
    }
}
