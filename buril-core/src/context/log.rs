//! Log messages from a running tool, and who receives them: the MCP client that asked for them
//! (`logging/setLevel`), or else the host's `tracing`.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// Receives a tool's log records (the server's sink filters them by the level its client
/// asked for).
pub type LogSink = Arc<dyn Fn(LogRecord) + Send + Sync>;

/// The severity of a log message: the syslog levels (RFC 5424) MCP's logging uses, least
/// severe first, so that `level >= LogLevel::Warning` reads as it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// What the tool is doing.
    Info,
    /// Normal but significant.
    Notice,
    /// Something unexpected that the tool handled.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name (`"debug"`, `"warning"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level of a wire name.
    pub fn from_name(name: &str) -> Option<LogLevel> {
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == name)
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One log message from a running tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LogRecord {
    /// The tool that logged it (MCP's `logger`).
    pub tool: &'static str,
    /// Its severity.
    pub level: LogLevel,
    /// What was logged: a string for [`Context::log`](super::Context::log), any JSON for
    /// [`Context::log_data`](super::Context::log_data).
    pub data: Value,
}

/// A record no client receives, as a `tracing` event (target `buril::tool`, the tool's name
/// in the `tool` field): `debug` at DEBUG, `info` and `notice` at INFO, `warning` at WARN, the
/// rest at ERROR.
pub(crate) fn to_tracing(record: &LogRecord) {
    let tool = record.tool;
    let level = record.level.as_str();
    match &record.data {
        Value::String(message) => match record.level {
            LogLevel::Debug => tracing::debug!(target: "buril::tool", tool, level, "{message}"),
            LogLevel::Info | LogLevel::Notice => {
                tracing::info!(target: "buril::tool", tool, level, "{message}")
            }
            LogLevel::Warning => tracing::warn!(target: "buril::tool", tool, level, "{message}"),
            _ => tracing::error!(target: "buril::tool", tool, level, "{message}"),
        },
        data => match record.level {
            LogLevel::Debug => tracing::debug!(target: "buril::tool", tool, level, %data),
            LogLevel::Info | LogLevel::Notice => {
                tracing::info!(target: "buril::tool", tool, level, %data)
            }
            LogLevel::Warning => tracing::warn!(target: "buril::tool", tool, level, %data),
            _ => tracing::error!(target: "buril::tool", tool, level, %data),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_by_severity_and_round_trip_their_names() {
        assert!(LogLevel::Debug < LogLevel::Info);
        assert!(LogLevel::Warning < LogLevel::Error);
        assert!(LogLevel::Alert < LogLevel::Emergency);
        for level in LogLevel::ALL {
            assert_eq!(LogLevel::from_name(level.as_str()), Some(level));
        }
        assert_eq!(LogLevel::from_name("warn"), None);
    }
}
