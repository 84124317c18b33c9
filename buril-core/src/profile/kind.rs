//! Which provider a definition is for, and its name.

use std::fmt;
use std::str::FromStr;

/// Where tool definitions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// The Model Context Protocol's `tools/list` (specification 2025-11-25).
    Mcp,
    /// OpenAI function tools, strict whenever the schema allows it.
    OpenAi,
    /// Anthropic's Messages API tools.
    Anthropic,
    /// Gemini function declarations.
    Gemini,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 4] = [
        Profile::Mcp,
        Profile::OpenAi,
        Profile::Anthropic,
        Profile::Gemini,
    ];

    /// The profiles' names, as [`FromStr`] takes them.
    pub const NAMES: [&'static str; 4] = ["mcp", "openai", "anthropic", "gemini"];

    /// The profile's name: `mcp`, `openai`, `anthropic` or `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Mcp => "mcp",
            Profile::OpenAi => "openai",
            Profile::Anthropic => "anthropic",
            Profile::Gemini => "gemini",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a profile's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no profile is named `{}`; the profiles are {}",
            self.0,
            Profile::NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownProfile {}

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| UnknownProfile(name.to_owned()))
    }
}
