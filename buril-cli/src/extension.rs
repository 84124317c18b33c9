//! Subcommands other crates add to the CLI.

use std::io::Write;
use std::process::ExitCode;

use buril_core::Registry;

/// What an [`Extension`] command runs with.
#[non_exhaustive]
pub struct Invocation<'a> {
    /// The parsed arguments of the extension's subcommand.
    pub matches: &'a clap::ArgMatches,
    /// The tools of the binary.
    pub registry: &'static Registry,
    /// Standard output. When it is a pipe whose reader has gone (`tools codegen … | head`),
    /// writes fail with [`std::io::ErrorKind::BrokenPipe`] (every one after the first at
    /// once): end quietly then, printing nothing about it, with the exit code the command
    /// already had.
    pub out: &'a mut dyn Write,
    /// Standard error.
    pub err: &'a mut dyn Write,
    /// Whether `out` is the process's standard output (the CLI runs as the process's
    /// command), so that a command may write to file descriptor 1 itself (the server's
    /// `serve` over stdio does).
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) process_stdout: bool,
}

type Run = Box<dyn FnOnce(Invocation<'_>) -> ExitCode>;

/// A subcommand added to the CLI by another crate (code generation, a server), so that one
/// binary gets every command with one line each.
pub struct Extension {
    pub(crate) command: clap::Command,
    pub(crate) run: Run,
}

impl Extension {
    /// A subcommand: its `clap` definition (its name is the subcommand's) and what it runs.
    pub fn new(
        command: clap::Command,
        run: impl FnOnce(Invocation<'_>) -> ExitCode + 'static,
    ) -> Self {
        Extension {
            command,
            run: Box::new(run),
        }
    }
}
