//! External MCP servers for a one-shot command (`list`, `describe`, `call`, `schema`): the
//! config file's `[[external]]` tables and the `--external` flags, connected before the command
//! looks its tools up; and the Unity editor (`--editor`), followed by every command.

use std::io::Write;
use std::path::{Path, PathBuf};
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

/// How long a one-shot command waits for the editor to be connected and its tools listed.
const EDITOR_SETTLE: Duration = Duration::from_secs(10);

/// The project whose editor the command follows: `--editor`, else `BURIL_EDITOR`, else the
/// current folder when its editor announced itself there.
pub(crate) fn editor_project(matches: &clap::ArgMatches) -> Option<PathBuf> {
    let flag = matches
        .subcommand()
        .and_then(|(_, sub)| sub.try_get_one::<PathBuf>("editor").ok().flatten())
        .or_else(|| matches.try_get_one::<PathBuf>("editor").ok().flatten())
        .cloned();
    flag.or_else(|| std::env::var_os("BURIL_EDITOR").map(PathBuf::from))
        .or_else(|| {
            Path::new(buril_mcp::hub::editor::ENDPOINT_FILE)
                .exists()
                .then(|| PathBuf::from("."))
        })
}

/// Follows the editor of `project`; a one-shot command (`settle`) first waits until it is
/// connected or seen to be absent, saying on `err` when it is not there.
pub(crate) fn follow_editor(
    registry: &'static Registry,
    project: PathBuf,
    settle: bool,
    err: &mut dyn Write,
) {
    let options = buril_mcp::hub::editor::EditorOptions::new(project);
    let file = options.endpoint_file();
    let editor = buril_mcp::hub::editor::follow(registry, options);
    if settle && !editor.wait_connected(EDITOR_SETTLE) {
        let _ = writeln!(
            err,
            "buril: no Unity editor serves at {} yet; its tools answer `unavailable`",
            file.display()
        );
    }
}
