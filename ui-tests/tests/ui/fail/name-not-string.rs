/// Compresses a file.
#[buril::tool(name = file_zip)]
fn file_compress() {}

fn main() {}
