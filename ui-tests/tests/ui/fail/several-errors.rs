#[buril::tool(name = "FindObject", off_thred)]
fn scene_find(
    /// The object's name.
    name: String,
    limit: u32,
) -> Option<u64> {
    name.parse::<u64>().ok().filter(|_| limit > 0)
}

fn main() {}
