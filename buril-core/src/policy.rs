//! Which tools a host allows, the one place that decides ([`Policy`]), and the patterns that
//! name tools in a policy, a tool view or a config file ([`ToolPattern`], [`ToolView`]).

pub use crate::pattern::{PatternError, ToolPattern, ToolView};

use crate::descriptor::ToolDescriptor;
use crate::error::{ErrorKind, ToolError};

/// Which tools may run. `dangerous` tools are off until enabled, by
/// [`allow_dangerous`](Self::allow_dangerous) or by an [`enable`](Self::enable) pattern that
/// matches them; a third party's tools (provided at run time, such as an external MCP server's:
/// see [`provided`](crate::provided)) are off until an `enable` pattern matches them or their
/// provider is enabled ([`Provider::set_enabled`](crate::provided::Provider::set_enabled)), and
/// `allow_dangerous` does not turn them on; a [`disable`](Self::disable) pattern turns any tool
/// off and wins over everything. Decisions use the tool's own name, so an alias never escapes
/// a rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    allow_dangerous: bool,
    enabled: Vec<ToolPattern>,
    disabled: Vec<ToolPattern>,
}

impl Policy {
    /// The default policy: every tool but the dangerous ones and third parties'.
    pub fn new() -> Self {
        Policy::default()
    }

    /// Turns every dangerous tool on (or off again).
    pub fn allow_dangerous(mut self, allow: bool) -> Self {
        self.allow_dangerous = allow;
        self
    }

    /// Whether every dangerous tool is on.
    pub fn dangerous_allowed(&self) -> bool {
        self.allow_dangerous
    }

    /// Turns on the tools matching `pattern`, dangerous ones included.
    pub fn enable(mut self, pattern: ToolPattern) -> Self {
        self.enabled.push(pattern);
        self
    }

    /// Turns off the tools matching `pattern`.
    pub fn disable(mut self, pattern: ToolPattern) -> Self {
        self.disabled.push(pattern);
        self
    }

    /// Whether no tool is disabled by a pattern: every tool that is not dangerous may run.
    pub(crate) fn disables_nothing(&self) -> bool {
        self.disabled.is_empty()
    }

    /// `Ok` when `tool` may run; otherwise a `disabled` error saying why and how to enable it.
    pub fn check(&self, tool: &ToolDescriptor) -> Result<(), ToolError> {
        let name = tool.name();
        if let Some(pattern) = self.disabled.iter().find(|p| p.matches(name)) {
            return Err(ToolError::new(
                ErrorKind::Disabled,
                format!("the tool `{name}` is disabled by the host (rule `{pattern}`)"),
            ));
        }
        if let Some(provenance) = tool.provenance()
            && !provenance.provider().is_enabled()
            && !self.enabled.iter().any(|p| p.matches(name))
        {
            let provider = provenance.provider().name();
            return Err(ToolError::new(
                ErrorKind::Disabled,
                format!(
                    "the tool `{name}` comes from `{provider}`, a third party, and stays off until \
                     the host enables it (for example `--enable family:{}`, or `enable = true` in \
                     the server's `[[external]]` table)",
                    tool.family()
                ),
            ));
        }
        if tool.is_dangerous()
            && !self.allow_dangerous
            && !self.enabled.iter().any(|p| p.matches(name))
        {
            return Err(ToolError::new(
                ErrorKind::Disabled,
                format!(
                    "the tool `{name}` is marked dangerous and stays off until the host enables it \
                     (for example `--enable {name}`)"
                ),
            ));
        }
        Ok(())
    }

    /// Whether `tool` may run.
    pub fn allows(&self, tool: &ToolDescriptor) -> bool {
        self.check(tool).is_ok()
    }
}
