//! External MCP servers for a one-shot command (`list`, `describe`, `call`, `schema`): the
//! config file's `[[external]]` tables and the `--external` flags, connected before the command
//! looks its tools up.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use buril_core::Registry;
use buril_mcp::hub::{Hub, from_config_file, from_flag};
use buril_mcp::server::DEFAULT_CONFIG_FILE as CONFIG_FILE;

/// How long a command waits for each server's first attempt to connect.
const SETTLE: Duration = Duration::from_secs(30);

/// Connects the external servers of `flags` and of the config file, if there are any, and
/// waits until each has connected or failed; a server that failed is said on `err`.
pub(crate) fn connect(
    registry: &'static Registry,
    flags: &[String],
    err: &mut dyn Write,
) -> Result<(), String> {
    let mut externals = from_config_file(Path::new(CONFIG_FILE))?;
    for flag in flags {
        externals.push(from_flag(flag)?);
    }
    if externals.is_empty() {
        return Ok(());
    }
    let hub = Hub::of(registry);
    let refused = hub.sync(externals);
    if let Some(error) = refused.first() {
        return Err(error.to_string());
    }
    hub.wait_settled(SETTLE);
    for status in hub.statuses() {
        if let Some(error) = &status.last_error {
            let _ = writeln!(err, "buril: {error}");
        }
        for refused in &status.refused {
            let _ = writeln!(err, "buril: {}: {refused}", status.name);
        }
    }
    Ok(())
}
