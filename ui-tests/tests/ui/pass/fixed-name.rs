use buril_test_support::call;
use serde_json::json;

/// Greets someone: a name fixed by a test suite, one segment long.
#[buril::tool(fixed_name = "a test suite calls it `greet`")]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

fn main() {
    let tool = buril::registry().get("greet").unwrap();
    assert_eq!(tool.family(), "greet");
    assert_eq!(
        tool.meta().fixed_name.as_deref(),
        Some("a test suite calls it `greet`")
    );
    let envelope = call("greet", json!({"name": "World"}));
    assert_eq!(envelope["data"]["result"], "Hello, World!");
}
