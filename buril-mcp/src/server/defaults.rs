//! The defaults of a server's settings.

use std::time::Duration;

/// The timeout of a call when nothing sets one: 60 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default size past which a result is written to a file: 100 000 bytes of JSON.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 100_000;

/// How long results written to files are kept by default: one day.
pub const DEFAULT_KEEP_RESULTS: Duration = Duration::from_secs(24 * 60 * 60);

pub use buril_core::frontend::DEFAULT_OUTPUT_DIR;

/// The config file the CLI watches when `--config` is not given, relative to the current
/// folder. It may be missing, and may be created later.
pub const DEFAULT_CONFIG_FILE: &str = ".buril/server.toml";

/// The default number of tools on one page of `tools/list`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The environment variable that turns the fast paths (`fast_path/`) off for servers that do
/// not say (`off`), as the test script does to run every server test both ways.
pub(crate) const FAST_PATHS_VARIABLE: &str = "BURIL_FAST_PATHS";

/// Whether the fast paths are on by default: unless [`FAST_PATHS_VARIABLE`] says `off`.
pub(crate) fn fast_paths_by_default() -> bool {
    std::env::var(FAST_PATHS_VARIABLE).map_or(true, |value| value != "off")
}
