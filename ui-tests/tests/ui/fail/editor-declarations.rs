use serde::{Deserialize, Serialize};

/// What moved.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct Moved {
    /// Its name.
    pub name: String,
}

/// What an editor tool may not output: it cannot be read back.
#[derive(Serialize, schemars::JsonSchema)]
pub struct WriteOnly {
    /// Its name.
    pub name: String,
}

/// Moves an object in the editor.
#[buril::tool(editor)]
fn unity_move_object() -> Result<Moved, buril::ToolError> {
    todo!()
}

/// Saves the scenes.
#[buril::tool]
fn unity_save_scenes() -> Result<Moved, buril::ToolError>;

/// Refreshes the assets.
#[buril::tool(editor, off_thread, inline)]
fn unity_refresh_assets() -> Result<Moved, buril::ToolError>;

/// Reads something back it cannot.
#[buril::tool(editor)]
fn unity_read_state() -> Result<WriteOnly, buril::ToolError>;

fn main() {}
