/// Opens a scene.
#[buril::tool]
struct SceneOpen {
    path: String,
}

fn main() {}
