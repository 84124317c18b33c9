//! The `codegen` subcommand, for any binary with tools:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     buril::cli::Cli::new().extend(buril_codegen::cli::extension()).run()
//! }
//! ```
//!
//! `codegen --out DIR` writes `DIR/csharp`, `DIR/typescript` and `DIR/skills`, printing what
//! changed; `codegen --out DIR --check` writes nothing and exits 1, naming the stale files,
//! when `DIR` differs from what would be generated.

use std::path::PathBuf;
use std::process::ExitCode;

use buril::cli::{Extension, Invocation};
use clap::{Arg, ArgAction, Command, value_parser};

use crate::generator::{FileState, Generator};

/// The `codegen` subcommand.
pub fn extension() -> Extension {
    let command = Command::new("codegen")
        .about("Generates C# and TypeScript bindings and agent skills from the tools.")
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .required(true)
                .value_parser(value_parser!(PathBuf))
                .help("Writes DIR/csharp, DIR/typescript and DIR/skills."),
        )
        .arg(
            Arg::new("check")
                .long("check")
                .action(ArgAction::SetTrue)
                .help("Writes nothing; exits 1 naming the stale files when DIR is not current."),
        )
        .arg(
            Arg::new("skills-command")
                .long("skills-command")
                .value_name("COMMAND")
                .help("The command the skills tell agents to run [default: tools]."),
        );
    #[cfg(feature = "hub")]
    let command = command
        .arg(
            Arg::new("from-server")
                .long("from-server")
                .value_name("URL")
                .conflicts_with("from-command")
                .help(
                    "Generates for the tools of the MCP server at URL (Streamable HTTP), \
                     whoever wrote it, instead of this binary's.",
                ),
        )
        .arg(
            Arg::new("from-command")
                .long("from-command")
                .value_name("COMMAND")
                .num_args(1..)
                .allow_hyphen_values(true)
                .help(
                    "Generates for the tools of the MCP server COMMAND starts (over stdio), \
                     whoever wrote it; its arguments follow it to the end of the line.",
                ),
        )
        .arg(
            Arg::new("server-name")
                .long("server-name")
                .value_name("NAME")
                .default_value("server")
                .help("The family the server's tools are grouped under (skills, docs)."),
        );
    Extension::new(command, run)
}

fn run(invocation: Invocation<'_>) -> ExitCode {
    let Invocation {
        matches,
        registry,
        out,
        err,
        ..
    } = invocation;
    let Some(dir) = matches.get_one::<PathBuf>("out") else {
        let _ = writeln!(err, "error: --out DIR is required");
        return ExitCode::from(2);
    };
    let check = matches.get_flag("check");
    let mut generator = Generator::new().registry(registry).out_dir(dir);
    #[cfg(feature = "hub")]
    match crate::foreign::sources(matches) {
        Ok(Some(sources)) => generator = generator.sources(sources).other_server(true),
        Ok(None) => {}
        Err(error) => {
            let _ = writeln!(err, "error: {error}");
            return ExitCode::from(1);
        }
    }
    if let Some(command) = matches.get_one::<String>("skills-command") {
        generator = generator.skills_command(command.clone());
    }
    let result = if check {
        generator.check()
    } else {
        generator.write()
    };
    let report = match result {
        Ok(report) => report,
        Err(error) => {
            let _ = writeln!(err, "error: {error}");
            return ExitCode::from(1);
        }
    };
    for note in &report.notes {
        let _ = writeln!(err, "note: {note}");
    }
    let relative =
        |path: &std::path::Path| path.strip_prefix(dir).unwrap_or(path).display().to_string();
    if check {
        if report.is_current() {
            let _ = writeln!(
                out,
                "{}: {} files, all current",
                dir.display(),
                report.files.len()
            );
            return ExitCode::SUCCESS;
        }
        let _ = writeln!(
            err,
            "{} is stale; run `codegen --out {}`:",
            dir.display(),
            dir.display()
        );
        for (path, state) in &report.files {
            let what = match state {
                FileState::Created => "missing",
                FileState::Changed => "differs",
                FileState::Removed => "no longer generated",
                FileState::Unchanged => continue,
            };
            let _ = writeln!(err, "  {what}: {}", relative(path));
        }
        return ExitCode::from(1);
    }
    for (path, state) in &report.files {
        let what = match state {
            FileState::Created => "created",
            FileState::Changed => "changed",
            FileState::Removed => "removed",
            FileState::Unchanged => continue,
        };
        let _ = writeln!(out, "  {what}: {}", relative(path));
    }
    let _ = writeln!(
        out,
        "{}: {} created, {} changed, {} removed, {} unchanged",
        dir.display(),
        report.count(FileState::Created),
        report.count(FileState::Changed),
        report.count(FileState::Removed),
        report.count(FileState::Unchanged),
    );
    ExitCode::SUCCESS
}
