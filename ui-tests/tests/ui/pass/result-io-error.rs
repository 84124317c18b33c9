use buril_test_support::call;
use serde_json::json;

/// Reads a text file.
#[buril::tool]
fn file_read(
    /// Path of the file.
    path: String,
) -> Result<String, std::io::Error> {
    let text = std::fs::read_to_string(path)?;
    Ok(text)
}

fn main() {
    let envelope = call("file_read", json!({"path": "/no/such/file"}));
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["type"], "runtime");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let text = &call("file_read", json!({ "path": path }))["data"]["result"];
    assert!(text.as_str().unwrap().contains("[package]"));
}
