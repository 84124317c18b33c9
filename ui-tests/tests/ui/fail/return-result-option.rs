/// Finds an object by name.
#[buril::tool]
fn scene_find(
    /// The object's name.
    name: String,
) -> Result<Option<u64>, buril::ToolError> {
    Ok(name.parse().ok())
}

fn main() {}
