use buril_test_support::call;

/// Says hello.
#[buril::tool(crate = ::buril)]
fn text_hello() -> &'static str {
    "hello"
}

fn main() {
    let envelope = call("text_hello", serde_json::json!({}));
    assert_eq!(envelope["data"]["result"], "hello");
}
