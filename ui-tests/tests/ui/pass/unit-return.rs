use buril_test_support::call;
use serde_json::json;

/// Does nothing, successfully.
#[buril::tool(undocumented_params)]
fn debug_noop(verbose: Option<bool>) {
    let _ = verbose;
}

fn main() {
    let envelope = call("debug_noop", json!({"verbose": true}));
    assert_eq!(envelope, json!({"ok": true, "data": {}}));
    let tool = buril::registry().get("debug_noop").unwrap();
    let schema = tool.output_schema();
    assert_eq!(schema["type"], "object");
}
