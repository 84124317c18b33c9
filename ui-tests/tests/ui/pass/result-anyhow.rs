use anyhow::Context as _;
use buril_test_support::call;
use serde_json::json;

/// Reads a text file.
#[buril::tool]
fn file_read(
    /// Path of the file.
    path: String,
) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    Ok(text)
}

/// Reads a text file, asynchronously.
#[buril::tool(off_thread)]
async fn file_read_later(
    /// Path of the file.
    path: String,
) -> Result<String, anyhow::Error> {
    if path.is_empty() {
        anyhow::bail!("the path is empty");
    }
    Ok(path)
}

fn main() {
    let envelope = call("file_read", json!({"path": "/no/such/file"}));
    assert_eq!(envelope["type"], "runtime");
    let message = envelope["error"].as_str().unwrap();
    assert!(message.starts_with("reading /no/such/file: "), "{message}");
    let envelope = call("file_read_later", json!({"path": ""}));
    assert_eq!(envelope["error"], "the path is empty");
}
