use buril_test_support::call;
use serde_json::json;

/// Waits, then doubles a number.
#[buril::tool(off_thread)]
async fn math_double_later(
    ctx: &buril::Context,
    /// The number to double.
    n: i64,
) -> Result<i64, buril::ToolError> {
    ctx.check_cancelled()?;
    Ok(n * 2)
}

fn main() {
    let tool = buril::registry().get("math_double_later").unwrap();
    assert!(tool.is_async());
    let envelope = call("math_double_later", json!({"n": 21}));
    assert_eq!(envelope, json!({"ok": true, "data": {"result": 42}}));
}
