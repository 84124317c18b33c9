/// Opens a scene.
#[buril::tool]
fn open() {}

fn main() {}
