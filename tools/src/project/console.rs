//! The console log: one JSON object a line in `Library/console.jsonl`.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the console log lives, relative to the project folder.
pub const CONSOLE_LOG: &str = "Library/console.jsonl";

/// How serious a console message is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// An ordinary message (`Debug.Log`).
    Info,
    /// Something that may be wrong (`Debug.LogWarning`).
    Warning,
    /// Something that is wrong (`Debug.LogError`, exceptions, compile errors).
    Error,
}

/// One console message, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    /// When it was logged, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// How serious it is.
    pub level: LogLevel,
    /// The message.
    pub message: String,
    /// The stack trace, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_trace: Option<String>,
}

impl LogEntry {
    /// A message logged now.
    pub fn now(level: LogLevel, message: impl Into<String>, stack_trace: Option<String>) -> Self {
        let time_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        LogEntry {
            time_ms,
            level,
            message: message.into(),
            stack_trace,
        }
    }
}

/// What a read of the log found.
#[derive(Debug, Default)]
pub struct LogContents {
    /// The entries, oldest first.
    pub entries: Vec<LogEntry>,
    /// Lines that are not entries (hand edits, a torn write).
    pub unreadable_lines: usize,
}

/// Appends one entry to the log file, creating it (and its folder) if needed.
pub fn append(file: &Path, entry: &LogEntry) -> io::Result<()> {
    if let Some(folder) = file.parent() {
        fs::create_dir_all(folder)?;
    }
    let mut line = serde_json::to_string(entry)?;
    line.push('\n');
    let mut handle = OpenOptions::new().create(true).append(true).open(file)?;
    handle.write_all(line.as_bytes())
}

/// Reads every entry; a missing file is an empty log.
pub fn read(file: &Path) -> io::Result<LogContents> {
    let text = match fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error),
    };
    let mut contents = LogContents::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<LogEntry>(line) {
            Ok(entry) => contents.entries.push(entry),
            Err(_) => contents.unreadable_lines += 1,
        }
    }
    Ok(contents)
}

/// Empties the log.
pub fn clear(file: &Path) -> io::Result<()> {
    if let Some(folder) = file.parent() {
        fs::create_dir_all(folder)?;
    }
    fs::write(file, "")
}
