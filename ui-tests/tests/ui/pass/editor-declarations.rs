use buril::ToolError;
use serde::{Deserialize, Serialize};

/// The play mode after the change.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlayMode {
    /// Whether the game runs.
    pub playing: bool,
}

/// Input of a whole-input declaration.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Capture {
    /// The window's title.
    pub window: String,
}

/// Enters or leaves play mode.
#[buril::tool(editor, idempotent)]
fn unity_set_play_mode(
    /// Whether to play.
    play: bool,
    ctx: &buril::Context,
) -> Result<PlayMode, ToolError>;

/// Runs the tests, as a task, off the editor's main thread.
#[buril::tool(editor, off_thread, task, dangerous)]
async fn unity_run_tests(
    /// Only these.
    filter: Option<String>,
) -> Result<PlayMode, ToolError>;

/// Saves every scene.
#[buril::tool(editor)]
fn unity_save_scenes();

/// Looks at a window.
#[buril::tool(editor)]
fn unity_look_window(buril::Input(capture): buril::Input<Capture>) -> PlayMode;

fn main() {
    let registry = buril::registry();
    for name in [
        "unity_set_play_mode",
        "unity_run_tests",
        "unity_save_scenes",
        "unity_look_window",
    ] {
        assert!(registry.get(name).unwrap().meta().editor, "{name}");
    }
}
