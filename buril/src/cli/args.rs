//! The command line's own subcommands, as clap parses them.

use clap::{Parser, Subcommand};

use crate::profile::Profile;

#[derive(Parser, Debug)]
#[command(about = "List, describe and call the tools of this binary.", version)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Command,
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
        #[arg(long, value_name = "DIR", default_value = crate::result_files::DEFAULT_OUTPUT_DIR)]
        output_dir: std::path::PathBuf,
        /// Print binary content as the base64 the tool returned instead of writing it to files.
        #[arg(long)]
        inline_binary: bool,
        /// Refuse the tool's questions (a form, a model's completion) instead of asking them on
        /// the terminal; the tool sees that nobody can answer.
        #[arg(long)]
        no_input: bool,
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

/// Parses `--profile`, offering the profiles' names in help and errors.
fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Profile::NAMES).try_map(|name| name.parse::<Profile>())
}
