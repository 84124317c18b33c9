//! A command-line interface over a binary's tools: `list`, `describe`, `call` and `schema`.
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

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// The `clap` version the CLI is built with, for [`Extension`] commands.
use serde_json::{Map, Value, json};

use crate::descriptor::ToolDescriptor;
use crate::dispatch::{CallOptions, Dispatcher, DispatcherBuilder};
use crate::envelope::Outcome;
use crate::error::{Problem, ToolError};
use crate::pattern::ToolPattern;
use crate::policy::Policy;
use crate::profile::{self, Profile, mcp};
use crate::registry::{Registry, try_registry};

/// Runs the command line over every tool in the binary, with default settings.
pub fn main() -> ExitCode {
    Cli::new().run()
}

type Configure = Box<dyn FnOnce(DispatcherBuilder) -> DispatcherBuilder>;

/// The command line, configurable by the host.
pub struct Cli {
    configure: Configure,
    registry: Option<&'static Registry>,
    extensions: Vec<Extension>,
}

/// What an [`Extension`] command runs with.
pub struct Invocation<'a> {
    /// The parsed arguments of the extension's subcommand.
    pub matches: &'a clap::ArgMatches,
    /// The tools of the binary.
    pub registry: &'static Registry,
    /// Standard output.
    pub out: &'a mut dyn Write,
    /// Standard error.
    pub err: &'a mut dyn Write,
}

type Run = Box<dyn FnOnce(Invocation<'_>) -> ExitCode>;

/// A subcommand added to the CLI by another crate (code generation, a server), so that one
/// binary gets every command with one line each.
pub struct Extension {
    command: clap::Command,
    run: Run,
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

impl Default for Cli {
    fn default() -> Self {
        Cli::new()
    }
}

#[derive(Parser, Debug)]
#[command(about = "List, describe and call the tools of this binary.", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Lists every tool, sorted by name.
    List {
        /// Print a JSON array of {name, description, inputSchema, outputSchema, annotations}.
        #[arg(long)]
        json: bool,
        /// Only the tools of this family.
        #[arg(long)]
        family: Option<String>,
    },
    /// Shows one tool: description, parameters, schemas, flags and where it is defined.
    Describe {
        /// The tool's name (or a deprecated alias).
        name: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Calls a tool and prints the envelope. Exits 0 when `ok` is true, 1 otherwise.
    Call {
        /// The tool's name.
        name: String,
        /// The input as JSON; `-` reads it from standard input. Default: `{}`.
        input: Option<String>,
        /// Give up after this many seconds, answering `type: "timeout"`.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Enable tools matching this pattern, dangerous ones included (repeatable).
        #[arg(long, value_name = "PATTERN")]
        enable: Vec<String>,
        /// Disable tools matching this pattern (repeatable).
        #[arg(long, value_name = "PATTERN")]
        disable: Vec<String>,
        /// Enable every dangerous tool.
        #[arg(long)]
        allow_dangerous: bool,
        /// Print the envelope on one line.
        #[arg(long)]
        compact: bool,
    },
    /// Prints the tool definitions as a provider expects them: a JSON array, or one definition
    /// when NAME is given. Tools the profile cannot express are listed on standard error with
    /// the reason, and the exit code is then 1.
    Schema {
        /// The provider's profile.
        #[arg(
            long,
            default_value = "mcp",
            value_parser = profile_parser(),
        )]
        profile: Profile,
        /// Only this tool (by name or deprecated alias).
        name: Option<String>,
        /// With `--profile openai`: the Chat Completions form,
        /// `{"type": "function", "function": {...}}`, instead of the Responses API's.
        #[arg(long)]
        chat_completions: bool,
    },
}

impl Cli {
    /// The command line over every `#[tool]` in the binary.
    pub fn new() -> Self {
        Cli {
            configure: Box::new(|builder| builder),
            registry: None,
            extensions: Vec::new(),
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
    pub fn run(self) -> ExitCode {
        // Unlocked handles: a lock held for the whole command would block every other thread
        // that writes (a tool logging to stderr while a server runs, say).
        self.run_with(std::env::args_os(), &mut io::stdout(), &mut io::stderr())
    }

    /// Runs the command given by `args` (the first is the program name), writing to `out` and
    /// `err`. Exit codes: 0 on success, 1 when a call answers `ok: false` or a tool is unknown,
    /// 2 on a usage error.
    pub fn run_with<I, T>(mut self, args: I, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let mut command = Args::command();
        for extension in &self.extensions {
            command = command.subcommand(extension.command.clone());
        }
        let parsed = command.try_get_matches_from(args).and_then(|matches| {
            let extension = matches.subcommand_name().and_then(|name| {
                self.extensions
                    .iter()
                    .position(|e| e.command.get_name() == name)
            });
            match extension {
                Some(index) => Ok((matches, Some(index), None)),
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
            });
        }
        let Some(args) = args else {
            return ExitCode::from(2);
        };
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
            } => {
                let options = CallFlags {
                    timeout,
                    enable,
                    disable,
                    allow_dangerous,
                    compact,
                };
                call(self, registry, &name, input.as_deref(), options, out, err)
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
        match result {
            Ok(code) => code,
            Err(error) => {
                let _ = writeln!(err, "error: {error}");
                ExitCode::from(2)
            }
        }
    }
}

struct CallFlags {
    timeout: Option<f64>,
    enable: Vec<String>,
    disable: Vec<String>,
    allow_dangerous: bool,
    compact: bool,
}

fn list(
    registry: &Registry,
    as_json: bool,
    family: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<ExitCode> {
    let tools: Vec<&ToolDescriptor> = registry
        .iter()
        .filter(|t| family.is_none_or(|f| t.family() == f))
        .collect();
    if as_json {
        let array: Vec<Value> = tools.iter().map(|t| mcp::listing(t)).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&array)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = tools.iter().map(|t| t.name().len()).max().unwrap_or(0);
    for tool in &tools {
        let summary = summary(tool.description(), 100);
        let mut marks = String::new();
        if tool.is_dangerous() {
            marks.push_str(" [dangerous]");
        }
        writeln!(out, "{:width$}  {summary}{marks}", tool.name())?;
    }
    let families = tools
        .iter()
        .map(|t| t.family())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    writeln!(
        out,
        "\n{} {} in {} {}",
        tools.len(),
        if tools.len() == 1 { "tool" } else { "tools" },
        families,
        if families == 1 { "family" } else { "families" }
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The first paragraph of `text`, cut at a word boundary to about `width` characters.
fn summary(text: &str, width: usize) -> String {
    let first = text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\n', " ");
    if first.chars().count() <= width {
        return first;
    }
    let mut cut: String = first.chars().take(width).collect();
    if let Some(space) = cut.rfind(' ') {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}

fn describe(
    registry: &Registry,
    name: &str,
    as_json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let Some(tool) = registry.get(name) else {
        writeln!(err, "{}", unknown_tool(registry, name))?;
        return Ok(ExitCode::from(1));
    };
    if as_json {
        let mut value = mcp::listing(tool);
        if let Value::Object(map) = &mut value {
            map.insert("family".into(), tool.family().into());
            map.insert("aliases".into(), json!(tool.aliases()));
            map.insert("offThread".into(), tool.is_off_thread().into());
            map.insert("inline".into(), tool.is_inline().into());
            map.insert("dangerous".into(), tool.is_dangerous().into());
            map.insert("async".into(), tool.is_async().into());
            map.insert("location".into(), tool.location().to_string().into());
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}", tool.name())?;
    if let Some(title) = &tool.annotations().title {
        writeln!(out, "  {title}")?;
    }
    writeln!(out)?;
    for line in tool.description().lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out)?;
    writeln!(out, "family:    {}", tool.family())?;
    let thread = if tool.is_inline() {
        "the calling thread (off_thread, inline)"
    } else if tool.is_off_thread() {
        "any thread (off_thread)"
    } else {
        "main thread"
    };
    writeln!(out, "runs on:   {thread}")?;
    if tool.is_async() {
        writeln!(out, "async:     yes")?;
    }
    if tool.is_dangerous() {
        writeln!(out, "dangerous: yes (off until the host enables it)")?;
    }
    if !tool.aliases().is_empty() {
        writeln!(out, "aliases:   {} (deprecated)", tool.aliases().join(", "))?;
    }
    let annotations = mcp::annotations(tool);
    if annotations.as_object().is_some_and(|a| !a.is_empty()) {
        writeln!(out, "hints:     {annotations}")?;
    }
    writeln!(
        out,
        "defined:   {} ({})",
        tool.location(),
        tool.location().module
    )?;
    writeln!(out)?;
    write_parameters(tool.input_schema(), out)?;
    writeln!(out, "\ninput schema:")?;
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(tool.input_schema())?
    )?;
    writeln!(out, "\noutput schema:")?;
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(tool.output_schema())?
    )?;
    Ok(ExitCode::SUCCESS)
}

fn write_parameters(schema: &Value, out: &mut dyn Write) -> io::Result<()> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = properties.filter(|p| !p.is_empty()) else {
        return writeln!(out, "parameters: none");
    };
    writeln!(out, "parameters:")?;
    for (name, property) in properties {
        let need = if required.contains(&name.as_str()) {
            "required"
        } else {
            "optional"
        };
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        writeln!(
            out,
            "  {name}: {} ({need})  {}",
            type_summary(property),
            description.lines().next().unwrap_or_default()
        )?;
    }
    Ok(())
}

/// A short type name for a property schema: `string`, `number | null`, `array of string`,
/// `SceneInfo`.
fn type_summary(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(Value::to_string).collect();
        return names.join(" | ");
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            let items = schema.get("items").map(type_summary).unwrap_or_default();
            format!("array of {items}")
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(variants) = schema.get(key).and_then(Value::as_array) {
                    return variants
                        .iter()
                        .map(type_summary)
                        .collect::<Vec<_>>()
                        .join(" | ");
                }
            }
            "any".to_owned()
        }
    }
}

fn call(
    cli: Cli,
    registry: &'static Registry,
    name: &str,
    input: Option<&str>,
    flags: CallFlags,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    // The flags add to the host's policy; the host's `disable` rules still win.
    let mut enable = Vec::new();
    for text in &flags.enable {
        match text.parse::<ToolPattern>() {
            Ok(pattern) => enable.push(pattern),
            Err(error) => return usage(err, &error.to_string()),
        }
    }
    let mut disable = Vec::new();
    for text in &flags.disable {
        match text.parse::<ToolPattern>() {
            Ok(pattern) => disable.push(pattern),
            Err(error) => return usage(err, &error.to_string()),
        }
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
    let mut options = CallOptions::default();
    if let Some(seconds) = flags.timeout {
        match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if seconds > 0.0 => options.timeout = Some(timeout),
            _ => return usage(err, "--timeout takes a positive number of seconds"),
        }
    }
    let builder = (cli.configure)(DispatcherBuilder::default().registry(registry));
    let dispatcher = builder.update_policy(update).build();
    let outcome = match parse_input(input, &dispatcher) {
        Ok(input) => dispatcher.invoke_with(name, input, options),
        Err(error) => Outcome::err(error),
    };
    let text = if flags.compact {
        serde_json::to_string(&outcome)?
    } else {
        serde_json::to_string_pretty(&outcome)?
    };
    writeln!(out, "{text}")?;
    Ok(if outcome.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Parses `--profile`, offering the profiles' names in help and errors.
fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Profile::NAMES).try_map(|name| name.parse::<Profile>())
}

/// What `schema` prints.
struct SchemaForm {
    profile: Profile,
    chat_completions: bool,
}

impl SchemaForm {
    fn shape(&self, definition: Value) -> Value {
        if self.chat_completions {
            profile::chat_completions_tool(&definition)
        } else {
            definition
        }
    }
}

fn schema(
    registry: &Registry,
    form: SchemaForm,
    name: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    if form.chat_completions && form.profile != Profile::OpenAi {
        return usage(err, "--chat-completions applies to --profile openai only");
    }
    let (definitions, errors) = match name {
        Some(name) => {
            let Some(tool) = registry.get(name) else {
                writeln!(err, "{}", unknown_tool(registry, name))?;
                return Ok(ExitCode::from(1));
            };
            match profile::render(form.profile, tool) {
                Ok(definition) => (vec![definition], Vec::new()),
                Err(error) => (Vec::new(), vec![error]),
            }
        }
        None => profile::render_all(form.profile, registry),
    };
    for definition in &definitions {
        for note in &definition.notes {
            writeln!(err, "note: `{}`: {note}", definition.tool)?;
        }
    }
    let values: Vec<Value> = definitions
        .into_iter()
        .map(|d| form.shape(d.value))
        .collect();
    let printed = match (name, values.as_slice()) {
        (Some(_), [one]) => Some(one.clone()),
        (Some(_), _) => None,
        (None, _) => Some(Value::Array(values)),
    };
    if let Some(printed) = printed {
        writeln!(out, "{}", serde_json::to_string_pretty(&printed)?)?;
    }
    if errors.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        err,
        "{} {} cannot be given to {}:",
        errors.len(),
        if errors.len() == 1 { "tool" } else { "tools" },
        form.profile
    )?;
    for error in &errors {
        writeln!(
            err,
            "  `{}` at {}: {}",
            error.tool, error.pointer, error.reason
        )?;
    }
    Ok(ExitCode::from(1))
}

/// Reads and parses a call's input, applying the dispatcher's input limits to the raw text
/// first: standard input is read no further than one byte past `max_input_bytes`.
fn parse_input(input: Option<&str>, dispatcher: &Dispatcher) -> Result<Value, ToolError> {
    let text = match input {
        None => return Ok(Value::Object(Map::new())),
        Some("-") => {
            let (max_bytes, _) = dispatcher.input_limits();
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

fn unknown_tool(registry: &Registry, name: &str) -> String {
    crate::suggest::unknown_tool(name, &registry.suggest(name))
}

fn usage(err: &mut dyn Write, message: &str) -> io::Result<ExitCode> {
    writeln!(err, "error: {message}")?;
    Ok(ExitCode::from(2))
}
