/// Reads the editor's selection.
#[buril::tool(off_thread, inline)]
async fn editor_selection() -> Vec<String> {
    Vec::new()
}

fn main() {}
