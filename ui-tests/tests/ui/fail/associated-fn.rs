struct Scene;

impl Scene {
    /// Opens the scene.
    #[buril::tool]
    fn scene_open() {}
}

fn main() {}
