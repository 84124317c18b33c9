/// Opens a scene.
#[buril::tool(name = "3d_scene_open")]
fn scene_open() {}

fn main() {}
