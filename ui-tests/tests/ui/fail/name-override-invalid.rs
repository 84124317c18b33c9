/// Opens a scene.
#[buril::tool(name = "sceneOpen")]
fn open_scene_file() {}

fn main() {}
