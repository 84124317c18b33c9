/// Finds an object by name.
#[buril::tool]
fn scene_find(
    /// The object's name.
    name: String,
) -> Option<u64> {
    name.parse().ok()
}

fn main() {}
