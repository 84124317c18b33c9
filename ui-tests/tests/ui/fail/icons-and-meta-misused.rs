/// Icons are URIs; `_meta` keys are MCP's, once each, off the reserved prefixes.
#[buril::tool(
    icons = ["tool.png", "https://example.com/tool.png"],
    meta = [
        ("io.modelcontextprotocol/ui", "x"),
        ("buril/envelope", 1),
        ("com.example/", true),
        ("com.example/team", "tools"),
        ("com.example/team", "again"),
        ("com.example/list", [1, 2])
    ]
)]
fn demo_listed() {}

fn main() {}
