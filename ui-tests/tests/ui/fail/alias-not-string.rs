/// Opens a scene.
#[buril::tool(aliases = [scene_load])]
fn scene_open() {}

fn main() {}
