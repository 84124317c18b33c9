//! The error types tools already use (`anyhow`, `eyre`, `Box<dyn Error>`, `String`, `&str`)
//! reach the envelope with their message verbatim; `?` inside such tools works as in any Rust
//! function; an error message past the limit is cut to a preview.

use std::error::Error;
use std::fmt;

use buril::ToolError;
use buril_test_support::call;
use serde_json::{Value, json};

/// The failure every tool below starts from: an I/O error on a file that is not there.
fn missing_file() -> std::io::Result<String> {
    std::fs::read_to_string("/no/such/dir/settings.toml")
}

/// Reads the settings with anyhow, adding context.
#[buril::tool(off_thread)]
fn err_anyhow() -> anyhow::Result<String> {
    use anyhow::Context as _;
    let text = missing_file().context("reading the settings")?;
    Ok(text)
}

/// Fails with an anyhow error with two layers of context.
#[buril::tool(off_thread)]
fn err_anyhow_layers() -> Result<u8, anyhow::Error> {
    use anyhow::Context as _;
    let inner: anyhow::Result<u8> = Err(anyhow::anyhow!("the port is taken"));
    let middle = inner.context("binding the listener")?;
    Ok(middle)
}

/// Fails with an eyre report with context.
#[buril::tool(off_thread)]
fn err_eyre() -> eyre::Result<String> {
    use eyre::WrapErr as _;
    let text = missing_file().wrap_err("reading the settings")?;
    Ok(text)
}

/// Fails with a boxed error whose source is an I/O error.
#[buril::tool(off_thread)]
fn err_boxed() -> Result<String, Box<dyn Error + Send + Sync>> {
    let text = missing_file().map_err(|source| Wrapped { source })?;
    Ok(text)
}

/// Fails with a boxed error made from a string (`?` on `Result<_, &str>`).
#[buril::tool(off_thread)]
fn err_boxed_str() -> Result<u8, Box<dyn Error>> {
    let parsed: Result<u8, &str> = Err("the level is not a number");
    Ok(parsed?)
}

/// Fails with a `String`.
#[buril::tool(off_thread)]
fn err_string(
    /// The name to look up.
    name: String,
) -> Result<u8, String> {
    Err(format!("no object is named `{name}`"))
}

/// Fails with a `&'static str`.
#[buril::tool(off_thread)]
fn err_str() -> Result<u8, &'static str> {
    Err("the scene is locked")
}

/// Fails with a `ToolError` made from any `Display`.
#[buril::tool(off_thread)]
fn err_from_display() -> Result<u8, ToolError> {
    let error = anyhow::anyhow!("inner").context("outer");
    Err(ToolError::from_display(error))
}

/// Fails with an error that converts by its own `From` impl (kind kept).
#[buril::tool(off_thread)]
fn err_own_from() -> Result<u8, Refusal> {
    Err(Refusal)
}

/// Fails with a message as long as the input it repeats.
#[buril::tool(off_thread)]
fn err_long(
    /// The handle to look up.
    handle: String,
) -> Result<u8, String> {
    Err(format!("no team run has the handle `{handle}`"))
}

/// Fails with a message exactly at the limit.
#[buril::tool(off_thread)]
fn err_at_limit(
    /// How many characters.
    length: usize,
) -> Result<u8, String> {
    Err("é".repeat(length))
}

#[derive(Debug)]
struct Wrapped {
    source: std::io::Error,
}

impl fmt::Display for Wrapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the settings could not be read")
    }
}

impl Error for Wrapped {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.source)
    }
}

struct Refusal;

impl From<Refusal> for ToolError {
    fn from(_: Refusal) -> Self {
        ToolError::invalid("refused: the input names a folder")
    }
}

/// The `ENOENT` message of this platform.
fn no_such_file() -> String {
    missing_file().unwrap_err().to_string()
}

fn failure(name: &str, input: Value) -> (String, String) {
    let envelope = call(name, input);
    assert_eq!(envelope["ok"], false, "{envelope}");
    (
        envelope["type"].as_str().unwrap().to_owned(),
        envelope["error"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn anyhow_errors_reach_the_envelope_with_their_context_chain() {
    let (kind, message) = failure("err_anyhow", json!({}));
    assert_eq!(kind, "runtime");
    assert_eq!(message, format!("reading the settings: {}", no_such_file()));
    let (_, message) = failure("err_anyhow_layers", json!({}));
    assert_eq!(message, "binding the listener: the port is taken");
}

#[test]
fn eyre_reports_reach_the_envelope_with_their_context_chain() {
    let (kind, message) = failure("err_eyre", json!({}));
    assert_eq!(kind, "runtime");
    assert_eq!(message, format!("reading the settings: {}", no_such_file()));
}

#[test]
fn boxed_errors_reach_the_envelope_with_their_sources() {
    let (kind, message) = failure("err_boxed", json!({}));
    assert_eq!(kind, "runtime");
    assert_eq!(
        message,
        format!("the settings could not be read: {}", no_such_file())
    );
    let (_, message) = failure("err_boxed_str", json!({}));
    assert_eq!(message, "the level is not a number");
}

#[test]
fn string_errors_reach_the_envelope_verbatim() {
    let (kind, message) = failure("err_string", json!({"name": "Cube"}));
    assert_eq!(kind, "runtime");
    assert_eq!(message, "no object is named `Cube`");
    assert_eq!(
        failure("err_str", json!({})),
        ("runtime".to_owned(), "the scene is locked".to_owned())
    );
}

#[test]
fn from_display_and_own_from_impls() {
    assert_eq!(failure("err_from_display", json!({})).1, "outer: inner");
    assert_eq!(
        failure("err_own_from", json!({})),
        (
            "validation".to_owned(),
            "refused: the input names a folder".to_owned()
        )
    );
}

#[test]
fn a_huge_error_message_is_cut_to_a_preview() {
    let handle = "h".repeat(100_000);
    let (_, message) = failure("err_long", json!({ "handle": handle }));
    let full = format!("no team run has the handle `{handle}`");
    let kept = 2_000;
    let cut = full.chars().count() - kept;
    assert_eq!(
        message,
        format!("{}… [{cut} more characters cut]", &full[..kept])
    );
    // The dispatcher's own outcome is cut too, not only its wire form.
    let outcome = buril::Dispatcher::new().invoke(
        "err_long",
        json!({ "handle": handle }),
        buril::CallOptions::default(),
    );
    assert_eq!(outcome.error().unwrap().message(), message);
}

#[test]
fn an_error_message_is_cut_on_a_character_boundary_and_only_past_the_limit() {
    // Two bytes a character: the limit counts characters, and the cut never splits one.
    let (_, message) = failure("err_at_limit", json!({"length": 2_000}));
    assert_eq!(message, "é".repeat(2_000));
    let (_, message) = failure("err_at_limit", json!({"length": 2_001}));
    assert_eq!(
        message,
        format!("{}… [1 more character cut]", "é".repeat(2_000))
    );
}
