/// Shows its result in an app (MCP Apps): `app.html`, beside this file.
#[buril::tool(ui = "app.html")]
fn demo_shown() {}

fn main() {
    let tool = buril::registry().get("demo_shown").unwrap();
    let ui = tool.meta().ui.as_ref().unwrap();
    assert_eq!(ui.uri, "ui://demo_shown/app.html");
    assert!(ui.html.starts_with("<!doctype html>"));
}
