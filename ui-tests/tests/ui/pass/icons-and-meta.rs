/// Listed with an icon and metadata for clients.
#[buril::tool(
    icons = ["https://example.com/tool.svg"],
    meta = [("com.example/team", "tools"), ("com.example/rank", -3), ("com.example/beta", true)]
)]
fn demo_listed() {}

fn main() {
    let tool = buril::registry().get("demo_listed").unwrap();
    assert_eq!(tool.meta().icons[0], "https://example.com/tool.svg");
    let meta: Vec<(&str, &str)> = tool
        .meta()
        .meta
        .iter()
        .map(|(k, v)| (k.as_ref(), v.as_ref()))
        .collect();
    assert_eq!(
        meta,
        [
            ("com.example/team", "\"tools\""),
            ("com.example/rank", "-3"),
            ("com.example/beta", "true")
        ]
    );
    let listed = buril::profile::render(buril::profile::Profile::Mcp, &tool).map(|rendered| rendered.value).unwrap();
    assert_eq!(listed["icons"][0]["mimeType"], "image/svg+xml");
    assert_eq!(listed["_meta"]["com.example/rank"], -3);
}
