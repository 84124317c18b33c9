/// Opens a scene.
#[buril::tool(name = "SceneOpen")]
fn scene_open() {}

fn main() {}
