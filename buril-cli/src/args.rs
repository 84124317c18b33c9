//! The command line's own subcommands, as clap parses them.

use clap::{Parser, Subcommand};

use buril_core::profile::Profile;

#[derive(Parser, Debug)]
#[command(about = "List, describe and call the tools of this binary.", version)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// Serve another MCP server's tools too: `NAME=URL` (Streamable HTTP) or `NAME=COMMAND
    /// ARG…` (a program over stdio); repeatable. The config file's `[[external]]` tables
    /// (`.buril/server.toml`) add more. Their tools stay off until enabled.
    #[cfg(feature = "hub")]
    #[arg(long, global = true, value_name = "NAME=TARGET")]
    pub(crate) external: Vec<String>,
    /// Serve the tools of the Unity editor that has this project open (the folder holding
    /// `Assets` and `Library`; its host announces itself in `Library/Buril/editor.json`).
    /// Default: `BURIL_EDITOR`, else the current folder when it holds that file.
    #[cfg(feature = "hub")]
    #[arg(long, global = true, value_name = "PROJECT")]
    pub(crate) editor: Option<std::path::PathBuf>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
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
        /// Where the bytes of images, sounds and blobs a tool returns are written (each block
        /// is printed as a `resource_link` to its file).
        #[arg(long, value_name = "DIR", default_value = buril_core::frontend::DEFAULT_OUTPUT_DIR)]
        output_dir: std::path::PathBuf,
        /// Print binary content as the base64 the tool returned instead of writing it to files.
        #[arg(long)]
        inline_binary: bool,
        /// Refuse the tool's questions (a form, a model's completion) instead of asking them on
        /// the terminal; the tool sees that nobody can answer.
        #[arg(long)]
        no_input: bool,
        /// Run the call as a task in the background and print its handle at once; follow it
        /// with `tasks get|wait|cancel|answer` from any later command.
        #[arg(long)]
        detach: bool,
        /// Where detached calls' tasks are kept (default `.buril/tasks`, or
        /// `BURIL_TASKS_DIR`).
        #[arg(long, value_name = "DIR")]
        tasks_dir: Option<std::path::PathBuf>,
    },
    /// Follows the tasks of detached calls (`call --detach`).
    Tasks {
        #[command(subcommand)]
        action: TasksCommand,
        /// Where the tasks are kept (default `.buril/tasks`, or `BURIL_TASKS_DIR`).
        #[arg(long, value_name = "DIR", global = true)]
        tasks_dir: Option<std::path::PathBuf>,
    },
    /// Runs a detached call's task (started by `call --detach`).
    #[command(name = "__run-task", hide = true)]
    RunTask { dir: std::path::PathBuf, id: String },
    /// Shows the server's config file (which tools it turns on and off, and why), or changes
    /// it: a server that is running reads the change at once and tells its MCP clients that
    /// the tool list changed. Comments and layout are kept; a change the server would refuse
    /// is not written.
    #[cfg(feature = "server")]
    Settings(SettingsArgs),
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

impl Command {
    /// Whether the command needs the external servers' tools (`--external`): not for tasks
    /// (their tools run in the process that runs the task) nor for the config file.
    #[cfg(feature = "hub")]
    pub(crate) fn connects_externals(&self) -> bool {
        match self {
            Command::Tasks { .. } => false,
            #[cfg(feature = "server")]
            Command::Settings(_) => false,
            _ => true,
        }
    }
}

/// Parses `--profile`, offering the profiles' names in help and errors.
fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Profile::NAMES).try_map(|name| name.parse::<Profile>())
}

/// What `tasks` does.
#[derive(Subcommand, Debug)]
pub(crate) enum TasksCommand {
    /// Lists the tasks that have not expired, newest first.
    List {
        /// Print a JSON array of the tasks.
        #[arg(long)]
        json: bool,
    },
    /// Prints a task: its status, progress, questions, and once it ended its envelope.
    Get {
        /// The task's handle.
        handle: String,
    },
    /// Waits for a task to end and prints its envelope. Exits 0 when it completed with
    /// `ok: true`, 1 otherwise (or when `--timeout` passed first).
    Wait {
        /// The task's handle.
        handle: String,
        /// Give up after this many seconds, printing the task as it is.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
    },
    /// Cancels a task (an ended task stays as it is).
    Cancel {
        /// The task's handle.
        handle: String,
    },
    /// Answers a question the task waits on (`tasks get` shows them, by key).
    Answer {
        /// The task's handle.
        handle: String,
        /// The question's key.
        key: String,
        /// The answer as JSON (an elicitation's `{"action": "accept", "content": {...}}`).
        answer: String,
    },
}

/// `settings`: the config file to show or change, and the changes.
#[cfg(feature = "server")]
#[derive(clap::Args, Debug)]
pub(crate) struct SettingsArgs {
    /// The config file (default `.buril/server.toml`, which `serve` reads).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<std::path::PathBuf>,
    /// Print the settings as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Turn every dangerous tool on, or (`=false`) only those a rule enables.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub(crate) allow_dangerous: Option<bool>,
    /// Add a rule to `enable`: a tool, a glob or `family:NAME` (repeatable).
    #[arg(long, value_name = "RULE")]
    pub(crate) enable: Vec<String>,
    /// Add a rule to `disable`, which wins over everything (repeatable).
    #[arg(long, value_name = "RULE")]
    pub(crate) disable: Vec<String>,
    /// Take a rule out of `enable` and `disable` (repeatable).
    #[arg(long, value_name = "RULE")]
    pub(crate) reset: Vec<String>,
    /// Turn an `[[external]]` server's tools on or off: `NAME=on` or `NAME=off` (repeatable).
    #[arg(long = "external-tools", value_name = "NAME=on|off")]
    pub(crate) external_tools: Vec<String>,
    /// The timeout of calls without their own: seconds, or `default`.
    #[arg(long, value_name = "SECONDS|default")]
    pub(crate) timeout: Option<String>,
    /// One tool's timeout: `NAME=SECONDS`, or `NAME=default` for none of its own (repeatable).
    #[arg(long, value_name = "NAME=SECONDS")]
    pub(crate) tool_timeout: Vec<String>,
}
