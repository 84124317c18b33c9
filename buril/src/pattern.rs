//! Tool patterns: `*`, `family_*`, or an exact name. Used by policies and tool views.

use std::fmt;
use std::str::FromStr;

/// A pattern over tool names: `*` (every tool), `prefix*` (every tool whose name starts with
/// `prefix`), or an exact name. Names are case-sensitive and lowercase, so a pattern with an
/// uppercase letter or any character outside `[a-z0-9_]` (besides the one trailing `*`) is
/// rejected rather than silently matching nothing.
///
/// ```
/// use buril::ToolPattern;
///
/// let scene: ToolPattern = "scene_*".parse().unwrap();
/// assert!(scene.matches("scene_open"));
/// assert!(!scene.matches("asset_list"));
/// assert!("Scene_*".parse::<ToolPattern>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolPattern {
    text: String,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Kind {
    All,
    Prefix,
    Exact,
}

/// Why a text is not a tool pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The rejected text.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a tool pattern: {} (use `*`, `family_*` or an exact tool name)",
            self.pattern, self.reason
        )
    }
}

impl std::error::Error for PatternError {}

impl ToolPattern {
    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        match self.kind {
            Kind::All => true,
            Kind::Prefix => name.starts_with(&self.text[..self.text.len() - 1]),
            Kind::Exact => name == self.text,
        }
    }

    /// Whether the pattern is `*`.
    pub fn is_wildcard(&self) -> bool {
        self.kind == Kind::All
    }
}

impl FromStr for ToolPattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |reason| PatternError {
            pattern: text.to_owned(),
            reason,
        };
        if text == "*" {
            return Ok(ToolPattern {
                text: text.to_owned(),
                kind: Kind::All,
            });
        }
        let (body, kind) = match text.strip_suffix('*') {
            Some(body) => (body, Kind::Prefix),
            None => (text, Kind::Exact),
        };
        if body.is_empty() {
            return Err(error("it is empty"));
        }
        if body.contains('*') {
            return Err(error("`*` may only stand alone or at the end"));
        }
        if !body
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return Err(error(
                "tool names use only lowercase letters, digits and `_`",
            ));
        }
        Ok(ToolPattern {
            text: text.to_owned(),
            kind,
        })
    }
}

impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
