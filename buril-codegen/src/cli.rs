//! The `codegen` subcommand, for any binary with tools:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     buril::cli::Cli::new().extend(buril_codegen::cli::extension()).run()
//! }
//! ```
//!
//! `codegen --out DIR` writes `DIR/csharp`, `DIR/typescript` and `DIR/skills` (with
//! `--unity-package NAME`, the C# as the Unity package in `DIR/unity` instead of `DIR/csharp`),
//! printing what changed; `codegen --out DIR --check` writes nothing and exits 1, naming the stale files,
//! when `DIR` differs from what would be generated.

use std::path::PathBuf;
use std::process::ExitCode;

use buril_cli::{Extension, Invocation};
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
            Arg::new("unity-package")
                .long("unity-package")
                .value_name("NAME")
                .help(
                    "Writes the C# bindings as the Unity package NAME (reverse-domain: \
                     com.example.tools) into DIR/unity, instead of plain files in DIR/csharp.",
                ),
        )
        .arg(
            Arg::new("package-version")
                .long("package-version")
                .value_name("VERSION")
                .requires("unity-package")
                .help("The Unity package's version [default: 0.1.0]."),
        )
        .arg(
            Arg::new("package-display-name")
                .long("package-display-name")
                .value_name("TEXT")
                .requires("unity-package")
                .help("The name the Package Manager shows [default: the package's name]."),
        )
        .arg(
            Arg::new("server-stubs")
                .long("server-stubs")
                .action(ArgAction::SetTrue)
                .requires("unity-package")
                .help("Puts the server-side stubs (Buril.Tools.cs) in the Unity package too."),
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
    let mut generator = Generator::new()
        .registry(registry)
        .typescript(dir.join("typescript"))
        .skills(dir.join("skills"));
    if !matches.contains_id("unity-package") {
        generator = generator.csharp(dir.join("csharp"));
    }
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
    if let Some(name) = matches.get_one::<String>("unity-package") {
        let package = crate::UnityPackage::new(name.clone()).and_then(|package| {
            let package = package.server_stubs(matches.get_flag("server-stubs"));
            let package = match matches.get_one::<String>("package-display-name") {
                Some(display) => package.display_name(display.clone()),
                None => package,
            };
            match matches.get_one::<String>("package-version") {
                Some(version) => package.version(version.clone()),
                None => Ok(package),
            }
        });
        match package {
            Ok(package) => generator = generator.unity_package(dir.join("unity"), package),
            Err(error) => {
                let _ = writeln!(err, "error: {error}");
                return ExitCode::from(2);
            }
        }
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
    if !report.renamed.is_empty() && !check {
        let renamed: Vec<String> = report
            .renamed
            .iter()
            .map(|(from, to)| format!("{from} is {to}"))
            .collect();
        let _ = writeln!(
            out,
            "C# types named apart from Unity's (UnityEngine, UnityEditor, System): {}",
            renamed.join(", ")
        );
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
