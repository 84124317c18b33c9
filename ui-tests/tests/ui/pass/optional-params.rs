use buril_test_support::call;
use serde_json::json;

/// Greets someone.
#[buril::tool]
fn text_greet(
    /// Who to greet.
    name: String,
    /// How many exclamation marks, one by default.
    emphasis: Option<usize>,
) -> String {
    format!("Hello, {name}{}", "!".repeat(emphasis.unwrap_or(1)))
}

fn main() {
    let tool = buril::registry().get("text_greet").unwrap();
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["name"]));
    assert!(schema["properties"].get("emphasis").is_some());
    let envelope = call("text_greet", json!({"name": "Ada"}));
    assert_eq!(envelope["data"]["result"], "Hello, Ada!");
}
