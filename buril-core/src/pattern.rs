//! Tool patterns: `*`, `family_*`, or an exact name. Used by policies and tool views.

use std::fmt;
use std::str::FromStr;

/// A pattern over tool names: `*` (every tool), `prefix*` (every tool whose name starts with
/// `prefix`), or an exact name. Names are case-sensitive and lowercase, so a pattern with an
/// uppercase letter or any character outside `[a-z0-9_]` (besides the one trailing `*`) is
/// rejected rather than silently matching nothing.
///
/// ```
/// use buril::policy::ToolPattern;
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

/// The tools a caller may see and call: a list of patterns, resolved against the registry at
/// the time of each call, so a tool removed mid-session is never offered. An agent handed a
/// view calls through the dispatcher with it ([`CallOptions::view`](crate::CallOptions)), and
/// the dispatcher refuses anything outside it; hiding tools from a listing is not enough.
///
/// Matching uses the tool's own name, so neither an alias nor a different letter case reaches
/// a tool outside the view.
///
/// ```
/// use buril::ToolView;
///
/// let view = ToolView::parse(["scene_*", "asset_list"]).unwrap();
/// assert!(view.allows("scene_open"));
/// assert!(view.allows("asset_list"));
/// assert!(!view.allows("asset_delete"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ToolView {
    patterns: Vec<ToolPattern>,
}

impl ToolView {
    /// A view of the given patterns.
    pub fn new(patterns: Vec<ToolPattern>) -> Self {
        ToolView { patterns }
    }

    /// Parses a view from pattern texts (`["scene_*", "asset_list"]`).
    pub fn parse<I>(patterns: I) -> Result<Self, PatternError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let patterns = patterns
            .into_iter()
            .map(|text| text.as_ref().parse())
            .collect::<Result<Vec<ToolPattern>, PatternError>>()?;
        Ok(ToolView { patterns })
    }

    /// A view of every tool (`*`).
    pub fn all() -> Self {
        ToolView {
            patterns: vec![ToolPattern {
                text: "*".to_owned(),
                kind: Kind::All,
            }],
        }
    }

    /// The patterns.
    pub fn patterns(&self) -> &[ToolPattern] {
        &self.patterns
    }

    /// Whether the tool named `name` (its own name, not an alias) is in the view.
    pub fn allows(&self, name: &str) -> bool {
        self.patterns.iter().any(|p| p.matches(name))
    }

    /// The patterns that match no tool of `registry`: a view naming a missing tool.
    pub fn unmatched<'a>(&'a self, registry: &crate::registry::Registry) -> Vec<&'a ToolPattern> {
        self.patterns
            .iter()
            .filter(|p| !registry.iter().any(|t| p.matches(t.name())))
            .collect()
    }

    /// The tools of `registry` in the view, sorted by name.
    pub fn resolve(&self, registry: &crate::registry::Registry) -> Vec<crate::tool_ref::ToolRef> {
        registry.iter().filter(|t| self.allows(t.name())).collect()
    }
}

impl fmt::Display for ToolView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<&str> = self.patterns.iter().map(ToolPattern::as_str).collect();
        write!(f, "[{}]", texts.join(", "))
    }
}
