/// Fetches a page, usually from a cache.
#[buril::tool(blocking)]
fn web_fetch_page(
    /// The page's address.
    url: String,
) -> String {
    url
}

/// Reads the editor's selection.
#[buril::tool(off_thread, blocking)]
async fn editor_selection() -> Vec<String> {
    Vec::new()
}

/// Says hello.
#[buril::tool(off_thread, inline, blocking)]
fn greet_say_hello() -> String {
    "hello".into()
}

fn main() {}
