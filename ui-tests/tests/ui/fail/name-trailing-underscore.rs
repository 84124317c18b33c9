/// Opens a scene.
#[buril::tool(name = "scene_open_")]
fn scene_open() {}

fn main() {}
