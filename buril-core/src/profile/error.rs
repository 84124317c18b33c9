//! What rendering reports: a tool a profile cannot express, and notes on a tool it can.

use std::fmt;

use super::kind::Profile;

/// A tool that a profile cannot express, with the reason. The tool is left out of that
/// profile's definitions rather than changed into something that means less or more.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProfileError {
    /// The tool's name.
    pub tool: String,
    /// The profile that cannot express it.
    pub profile: Profile,
    /// Where the problem is: a JSON pointer into the tool's listing form (the object
    /// `list --json` builds and `list --json` prints), so `/name` for the
    /// name and `/inputSchema/...` for a place in the input schema.
    pub pointer: String,
    /// Why the profile cannot express it.
    pub reason: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` cannot be given to {}: {} (at {})",
            self.tool,
            self.profile,
            self.reason,
            display_pointer(&self.pointer)
        )
    }
}

impl std::error::Error for ProfileError {}

/// Something worth knowing about a definition that was rendered: for OpenAI, why a tool is
/// not strict.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Note {
    /// Where it applies, as in [`ProfileError::pointer`].
    pub pointer: String,
    /// What happened and why.
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (at {})",
            self.message,
            display_pointer(&self.pointer)
        )
    }
}

/// A problem found while rendering one tool, before it is tied to the tool and the profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issue {
    pub pointer: String,
    pub reason: String,
}

impl Issue {
    pub fn new(pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        Issue {
            pointer: pointer.into(),
            reason: reason.into(),
        }
    }

    pub fn into_error(self, tool: &str, profile: Profile) -> ProfileError {
        ProfileError {
            tool: tool.to_owned(),
            profile,
            pointer: self.pointer,
            reason: self.reason,
        }
    }

    pub fn into_note(self, prefix: &str) -> Note {
        Note {
            pointer: self.pointer,
            message: format!("{prefix}{}", self.reason),
        }
    }
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the tool"
    } else {
        pointer
    }
}
