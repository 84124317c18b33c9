use buril_test_support::call;
use serde_json::json;

/// Locks the scene.
#[buril::tool]
fn scene_lock(
    /// Whether the scene is already locked.
    locked: bool,
) -> Result<(), &'static str> {
    if locked {
        return Err("the scene is already locked");
    }
    Ok(())
}

fn main() {
    let envelope = call("scene_lock", json!({"locked": true}));
    assert_eq!(envelope["type"], "runtime");
    assert_eq!(envelope["error"], "the scene is already locked");
    assert_eq!(call("scene_lock", json!({"locked": false}))["ok"], true);
}
