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
    assert!(page.is_blocking() && page.meta().blocking && !page.is_inline());
    let head = registry.get("web_fetch_head").unwrap();
    assert!(!head.is_blocking() && head.is_off_thread());
    let answer = buril::call("web_fetch_page", serde_json::json!({"url": "a"}));
    assert_eq!(answer, serde_json::json!({"ok": true, "data": {"result": "a"}}));
}
