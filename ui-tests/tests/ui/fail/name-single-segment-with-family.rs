/// Opens a scene.
#[buril::tool(name = "open", family = "scene")]
fn open() {}

fn main() {}
