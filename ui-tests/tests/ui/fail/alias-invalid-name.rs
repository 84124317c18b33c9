/// Opens a scene.
#[buril::tool(aliases = ["LoadScene"])]
fn scene_open() {}

fn main() {}
