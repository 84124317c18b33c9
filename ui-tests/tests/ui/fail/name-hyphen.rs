/// Opens a scene.
#[buril::tool(name = "scene-open")]
fn scene_open() {}

fn main() {}
