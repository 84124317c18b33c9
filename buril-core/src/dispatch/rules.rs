//! What may run and for how long: the policy and the timeouts, swapped together at run time.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::policy::Policy;

/// How long calls may run when a call sets no timeout of its own: a default, and timeouts per
/// tool that win over it.
///
/// ```
/// use std::time::Duration;
///
/// let timeouts = buril::Timeouts::new()
///     .with_default(Duration::from_secs(30))
///     .with_tool("asset_search", Duration::from_secs(120));
/// assert_eq!(timeouts.for_tool("asset_search"), Some(Duration::from_secs(120)));
/// assert_eq!(timeouts.for_tool("scene_open"), Some(Duration::from_secs(30)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// The timeout of every call without a more specific one; `None`: no timeout.
    pub default: Option<Duration>,
    /// Timeouts by tool name.
    pub per_tool: HashMap<String, Duration>,
}

impl Timeouts {
    /// No timeouts.
    pub fn new() -> Self {
        Timeouts::default()
    }

    /// Sets the default timeout.
    pub fn with_default(mut self, timeout: Duration) -> Self {
        self.default = Some(timeout);
        self
    }

    /// Sets the timeout of one tool.
    pub fn with_tool(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.per_tool.insert(tool.into(), timeout);
        self
    }

    /// The timeout of the tool named `name`.
    pub fn for_tool(&self, name: &str) -> Option<Duration> {
        if self.per_tool.is_empty() {
            return self.default;
        }
        self.per_tool.get(name).copied().or(self.default)
    }

    /// Whether no call has a timeout.
    pub fn is_empty(&self) -> bool {
        self.default.is_none() && self.per_tool.is_empty()
    }
}

/// The policy and the timeouts as a call reads them: one lock, one snapshot.
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    pub(crate) policy: Arc<Policy>,
    pub(crate) timeouts: Timeouts,
}

impl Rules {
    /// Whether a call may skip reading the rules: nothing is disabled but the dangerous tools
    /// (which are checked anyway) and no call has a timeout.
    pub(crate) fn are_open(&self) -> bool {
        self.policy.disables_nothing() && self.timeouts.is_empty()
    }
}
