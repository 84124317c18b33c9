/// Fetches a page, usually from a cache: quick most of the time, but it may block.
#[buril::tool(off_thread, blocking)]
fn web_fetch_page(
    /// The page's address.
    url: String,
) -> String {
    url
}

/// The same, without `blocking`.
#[buril::tool(off_thread, blocking = false)]
fn web_fetch_head(
    /// The page's address.
    url: String,
) -> String {
    url
}

fn main() {
    let registry = buril::registry();
    let page = registry.get("web_fetch_page").unwrap();
    assert!(page.threading() == buril::Threading::Blocking && page.meta().threading == buril::Threading::Blocking && page.threading() != buril::Threading::Inline);
    let head = registry.get("web_fetch_head").unwrap();
    assert!(head.threading() != buril::Threading::Blocking && head.threading().is_off_thread());
    let answer = call("web_fetch_page", serde_json::json!({"url": "a"}));
    assert_eq!(answer, serde_json::json!({"ok": true, "data": {"result": "a"}}));
}

/// Calls `name` through the process-wide dispatcher and answers with the envelope.
fn call(name: &str, input: serde_json::Value) -> serde_json::Value {
    buril::Dispatcher::global()
        .invoke(name, input, buril::CallOptions::default())
        .into_envelope()
}
