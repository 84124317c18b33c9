/// Opens a scene.
#[buril::tool]
fn scene_open(
    /// Path of the scene file.
    path: String,
    additive: Option<bool>,
) {
    let _ = (path, additive);
}

fn main() {}
