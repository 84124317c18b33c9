//! What the commands say when a name or an argument is wrong.

use std::io::{self, Write};
use std::process::ExitCode;

use buril_core::Registry;

pub(crate) fn unknown_tool(registry: &Registry, name: &str) -> String {
    buril_core::frontend::unknown_tool(name, &registry.suggest(name))
}

pub(crate) fn usage(err: &mut dyn Write, message: &str) -> io::Result<ExitCode> {
    writeln!(err, "error: {message}")?;
    Ok(ExitCode::from(2))
}
