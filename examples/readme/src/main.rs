use buril::{CallOptions, Context, Dispatcher, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

#[derive(Serialize, JsonSchema)]
pub struct SceneInfo {
    /// The scene's path.
    pub path: String,
    /// How many objects it holds.
    pub objects: usize,
}

/// Opens the scene at `path`, replacing the open scenes unless `additive` is set.
#[buril::tool(idempotent)]
fn scene_open(
    /// Project-relative path of the scene file, e.g. `Assets/Scenes/Main.scene`.
    path: String,
    /// Keep the scenes that are already open.
    additive: Option<bool>,
    ctx: &Context,
) -> Result<SceneInfo, ToolError> {
    ctx.report_progress(1.0, Some(1.0), Some("opening"));
    if !path.ends_with(".scene") {
        return Err(ToolError::invalid("`path` must name a `.scene` file"));
    }
    Ok(SceneInfo {
        path,
        objects: if additive == Some(true) { 12 } else { 5 },
    })
}

fn main() -> std::process::ExitCode {
    // In a host: call through a dispatcher.
    let dispatcher = Dispatcher::new();
    let input = json!({"path": 3, "additiv": true});
    let envelope = dispatcher
        .invoke("scene_open", input, CallOptions::default())
        .into_envelope();
    assert_eq!(envelope["type"], "validation");

    // In a binary: list, describe, call and serve every tool linked into it.
    buril::cli::main()
}
