use buril_test_support::call;
use serde_json::json;

/// Adds two numbers.
#[buril::tool]
fn math_add(
    /// The first addend.
    a: f64,
    /// The second addend.
    b: f64,
) -> f64 {
    a + b
}

fn main() {
    let tool = buril::registry().get("math_add").unwrap();
    assert_eq!(tool.description(), "Adds two numbers.");
    assert_eq!(tool.family(), "math");
    let a = &tool.input_schema()["properties"]["a"];
    assert_eq!(a["description"], "The first addend.");
    assert_eq!(tool.input_schema()["required"], json!(["a", "b"]));
    let envelope = call("math_add", json!({"a": 1, "b": 2.5}));
    assert_eq!(envelope, json!({"ok": true, "data": {"result": 3.5}}));
}
