/// Reads the editor's selection.
#[buril::tool(inline)]
fn editor_selection() -> Vec<String> {
    Vec::new()
}

fn main() {}
