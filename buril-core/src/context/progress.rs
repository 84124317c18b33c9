//! Progress reports from a running tool, and who receives them.

use std::sync::Arc;

/// Receives progress reports: `(progress, total, message)`.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// One progress report from a running tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// The tool that reported it.
    pub tool: &'static str,
    /// How far the tool has come, in units of its own choosing; increases with each report.
    pub progress: f64,
    /// The value `progress` reaches when the work is done, if known.
    pub total: Option<f64>,
    /// What the tool is doing now.
    pub message: Option<String>,
}

impl Progress {
    /// A report of `progress` for `tool`, with no total and no message. A tool reports
    /// through [`Context::report_progress`](crate::Context::report_progress); this is for work
    /// that runs outside a tool, as an agent team's run does.
    pub fn new(tool: &'static str, progress: f64) -> Self {
        Progress {
            tool,
            progress,
            total: None,
            message: None,
        }
    }

    /// The same report, with what the work is doing now.
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}
