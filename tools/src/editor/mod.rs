//! The `editor_` family: editor-wide state, play mode and the selection.

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::console::LevelCounts;
use crate::project::Project;
use crate::project::console::LogLevel;
use crate::project::editor::{EditorState, PlayMode};
use crate::scene::SceneSummary;

/// The editor at a glance.
#[derive(Debug, Serialize, JsonSchema)]
struct EditorStateView {
    /// The project folder's name.
    project: String,
    /// Whether the game is running.
    play_mode: PlayMode,
    /// The active scene's name, if a scene is open.
    active_scene: Option<String>,
    /// The open scenes.
    open_scenes: Vec<SceneSummary>,
    /// The names of the open scenes with unsaved changes.
    unsaved_scenes: Vec<String>,
    /// The ids of the selected objects in the active scene.
    selection: Vec<u64>,
    /// The console's messages by level.
    console: LevelCounts,
}

/// The editor's state: the open scenes (and which have unsaved changes), the active scene,
/// play mode, the selection and how many console messages of each level there are. A good
/// first call.
#[buril::tool(read_only, idempotent, title = "Editor state")]
fn editor_state(ctx: &buril::Context) -> Result<EditorStateView, ToolError> {
    let project = ctx.state::<Project>()?;
    let console = LevelCounts::of(&project.read_log()?.entries);
    let editor = project.editor();
    Ok(EditorStateView {
        project: project
            .root()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        play_mode: editor.play_mode,
        active_scene: editor
            .active_path()
            .and_then(|p| editor.by_path(p))
            .map(|s| s.name().to_owned()),
        open_scenes: editor
            .scenes
            .iter()
            .map(|s| SceneSummary::of(s, &editor))
            .collect(),
        unsaved_scenes: editor
            .scenes
            .iter()
            .filter(|s| s.dirty)
            .map(|s| s.name().to_owned())
            .collect(),
        selection: editor.selection.clone(),
        console,
    })
}

/// A change of play mode.
#[derive(Debug, Serialize, JsonSchema)]
struct PlayModeChanged {
    /// The mode before.
    previous: PlayMode,
    /// The mode now.
    mode: PlayMode,
    /// Scenes whose play-mode changes were discarded when play mode stopped.
    discarded_changes: Vec<String>,
}

/// Starts, pauses, resumes or stops play mode. As in the editor, changes made to scenes in
/// play mode are discarded when it stops: the scenes return to how they were when it started.
/// Scenes cannot be opened, closed or saved in play mode.
#[buril::tool(idempotent, title = "Set play mode")]
fn editor_play_mode_set(
    /// `playing` to start or resume, `paused` to pause, `stopped` to stop.
    mode: PlayMode,
    ctx: &buril::Context,
) -> Result<PlayModeChanged, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let previous = editor.play_mode;
    let mut discarded = Vec::new();
    if previous == mode {
        return Ok(PlayModeChanged {
            previous,
            mode,
            discarded_changes: discarded,
        });
    }
    let message = match (previous, mode) {
        (PlayMode::Stopped, _) => {
            editor.index(None)?;
            editor.play_snapshot = Some(editor.scenes.clone());
            "Entered play mode"
        }
        (_, PlayMode::Stopped) => {
            discarded = restore(&mut editor);
            "Exited play mode"
        }
        (_, PlayMode::Paused) => "Paused play mode",
        (_, PlayMode::Playing) => "Resumed play mode",
    };
    editor.play_mode = mode;
    drop(editor);
    project.log(LogLevel::Info, message, None)?;
    Ok(PlayModeChanged {
        previous,
        mode,
        discarded_changes: discarded,
    })
}

/// Puts the scenes back as they were when play mode started; returns the names of those that
/// had changed.
fn restore(editor: &mut EditorState) -> Vec<String> {
    let Some(snapshot) = editor.play_snapshot.take() else {
        return Vec::new();
    };
    let changed = snapshot
        .iter()
        .filter(|before| {
            editor
                .by_path(&before.path)
                .is_none_or(|now| now.scene != before.scene)
        })
        .map(|before| before.name().to_owned())
        .collect();
    editor.scenes = snapshot;
    editor.prune_selection();
    changed
}

/// One selected object.
#[derive(Debug, Serialize, JsonSchema)]
struct SelectedObject {
    /// Its id.
    id: u64,
    /// Its name.
    name: String,
    /// Its hierarchy path.
    path: String,
}

/// The selection.
#[derive(Debug, Serialize, JsonSchema)]
struct Selection {
    /// The active scene, which the selection belongs to; null when no scene is open.
    scene: Option<String>,
    /// The selected objects, in selection order.
    objects: Vec<SelectedObject>,
}

fn selection_of(editor: &EditorState) -> Selection {
    let Ok(open) = editor.scene(None) else {
        return Selection {
            scene: None,
            objects: Vec::new(),
        };
    };
    Selection {
        scene: Some(open.name().to_owned()),
        objects: editor
            .selection
            .iter()
            .filter_map(|id| open.scene.get(*id))
            .map(|o| SelectedObject {
                id: o.id,
                name: o.name.clone(),
                path: open.scene.path_of(o.id),
            })
            .collect(),
    }
}

/// Selects game objects of the active scene, replacing the selection; an empty list clears
/// it.
#[buril::tool(idempotent, title = "Set selection")]
fn editor_selection_set(
    /// The ids to select, in order; duplicates are ignored.
    ids: Vec<u64>,
    ctx: &buril::Context,
) -> Result<Selection, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let mut selection: Vec<u64> = Vec::with_capacity(ids.len());
    if !ids.is_empty() {
        let open = editor.scene(None)?;
        for id in ids {
            open.object(id)?;
            if !selection.contains(&id) {
                selection.push(id);
            }
        }
    }
    editor.selection = selection;
    Ok(selection_of(&editor))
}

/// The selected game objects of the active scene.
#[buril::tool(read_only, idempotent, title = "Get selection")]
fn editor_selection_get(ctx: &buril::Context) -> Result<Selection, ToolError> {
    let project = ctx.state::<Project>()?;
    let editor = project.editor();
    Ok(selection_of(&editor))
}
