#[derive(Debug)]
struct SceneMissing;

type Result<T> = std::result::Result<T, SceneMissing>;

/// Counts the objects in the scene.
#[buril::tool]
fn scene_count() -> Result<u32> {
    Err(SceneMissing)
}

fn main() {}
