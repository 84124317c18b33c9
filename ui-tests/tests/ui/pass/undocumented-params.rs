use buril_test_support::call;
use serde_json::json;

/// Multiplies two numbers.
#[buril::tool(undocumented_params)]
fn math_mul(a: i64, b: i64) -> i64 {
    a * b
}

fn main() {
    let tool = buril::registry().get("math_mul").unwrap();
    let schema = tool.input_schema();
    assert!(schema["properties"]["a"].get("description").is_none());
    let envelope = call("math_mul", json!({"a": 6, "b": 7}));
    assert_eq!(envelope["data"]["result"], 42);
}
