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
