//! `call`: one call through a dispatcher, its envelope printed.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::ask::Terminal;
use super::messages::usage;
use super::pipe::unless_closed;
use buril_core::Outcome;
use buril_core::Registry;
use buril_core::frontend::{result_kind, write_binary_blocks};
use buril_core::policy::Policy;
use buril_core::policy::ToolPattern;
use buril_core::{CallOptions, Dispatcher, DispatcherBuilder};
use buril_core::{Problem, ToolError};

/// How the host adjusts the dispatcher before a call (host state, timeouts, policy).
pub(crate) type Configure = Box<dyn FnOnce(DispatcherBuilder) -> DispatcherBuilder>;

pub(crate) struct CallFlags {
    pub(crate) timeout: Option<f64>,
    pub(crate) enable: Vec<String>,
    pub(crate) disable: Vec<String>,
    pub(crate) allow_dangerous: bool,
    pub(crate) compact: bool,
    /// Where binary content goes (`None`: printed as base64).
    pub(crate) binary_dir: Option<PathBuf>,
    /// Refuse the tool's questions.
    pub(crate) no_input: bool,
    /// Where detached calls' tasks are.
    pub(crate) tasks_dir: PathBuf,
}

pub(crate) fn call(
    configure: Configure,
    registry: &'static Registry,
    name: &str,
    input: Option<&str>,
    flags: CallFlags,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let dispatcher = match dispatcher_for(configure, registry, &flags) {
        Ok(dispatcher) => dispatcher,
        Err(message) => return usage(err, &message),
    };
    let terminal = if flags.no_input {
        Terminal::refusing("`--no-input` was given")
    } else if input == Some("-") {
        Terminal::refusing("standard input carried the call's input, so nothing can be asked on it")
    } else {
        Terminal::new()
    };
    let mut options = CallOptions::default().input(Arc::new(terminal));
    // The `task_*` tools follow the tasks of detached calls.
    if let Ok(store) = buril_core::tasks::FileStore::open(&flags.tasks_dir) {
        options = options.follow_tasks(buril_core::tasks::Tasks::new(store), None);
    }
    match timeout_of(flags.timeout) {
        Ok(timeout) => options.timeout = timeout,
        Err(message) => return usage(err, &message),
    }
    let outcome = match parse_input(input, &dispatcher) {
        Ok(input) => dispatcher.invoke(name, input, options),
        Err(error) => Outcome::err(error),
    };
    let code = if outcome.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let mut envelope = outcome.into_envelope();
    if let Some(dir) = &flags.binary_dir
        && let Some(tool) = registry.get(name)
        && result_kind(tool.output_schema()).is_some()
        && let Some(Value::Array(blocks)) = envelope.pointer_mut("/data/content")
        && let Err(error) = write_binary_blocks(blocks, dir, tool.name(), None)
    {
        writeln!(
            err,
            "the binary content could not be written to {} ({error}); it is printed as base64",
            dir.display()
        )?;
    }
    let text = if flags.compact {
        serde_json::to_string(&envelope)?
    } else {
        serde_json::to_string_pretty(&envelope)?
    };
    // The call has run: a reader that went away does not change how it went.
    unless_closed(writeln!(out, "{text}"))?;
    Ok(code)
}

/// The dispatcher of a call: the host's, with the flags' rules added to its policy (the host's
/// `disable` rules still win).
pub(crate) fn dispatcher_for(
    configure: Configure,
    registry: &'static Registry,
    flags: &CallFlags,
) -> Result<Dispatcher, String> {
    let mut enable = Vec::new();
    for text in &flags.enable {
        enable.push(
            text.parse::<ToolPattern>()
                .map_err(|error| error.to_string())?,
        );
    }
    let mut disable = Vec::new();
    for text in &flags.disable {
        disable.push(
            text.parse::<ToolPattern>()
                .map_err(|error| error.to_string())?,
        );
    }
    let allow_dangerous = flags.allow_dangerous;
    let update = move |policy: Policy| {
        let allow = policy.dangerous_allowed() || allow_dangerous;
        let policy = enable.into_iter().fold(policy, Policy::enable);
        disable
            .into_iter()
            .fold(policy, Policy::disable)
            .allow_dangerous(allow)
    };
    let builder = configure(DispatcherBuilder::default().registry(registry));
    Ok(builder.update_policy(update).build())
}

/// `--timeout` as a duration.
pub(crate) fn timeout_of(seconds: Option<f64>) -> Result<Option<Duration>, String> {
    match seconds {
        None => Ok(None),
        Some(seconds) => match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if seconds > 0.0 => Ok(Some(timeout)),
            _ => Err("--timeout takes a positive number of seconds".to_owned()),
        },
    }
}

/// Reads and parses a call's input, applying the dispatcher's input limits to the raw text
/// first: standard input is read no further than one byte past `max_input_bytes`.
pub(crate) fn parse_input(
    input: Option<&str>,
    dispatcher: &Dispatcher,
) -> Result<Value, ToolError> {
    let text = match input {
        None => return Ok(Value::Object(Map::new())),
        Some("-") => {
            let max_bytes = dispatcher.input_limits().max_bytes;
            let mut bytes = Vec::new();
            io::stdin()
                .take(
                    u64::try_from(max_bytes)
                        .unwrap_or(u64::MAX)
                        .saturating_add(1),
                )
                .read_to_end(&mut bytes)
                .map_err(|error| {
                    ToolError::invalid(format!("standard input could not be read: {error}"))
                })?;
            dispatcher.check_input_text(&bytes)?;
            String::from_utf8(bytes).map_err(|error| {
                ToolError::from_problems(vec![Problem::new(
                    "",
                    format!(
                        "the input is not valid UTF-8 (at byte {})",
                        error.utf8_error().valid_up_to()
                    ),
                )])
            })?
        }
        Some(text) => text.to_owned(),
    };
    dispatcher.check_input_text(text.as_bytes())?;
    serde_json::from_str(&text).map_err(|error| {
        ToolError::from_problems(vec![Problem::new(
            "",
            format!("the input is not valid JSON: {error}"),
        )])
    })
}
