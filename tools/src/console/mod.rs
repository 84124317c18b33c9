//! The `console_` family: the editor's console log (`Library/console.jsonl`).

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::Project;
use crate::project::console::{LogEntry, LogLevel};

/// Writes a message to the console, as `Debug.Log`, `Debug.LogWarning` or `Debug.LogError`
/// would. Returns the entry as stored.
#[buril::tool(title = "Log to console")]
fn console_log(
    /// The message.
    message: String,
    /// How serious it is. Default: `info`.
    level: Option<LogLevel>,
    /// A stack trace to attach, one frame a line.
    stack_trace: Option<String>,
    ctx: &buril::Context,
) -> Result<LogEntry, ToolError> {
    if message.trim().is_empty() {
        return Err(ToolError::invalid(
            "`message` is blank; give the text to log",
        ));
    }
    let project = ctx.state::<Project>()?;
    project.log(level.unwrap_or(LogLevel::Info), message, stack_trace)
}

/// How many messages there are of each level.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub(crate) struct LevelCounts {
    /// `info` messages.
    pub info: usize,
    /// `warning` messages.
    pub warning: usize,
    /// `error` messages.
    pub error: usize,
}

impl LevelCounts {
    /// The counts of `entries`.
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a LogEntry>) -> Self {
        let mut counts = LevelCounts::default();
        for entry in entries {
            match entry.level {
                LogLevel::Info => counts.info += 1,
                LogLevel::Warning => counts.warning += 1,
                LogLevel::Error => counts.error += 1,
            }
        }
        counts
    }
}

/// Console messages that matched.
#[derive(Debug, Serialize, JsonSchema)]
struct ConsoleRead {
    /// How many messages the console holds in all.
    total_count: usize,
    /// The console's messages by level.
    counts: LevelCounts,
    /// How many messages matched the filters.
    matched_count: usize,
    /// The newest matching messages, oldest first, at most `max_count`.
    entries: Vec<LogEntry>,
    /// Whether older matches were left out because of `max_count`.
    truncated: bool,
    /// Lines of the log file that could not be read as messages.
    unreadable_lines: usize,
}

/// Reads the console: the newest messages, filtered by level and by text (case-insensitive),
/// oldest first. Stack traces are left out unless asked for, to save space.
#[buril::tool(
    off_thread,
    read_only,
    idempotent,
    aliases = ["console_get_logs"],
    title = "Read console"
)]
fn console_read(
    /// Only these levels, e.g. `["warning", "error"]`. Default: all levels.
    levels: Option<Vec<LogLevel>>,
    /// Only messages containing this text, ignoring case.
    text: Option<String>,
    /// Include stack traces, and search them for `text` too. Default: false.
    include_stack_traces: Option<bool>,
    /// At most this many messages, the newest (1 to 1000). Default: 100.
    max_count: Option<u32>,
    ctx: &buril::Context,
) -> Result<ConsoleRead, ToolError> {
    let project = ctx.state::<Project>()?;
    let contents = project.read_log()?;
    let stack_traces = include_stack_traces.unwrap_or(false);
    let needle = text.map(|t| t.to_lowercase()).filter(|t| !t.is_empty());
    let max = usize::try_from(max_count.unwrap_or(100).clamp(1, 1000)).unwrap_or(1000);
    let total_count = contents.entries.len();
    let counts = LevelCounts::of(&contents.entries);
    let mut matched: Vec<LogEntry> = contents
        .entries
        .into_iter()
        .filter(|e| levels.as_ref().is_none_or(|l| l.contains(&e.level)))
        .filter(|e| {
            needle.as_ref().is_none_or(|n| {
                e.message.to_lowercase().contains(n)
                    || (stack_traces
                        && e.stack_trace
                            .as_ref()
                            .is_some_and(|s| s.to_lowercase().contains(n)))
            })
        })
        .collect();
    let matched_count = matched.len();
    let entries: Vec<LogEntry> = matched
        .drain(matched_count.saturating_sub(max)..)
        .map(|mut e| {
            if !stack_traces {
                e.stack_trace = None;
            }
            e
        })
        .collect();
    Ok(ConsoleRead {
        total_count,
        counts,
        matched_count,
        truncated: matched_count > entries.len(),
        entries,
        unreadable_lines: contents.unreadable_lines,
    })
}

/// What clearing removed.
#[derive(Debug, Serialize, JsonSchema)]
struct Cleared {
    /// How many messages were removed.
    cleared_count: usize,
    /// The removed messages by level.
    cleared: LevelCounts,
}

/// Removes every message from the console.
#[buril::tool(destructive, idempotent, title = "Clear console")]
fn console_clear(ctx: &buril::Context) -> Result<Cleared, ToolError> {
    let project = ctx.state::<Project>()?;
    let contents = project.clear_log()?;
    Ok(Cleared {
        cleared_count: contents.entries.len(),
        cleared: LevelCounts::of(&contents.entries),
    })
}
