/// Opens a scene.
#[buril::tool(aliases = ["scene_load", "scene_open"])]
fn scene_open() {}

fn main() {}
