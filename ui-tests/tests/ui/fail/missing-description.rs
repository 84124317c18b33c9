#[buril::tool]
fn scene_open(
    /// Path of the scene file.
    path: String,
) {
    let _ = path;
}

fn main() {}
