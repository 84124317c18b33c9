//! Tools for an editor-like project folder, in six families modelled on a game editor, and a
//! seventh done in the Unity editor itself:
//!
//! | family | what it works on |
//! | --- | --- |
//! | `scene_` | scene files (`Assets/**/*.scene`) and the scenes open in the editor |
//! | `gameobject_` | the game objects of the open scenes: create, find, move, reparent, components |
//! | `asset_` | files under `Assets/`: list, read, search, create, move, delete |
//! | `console_` | the console log in `Library/console.jsonl` |
//! | `editor_` | editor state: play mode and the selection |
//! | `script_` | C# scripts: create from templates, list classes, find references, check |
//! | `unity_` | the live Unity editor: compile the scripts, its console, play mode, menu items, EditMode tests (declared here, done there) |
//!
//! and buril's `mcp_` family (external MCP servers whose tools join these: `buril::hub_tools!`).
//!
//! The [`team`] module declares specialists over these families (`scene-inspector`,
//! `asset-librarian`, `console-reader`) for the `agent_team_*` tools of `buril-team`.
//!
//! Every tool works on a [`Project`], which the host hands the dispatcher as state:
//!
//! ```no_run
//! let project = tools::Project::open_or_create("example-project")?;
//! let dispatcher = buril::Dispatcher::builder().state(project).build();
//! let call = |name: &str, input| {
//!     dispatcher
//!         .invoke(name, input, buril::CallOptions::default())
//!         .into_envelope()
//! };
//! let envelope = call(
//!     "gameobject_create",
//!     serde_json::json!({"name": "Enemy", "primitive": "cube"}),
//! );
//! assert_eq!(envelope["ok"], true);
//! call("scene_save", serde_json::json!({}));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Edits to game objects stay in memory, and the scene is marked dirty, until `scene_save`
//! writes it, as in the editor. Paths are relative to the project folder (`Assets/...`);
//! absolute paths and `..` are refused.

#![warn(missing_docs)]

mod asset;
mod console;
mod editor;
mod gameobject;
mod project;
mod scene;
mod script;
pub mod team;
mod unity;

pub use project::Project;

// The `mcp_` family: external MCP servers registered, listed and unregistered while the binary
// runs (`mcp_register_external` is dangerous: off until enabled).
buril::hub_tools!();
