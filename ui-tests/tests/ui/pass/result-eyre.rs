use buril_test_support::call;
use eyre::WrapErr as _;
use serde_json::json;

/// Reads a text file.
#[buril::tool]
fn file_read(
    /// Path of the file.
    path: String,
) -> eyre::Result<String> {
    let text = std::fs::read_to_string(&path).wrap_err("reading the file")?;
    Ok(text)
}

/// Checks a level number.
#[buril::tool]
fn level_check(
    /// The level.
    level: u8,
) -> Result<u8, eyre::Report> {
    eyre::ensure!(level < 10, "there are 10 levels, not {level}");
    Ok(level)
}

fn main() {
    let envelope = call("file_read", json!({"path": "/no/such/file"}));
    let message = envelope["error"].as_str().unwrap();
    assert!(message.starts_with("reading the file: "), "{message}");
    let envelope = call("level_check", json!({"level": 12}));
    assert_eq!(envelope["error"], "there are 10 levels, not 12");
}
