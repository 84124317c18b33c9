/// Compresses a file.
#[buril::tool(off_thread = "yes")]
fn file_compress() {}

fn main() {}
