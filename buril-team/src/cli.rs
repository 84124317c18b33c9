//! The `replay` subcommand, for any binary with tools:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     buril::cli::Cli::new()
//!         .extend(buril_team::cli::extension())
//!         .run()
//! }
//! ```
//!
//! ```console
//! $ tools replay tests/traces/                 # every *.json in the folder, in name order
//! match  tests/traces/inspect.json: match: 4 of 4 calls replayed as recorded
//! drift  tests/traces/rig.json: drift: calls[2] (`scene_list`): the envelope differs at `/data/scenes/0/bytes`: recorded 2965, now 3001
//! ```
//!
//! Exit codes: 0 when every trace matches, 1 when one drifts, 2 when one cannot be read (or on
//! a usage error).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use buril::DispatcherBuilder;
use buril::cli::{Extension, Invocation};
use clap::{Arg, ArgAction, Command};
use serde_json::json;

use crate::replay::{ReplayOptions, replay_file};

/// The `replay` subcommand, over a dispatcher with default settings.
pub fn extension() -> Extension {
    extension_with(|dispatcher| dispatcher)
}

/// The `replay` subcommand, over a dispatcher configured by `configure` (host state, timeouts,
/// policy), like the `call` subcommand's.
pub fn extension_with(
    configure: impl FnOnce(DispatcherBuilder) -> DispatcherBuilder + 'static,
) -> Extension {
    let command = Command::new("replay")
        .about(
            "Replays recorded agent-team traces against this binary's tools, with no model. \
             Exits 0 when every trace matches, 1 on drift, 2 when a trace cannot be read.",
        )
        .arg(
            Arg::new("traces")
                .value_name("TRACE")
                .required(true)
                .num_args(1..)
                .value_parser(clap::value_parser!(PathBuf))
                .help("Trace files, or folders whose *.json files are traces (in name order)"),
        )
        .arg(
            Arg::new("ignore")
                .long("ignore")
                .value_name("POINTER")
                .action(ArgAction::Append)
                .help(
                    "Do not compare the values under this JSON pointer; `*` matches one \
                     segment (repeatable)",
                ),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("Print the reports as a JSON array"),
        )
        .arg(
            Arg::new("allow_dangerous")
                .long("allow-dangerous")
                .action(ArgAction::SetTrue)
                .help("Enable every dangerous tool, for traces that called one"),
        );
    Extension::new(command, move |invocation| run(invocation, configure))
}

fn run(
    invocation: Invocation<'_>,
    configure: impl FnOnce(DispatcherBuilder) -> DispatcherBuilder,
) -> ExitCode {
    let Invocation {
        matches,
        registry,
        out,
        err,
        ..
    } = invocation;
    let paths: Vec<PathBuf> = matches
        .get_many::<PathBuf>("traces")
        .map(|paths| paths.cloned().collect())
        .unwrap_or_default();
    let options = ReplayOptions {
        ignore: matches
            .get_many::<String>("ignore")
            .map(|p| p.cloned().collect())
            .unwrap_or_default(),
        ..ReplayOptions::default()
    };
    let allow_dangerous = matches.get_flag("allow_dangerous");
    let as_json = matches.get_flag("json");

    let mut traces = Vec::new();
    for path in &paths {
        match expand(path) {
            Ok(found) => traces.extend(found),
            Err(error) => {
                let _ = writeln!(err, "error: {}: {error}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    if traces.is_empty() {
        let _ = writeln!(err, "error: no trace files found");
        return ExitCode::from(2);
    }
    let dispatcher = configure(DispatcherBuilder::default().registry(registry))
        .update_policy(|policy| {
            let allow = policy.dangerous_allowed() || allow_dangerous;
            policy.allow_dangerous(allow)
        })
        .build();

    let mut worst = 0u8;
    let mut reports = Vec::new();
    for trace in &traces {
        match replay_file(trace, &dispatcher, &options) {
            Ok(report) => {
                let label = if report.is_match() { "match" } else { "drift" };
                if !report.is_match() {
                    worst = worst.max(1);
                }
                if !as_json
                    && let Err(error) =
                        writeln!(out, "{label}  {}: {}", trace.display(), report.message)
                    && error.kind() == std::io::ErrorKind::BrokenPipe
                {
                    // The reader has gone (`replay traces | head`): stop quietly, with the
                    // traces replayed so far deciding the exit code.
                    return ExitCode::from(worst);
                }
                reports.push(json!({"trace": trace.display().to_string(), "report": report}));
            }
            Err(error) => {
                worst = 2;
                let _ = writeln!(err, "error: {error}");
                reports.push(
                    json!({"trace": trace.display().to_string(), "error": error.to_string()}),
                );
            }
        }
    }
    if as_json {
        let text = serde_json::to_string_pretty(&reports).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    }
    ExitCode::from(worst)
}

/// A trace file, or the `*.json` files of a folder, sorted.
fn expand(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        if !path.exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file or folder",
            ));
        }
        return Ok(vec![path.to_owned()]);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    found.sort();
    Ok(found)
}
