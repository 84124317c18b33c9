/// Opens a scene.
#[buril::tool(name = "scene__open")]
fn scene_open() {}

fn main() {}
