/// Says hello.
#[buril::tool(crate = ::buril)]
fn text_hello() -> &'static str {
    "hello"
}

fn main() {
    let envelope = buril::call("text_hello", serde_json::json!({}));
    assert_eq!(envelope["data"]["result"], "hello");
}
