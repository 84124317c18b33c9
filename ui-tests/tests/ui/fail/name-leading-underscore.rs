/// Opens a scene.
#[buril::tool]
fn _scene_open() {}

fn main() {}
