/// Opens a scene.
#[buril::tool(aliases = ["scene_load"])]
fn scene_open() {}

/// Loads a scene in the background.
#[buril::tool]
fn scene_load() {}

fn main() {}
