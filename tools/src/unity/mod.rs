//! The `unity_` family: tools done in the Unity editor itself. Each is declared here, without a
//! body (`#[buril::tool(editor)]`), and implemented by a class of the Unity package's
//! `Samples~/EditorTools` that subclasses its generated stub; buril validates a call's input,
//! then forwards it to the editor that has the project open (`--editor PROJECT`).

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How serious a compiler message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompilerSeverity {
    /// It stops the scripts from compiling.
    Error,
    /// It does not.
    Warning,
}

/// One message of the C# compiler.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CompilerMessage {
    /// An error or a warning.
    pub severity: CompilerSeverity,
    /// What the compiler said.
    pub message: String,
    /// The script, relative to the project (`Assets/Scripts/Player.cs`), when the message has one.
    pub file: Option<String>,
    /// The line, from 1 (0: none).
    pub line: u32,
    /// The column, from 1 (0: none).
    pub column: u32,
}

/// What compiling the scripts reported.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CompileReport {
    /// Whether every assembly compiled.
    pub succeeded: bool,
    /// The assemblies compiled.
    pub assemblies: Vec<String>,
    /// The errors, in the compiler's order.
    pub errors: Vec<CompilerMessage>,
    /// The warnings, in the compiler's order.
    pub warnings: Vec<CompilerMessage>,
}

/// Compiles the project's scripts now (Unity's `CompilationPipeline`) and answers every error
/// and warning the compiler reported, with its file and line. Call it after editing scripts,
/// before entering play mode.
#[buril::tool(editor, off_thread, title = "Compile the scripts")]
fn unity_compile_scripts() -> Result<CompileReport, ToolError>;

/// A kind of console message, as Unity's console holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleLevel {
    /// `Debug.Log`.
    Log,
    /// `Debug.LogWarning`.
    Warning,
    /// `Debug.LogError`, and failed assertions.
    Error,
    /// An exception that reached the console.
    Exception,
}

/// One message of the editor's console.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConsoleMessage {
    /// Its kind.
    pub level: ConsoleLevel,
    /// Its text.
    pub message: String,
    /// Its stack trace, one frame a line (empty when it has none).
    pub stack_trace: String,
}

/// Console messages that matched, newest last.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConsoleMessages {
    /// How many messages the console holds in all.
    pub total: u32,
    /// The messages that matched (at most `limit`, the newest).
    pub messages: Vec<ConsoleMessage>,
}

/// Reads the editor's console as it holds it: every message logged since it was last cleared,
/// the newest last, filtered by kind and text.
#[buril::tool(editor, read_only, idempotent, title = "Read the console")]
fn unity_read_console(
    /// Only messages of these kinds. Default: all.
    levels: Option<Vec<ConsoleLevel>>,
    /// Only messages whose text contains this (case-insensitive).
    contains: Option<String>,
    /// At most this many, the newest. Default: 100.
    limit: Option<u32>,
) -> Result<ConsoleMessages, ToolError>;

/// How many messages were cleared.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConsoleCleared {
    /// The messages the console held before.
    pub cleared: u32,
}

/// Clears the editor's console, as its Clear button does.
#[buril::tool(editor, destructive, title = "Clear the console")]
fn unity_clear_console() -> Result<ConsoleCleared, ToolError>;

/// Where play mode goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayModeTarget {
    /// Enter play mode (or resume it when paused).
    Play,
    /// Pause the game (in play mode).
    Pause,
    /// Leave play mode.
    Stop,
}

/// The editor's play mode after the change.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PlayModeState {
    /// Whether the game runs (or will, once the editor has entered play mode).
    pub playing: bool,
    /// Whether it is paused.
    pub paused: bool,
}

/// Enters, pauses or leaves play mode (`EditorApplication.isPlaying`, `isPaused`). Entering
/// compiles pending script changes first, and may reload the scripts.
#[buril::tool(editor, idempotent, title = "Set play mode")]
fn unity_set_play_mode(
    /// `play`, `pause` or `stop`.
    mode: PlayModeTarget,
) -> Result<PlayModeState, ToolError>;

/// A menu item that ran.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MenuItemRun {
    /// Its path.
    pub path: String,
}

/// Runs an editor menu item by its path (`File/Save Project`), as clicking it would
/// (`EditorApplication.ExecuteMenuItem`). Dangerous: a menu item can do anything the editor
/// can, so it stays off until enabled.
#[buril::tool(editor, dangerous, title = "Run a menu item")]
fn unity_execute_menu_item(
    /// The item's path, its menus and its name joined by `/`: `File/Save Project`.
    path: String,
) -> Result<MenuItemRun, ToolError>;

/// One test that did not pass.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TestFailure {
    /// The test's full name.
    pub name: String,
    /// What it reported.
    pub message: String,
}

/// What a test run reported.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TestRunReport {
    /// Tests that passed.
    pub passed: u32,
    /// Tests that failed.
    pub failed: u32,
    /// Tests skipped or ignored.
    pub skipped: u32,
    /// How long the run took, in seconds.
    pub duration_s: f64,
    /// Each failure.
    pub failures: Vec<TestFailure>,
}

/// Runs the project's EditMode tests (Unity's Test Runner, `TestRunnerApi`) and answers how
/// many passed and what each failure said. A run takes a while: the call is a task. Dangerous:
/// tests run the project's code, so it stays off until enabled.
#[buril::tool(editor, off_thread, dangerous, task, title = "Run the EditMode tests")]
fn unity_run_tests(
    /// Only tests whose full name contains this. Default: every test.
    filter: Option<String>,
) -> Result<TestRunReport, ToolError>;
