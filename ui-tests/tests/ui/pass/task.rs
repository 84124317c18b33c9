use buril::TaskSupport;
use buril_test_support::call;

/// Builds the player: long work, so a call becomes a task where the caller can follow one.
#[buril::tool(task, off_thread)]
async fn player_build(
    /// The platform to build for.
    target: String,
) -> String {
    format!("built for {target}")
}

/// Bakes the lighting of every scene: always a task.
#[buril::tool(task = "required", off_thread)]
fn lighting_bake() -> u32 {
    3
}

/// Imports every asset again: always a task, and its handle for callers that cannot follow one.
#[buril::tool(task = "handle", off_thread)]
async fn asset_reimport() -> u32 {
    7
}

/// Asks which scenes first, then bakes them as a task.
#[buril::tool(task = "deferred", off_thread)]
fn lighting_rebake(ctx: &buril::Context) -> u32 {
    // Called plainly, nobody follows a task: the call simply goes on.
    assert!(!ctx.start_task());
    5
}

/// Not a task after all.
#[buril::tool(task = false, off_thread)]
fn asset_count() -> u32 {
    1
}

buril::task_tools!();

fn main() {
    let registry = buril::registry();
    let task = |name: &str| registry.get(name).unwrap().meta().task;
    assert_eq!(task("player_build"), TaskSupport::Optional);
    assert_eq!(task("lighting_bake"), TaskSupport::Required);
    assert_eq!(task("asset_reimport"), TaskSupport::Handle);
    assert_eq!(task("asset_count"), TaskSupport::Never);
    assert_eq!(task("lighting_rebake"), TaskSupport::Deferred);
    assert_eq!(
        call("lighting_rebake", serde_json::json!({})),
        serde_json::json!({"ok": true, "data": {"result": 5}})
    );
    assert_eq!(task("task_wait"), TaskSupport::Never);
    // Called plainly (no caller that follows tasks), a task tool's call waits for its work.
    let answer = call("player_build", serde_json::json!({"target": "linux"}));
    assert_eq!(answer, serde_json::json!({"ok": true, "data": {"result": "built for linux"}}));
    // Task tools hash differently from the same tool without `task`.
    let hash = registry.get("lighting_bake").unwrap().metadata_hash().to_owned();
    assert_eq!(hash.len(), 16);
}
