/// Compresses a file.
#[buril::tool(off_thread(true))]
fn file_compress() {}

fn main() {}
