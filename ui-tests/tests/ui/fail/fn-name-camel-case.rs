/// Opens a scene.
#[buril::tool]
fn SceneOpen() {}

fn main() {}
