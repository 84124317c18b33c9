/// Compresses a file.
#[buril::tool(off_thred)]
fn file_compress() {}

fn main() {}
