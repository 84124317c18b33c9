/// Says hello.
#[buril::tool(crate = ::buril)]
fn text_hello() -> &'static str {
    "hello"
}

fn main() {
    let envelope = call("text_hello", serde_json::json!({}));
    assert_eq!(envelope["data"]["result"], "hello");
}

/// Calls `name` through the process-wide dispatcher and answers with the envelope.
fn call(name: &str, input: serde_json::Value) -> serde_json::Value {
    buril::Dispatcher::global()
        .invoke(name, input, buril::CallOptions::default())
        .into_envelope()
}
