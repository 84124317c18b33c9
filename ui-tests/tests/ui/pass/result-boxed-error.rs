use std::error::Error;

use buril_test_support::call;
use serde_json::json;

/// Parses a port number.
#[buril::tool]
fn port_parse(
    /// The text to parse.
    text: String,
) -> Result<u16, Box<dyn Error + Send + Sync>> {
    if text.is_empty() {
        return Err("the text is empty".into());
    }
    Ok(text.parse::<u16>()?)
}

/// Parses a port number, with a plain boxed error.
#[buril::tool]
fn port_check(
    /// The text to parse.
    text: String,
) -> Result<u16, Box<dyn Error>> {
    Ok(text.parse::<u16>()?)
}

fn main() {
    let envelope = call("port_parse", json!({"text": ""}));
    assert_eq!(envelope["error"], "the text is empty");
    let envelope = call("port_parse", json!({"text": "x"}));
    assert_eq!(envelope["error"], "invalid digit found in string");
    let envelope = call("port_check", json!({"text": "99999"}));
    assert_eq!(envelope["error"], "number too large to fit in target type");
}
