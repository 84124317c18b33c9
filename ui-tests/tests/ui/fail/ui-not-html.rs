/// An app is an HTML file beside the tool's source.
#[buril::tool(ui = "/srv/map.txt")]
fn demo_mapped() {}

fn main() {}
