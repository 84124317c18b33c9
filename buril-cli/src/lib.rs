//! A command-line interface over a binary's tools: `list`, `describe`, `call`, `schema` and
//! `tasks`; with the `server` feature, `serve` (MCP over stdio and Streamable HTTP) and
//! `settings` too, and `studio` with the `studio` feature.
//!
//! Any crate with tools gets it with one line:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     buril::cli::main()
//! }
//! ```
//!
//! A host with state to hand its tools uses [`Cli`]:
//!
//! ```no_run
//! # struct Project;
//! fn main() -> std::process::ExitCode {
//!     buril::cli::Cli::new().configure(|dispatcher| dispatcher.state(Project)).run()
//! }
//! ```

mod args;
mod ask;
mod call;
mod describe;
mod extension;
#[cfg(feature = "hub")]
mod hub;
mod list;
mod messages;
mod pipe;
mod schema;
#[cfg(feature = "server")]
mod serve;
#[cfg(feature = "server")]
mod settings;
mod tasks;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use self::args::{Args, Command, TasksCommand};
use self::call::{CallFlags, Configure, call};
use self::describe::describe;
pub use self::extension::{Extension, Invocation};
use self::list::list;
use self::pipe::{Output, is_closed_pipe};
use self::schema::{SchemaForm, schema};
use buril_core::DispatcherBuilder;
use buril_core::{Registry, try_registry};

/// Runs the command line over every tool in the binary, with default settings.
pub fn main() -> ExitCode {
    Cli::new().run()
}

/// The command line, configurable by the host.
pub struct Cli {
    configure: Configure,
    registry: Option<&'static Registry>,
    extensions: Vec<Extension>,
    /// Whether `out` is the process's standard output (as in [`run`](Self::run)), which a
    /// server may then write itself.
    process_stdout: bool,
}

impl Default for Cli {
    fn default() -> Self {
        Cli::new()
    }
}

impl Cli {
    /// The command line over every `#[tool]` in the binary.
    pub fn new() -> Self {
        Cli {
            configure: Box::new(|builder| builder),
            registry: None,
            extensions: Vec::new(),
            process_stdout: false,
        }
    }

    /// Adds a subcommand.
    pub fn extend(mut self, extension: Extension) -> Self {
        self.extensions.push(extension);
        self
    }

    /// Adjusts the dispatcher before calls (host state, timeouts, policy).
    pub fn configure(
        mut self,
        configure: impl FnOnce(DispatcherBuilder) -> DispatcherBuilder + 'static,
    ) -> Self {
        self.configure = Box::new(configure);
        self
    }

    /// Serves `registry` instead of every `#[tool]` in the binary.
    pub fn registry(mut self, registry: &'static Registry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Parses the process's arguments and runs the command.
    ///
    /// With `BURIL_LOG` set (for example `debug`, or `buril=debug,info`: `tracing`'s target
    /// syntax), the `tracing` events of buril and the tools go to standard error, unless the
    /// host installed a subscriber of its own first. Without it, `serve --audit` sends the
    /// audit log's lines there (`buril::audit` at INFO), and `--log-format json` every INFO
    /// event.
    pub fn run(mut self) -> ExitCode {
        #[cfg(feature = "otel")]
        let telemetry = match buril_mcp::telemetry::Telemetry::from_env() {
            Ok(telemetry) => telemetry,
            Err(error) => {
                eprintln!("buril: not exporting telemetry: {error}");
                None
            }
        };
        let logs = logs_asked(std::env::args_os());
        #[cfg(feature = "otel")]
        log_to_stderr(logs, telemetry.as_ref());
        #[cfg(not(feature = "otel"))]
        log_to_stderr(logs);
        // Unlocked handles: a lock held for the whole command would block every other thread
        // that writes (a tool logging to stderr while a server runs, say).
        self.process_stdout = true;
        self.run_with(std::env::args_os(), &mut io::stdout(), &mut io::stderr())
    }

    /// Runs the command given by `args` (the first is the program name), writing to `out` and
    /// `err`. Exit codes: 0 on success, 1 when a call answers `ok: false` or a tool is unknown,
    /// 2 on a usage error.
    ///
    /// When `out` is a pipe whose reader has gone (`tools list | head`), the command ends
    /// quietly, as other command-line tools do: no message, and the exit code it already had
    /// (0 unless it had failed). Extensions see the closed pipe as writes to
    /// [`Invocation::out`] failing with [`io::ErrorKind::BrokenPipe`].
    pub fn run_with<I, T>(mut self, args: I, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let out = &mut Output::new(out);
        let mut command = Args::command();
        #[cfg(feature = "server")]
        {
            command = command.subcommand(serve::command());
        }
        for extension in &self.extensions {
            command = command.subcommand(extension.command.clone());
        }
        let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        // `studio` is `serve --studio`.
        if cfg!(feature = "studio") {
            command = command.subcommand(
                clap::Command::new("studio")
                    .about(
                        "Opens the studio: a local page to see, try and steer the tools, their \
                         settings and tasks. The same as `serve --studio` (its flags apply)",
                    )
                    .disable_help_flag(true)
                    .arg(
                        clap::Arg::new("flags")
                            .num_args(0..)
                            .trailing_var_arg(true)
                            .allow_hyphen_values(true),
                    ),
            );
            if args.get(1).is_some_and(|arg| arg == "studio") {
                args.splice(1..2, [OsString::from("serve"), OsString::from("--studio")]);
            }
        }
        let parsed = command.try_get_matches_from(args).and_then(|matches| {
            let extension = matches.subcommand_name().and_then(|name| {
                self.extensions
                    .iter()
                    .position(|e| e.command.get_name() == name)
            });
            match extension {
                Some(index) => Ok((matches, Some(index), None)),
                // `serve` is its own (`serve.rs`), not one of the derived commands.
                None if cfg!(feature = "server") && matches.subcommand_name() == Some("serve") => {
                    Ok((matches, None, None))
                }
                None => Args::from_arg_matches(&matches).map(|args| (matches, None, Some(args))),
            }
        });
        let (matches, extension, args) = match parsed {
            Ok(parsed) => parsed,
            Err(error) => {
                let code = if error.use_stderr() { 2 } else { 0 };
                let text = error.render().to_string();
                let _ = if error.use_stderr() {
                    write!(err, "{text}")
                } else {
                    write!(out, "{text}")
                };
                return ExitCode::from(code);
            }
        };
        let registry = match self.registry.map(Ok).unwrap_or_else(try_registry) {
            Ok(registry) => registry,
            Err(error) => {
                let _ = writeln!(err, "error: {error}");
                return ExitCode::from(2);
            }
        };
        #[cfg(feature = "hub")]
        if let Some(project) = hub::editor_project(&matches) {
            // A server follows the editor as it comes and goes; a one-shot command waits for it.
            let one_shot = !matches!(matches.subcommand_name(), Some("serve") | Some("tasks"));
            hub::follow_editor(registry, project, one_shot, err);
        }
        #[cfg(feature = "server")]
        if extension.is_none()
            && let Some(("serve", sub_matches)) = matches.subcommand()
        {
            return serve::run(
                Invocation {
                    matches: sub_matches,
                    registry,
                    out,
                    err,
                    process_stdout: self.process_stdout,
                },
                self.configure,
            );
        }
        if let Some(index) = extension {
            let extension = self.extensions.swap_remove(index);
            let Some((_, sub_matches)) = matches.subcommand() else {
                return ExitCode::from(2);
            };
            return (extension.run)(Invocation {
                matches: sub_matches,
                registry,
                out,
                err,
                process_stdout: self.process_stdout,
            });
        }
        let Some(args) = args else {
            return ExitCode::from(2);
        };
        #[cfg(feature = "hub")]
        if args.command.connects_externals()
            && let Err(error) = hub::connect(registry, &args.external, err)
        {
            let _ = writeln!(err, "error: {error}");
            return ExitCode::from(2);
        }
        let result = match args.command {
            Command::List { json, family } => list(registry, json, family.as_deref(), out),
            Command::Describe { name, json } => describe(registry, &name, json, out, err),
            Command::Call {
                name,
                input,
                timeout,
                enable,
                disable,
                allow_dangerous,
                compact,
                output_dir,
                inline_binary,
                no_input,
                detach,
                tasks_dir,
            } => {
                let options = CallFlags {
                    timeout,
                    enable,
                    disable,
                    allow_dangerous,
                    compact,
                    binary_dir: (!inline_binary).then_some(output_dir),
                    no_input,
                    tasks_dir: tasks::tasks_dir(tasks_dir),
                };
                if detach {
                    return finish(
                        tasks::detach(
                            self.configure,
                            registry,
                            &name,
                            input.as_deref(),
                            options,
                            out,
                            err,
                        ),
                        out,
                        err,
                    );
                }
                call(
                    self.configure,
                    registry,
                    &name,
                    input.as_deref(),
                    options,
                    out,
                    err,
                )
            }
            Command::Tasks { action, tasks_dir } => {
                let dir = tasks::tasks_dir(tasks_dir);
                let (action, json) = match action {
                    TasksCommand::List { json } => (tasks::TasksAction::List, json),
                    TasksCommand::Get { handle } => (tasks::TasksAction::Get(handle), false),
                    TasksCommand::Wait { handle, timeout } => {
                        (tasks::TasksAction::Wait(handle, timeout), false)
                    }
                    TasksCommand::Cancel { handle } => (tasks::TasksAction::Cancel(handle), false),
                    TasksCommand::Answer {
                        handle,
                        key,
                        answer,
                    } => (tasks::TasksAction::Answer(handle, key, answer), false),
                };
                tasks::tasks(action, dir, json, out, err)
            }
            #[cfg(feature = "server")]
            Command::Settings(settings_args) => {
                settings::settings(registry, settings_args, out, err)
            }
            Command::RunTask { dir, id } => {
                tasks::run_detached(self.configure, registry, &dir, &id, err)
            }
            Command::Schema {
                profile,
                name,
                chat_completions,
            } => {
                let form = SchemaForm {
                    profile,
                    chat_completions,
                };
                schema(registry, form, name.as_deref(), out, err)
            }
        };
        finish(result, out, err)
    }
}

/// The exit code of a command's result: a closed standard output ends it quietly.
fn finish(result: io::Result<ExitCode>, out: &mut Output<'_>, err: &mut dyn Write) -> ExitCode {
    match result {
        Ok(code) => code,
        // The reader of standard output has gone: nothing to say, and nobody to say it to.
        Err(error) if is_closed_pipe(&error) || out.is_closed() => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(err, "error: {error}");
            ExitCode::from(2)
        }
    }
}

/// What the arguments ask of the logs before they are parsed (the subscriber is set up first;
/// clap checks the flags' values then).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LogsAsked {
    /// `serve --log-format json`: one JSON object per line.
    json: bool,
    /// `serve --audit`: the audit log's lines, at least.
    audit: bool,
}

fn logs_asked(args: impl IntoIterator<Item = OsString>) -> LogsAsked {
    let mut asked = LogsAsked::default();
    let mut previous = OsString::new();
    for arg in args {
        if arg == "--log-format=json" || (previous == "--log-format" && arg == "json") {
            asked.json = true;
        }
        if arg == "--audit" {
            asked.audit = true;
        }
        previous = arg;
    }
    asked
}

/// Sends `tracing` events to standard error as `BURIL_LOG` filters them (`tracing`'s
/// `target=level` list; a bare level for every target), as text, or as one JSON object per line
/// with `json` (then at INFO when `BURIL_LOG` is not set). Without `BURIL_LOG`, an audit log
/// asked for is written at INFO. An unreadable filter is said once, and nothing is logged.
fn log_to_stderr(
    asked: LogsAsked,
    #[cfg(feature = "otel")] telemetry: Option<&buril_mcp::telemetry::Telemetry>,
) {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    type Boxed = Box<dyn Layer<tracing_subscriber::Registry> + Send + Sync>;
    let json = asked.json;
    let filter = match std::env::var_os("BURIL_LOG") {
        Some(filter) => Some(filter.to_string_lossy().into_owned()),
        None if json => Some("info".to_owned()),
        None if asked.audit => Some("buril::audit=info".to_owned()),
        None => None,
    };
    let targets = match filter
        .as_deref()
        .map(str::parse::<tracing_subscriber::filter::Targets>)
    {
        Some(Ok(targets)) => Some(targets),
        Some(Err(error)) => {
            eprintln!(
                "buril: BURIL_LOG={} is not a filter ({error}); not logging",
                filter.unwrap_or_default()
            );
            None
        }
        None => None,
    };
    let mut layers: Vec<Boxed> = Vec::new();
    if let Some(targets) = &targets {
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(io::stderr)
            .with_ansi(false);
        layers.push(if json {
            layer
                .json()
                .with_current_span(true)
                .with_span_list(false)
                .with_filter(targets.clone())
                .boxed()
        } else {
            layer.with_filter(targets.clone()).boxed()
        });
    }
    // Spans to OTLP: at INFO, or as BURIL_LOG filters.
    #[cfg(feature = "otel")]
    if let Some(layer) = telemetry.and_then(|telemetry| telemetry.layer()) {
        let targets = targets.unwrap_or_else(|| {
            tracing_subscriber::filter::Targets::new().with_default(tracing::Level::INFO)
        });
        layers.push(layer.with_filter(targets).boxed());
    }
    if layers.is_empty() {
        return;
    }
    // A host that installed its own subscriber keeps it.
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layers));
}
