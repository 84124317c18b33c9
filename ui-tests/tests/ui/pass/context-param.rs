use buril_test_support::call;
use serde_json::json;

/// Reports which tool runs, and a suffix.
#[buril::tool]
fn debug_whoami(
    ctx: &buril::Context,
    /// Appended to the tool's name.
    suffix: String,
) -> String {
    format!("{}{suffix}", ctx.tool_name())
}

fn main() {
    let tool = buril::registry().get("debug_whoami").unwrap();
    let properties = tool.input_schema()["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["suffix"]);
    let envelope = call("debug_whoami", json!({"suffix": "!"}));
    assert_eq!(envelope["data"]["result"], "debug_whoami!");
}
