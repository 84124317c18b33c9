/// Compresses a file.
#[buril::tool(priority = 3)]
fn file_compress() {}

fn main() {}
