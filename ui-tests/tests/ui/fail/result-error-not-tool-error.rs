#[derive(Debug)]
struct SceneMissing;

/// Counts the objects in the scene.
#[buril::tool]
fn scene_count() -> Result<u32, SceneMissing> {
    Err(SceneMissing)
}

fn main() {}
