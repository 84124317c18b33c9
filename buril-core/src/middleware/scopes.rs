//! [`RequireScopes`]: the scopes a principal needs for each tool.

use std::collections::{BTreeSet, HashMap};

use super::layer::{Call, Layer};
use crate::descriptor::ToolDescriptor;
use crate::error::{ErrorKind, ToolError};
use crate::principal::Principal;

/// Which scopes each tool needs: scopes every call needs, a family's scopes, a tool's own
/// (which replace its family's), and the scopes of `dangerous` tools (needed on top).
///
/// ```
/// use buril::middleware::ScopeRules;
///
/// let rules = ScopeRules::new()
///     .every("mcp")
///     .family("scene", "scene:read")
///     .tool("scene_save", "scene:write")
///     .dangerous("admin");
/// # let _ = rules;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeRules {
    every: Vec<String>,
    families: HashMap<String, Vec<String>>,
    tools: HashMap<String, Vec<String>>,
    dangerous: Vec<String>,
}

impl ScopeRules {
    /// No scope needed for anything.
    pub fn new() -> Self {
        ScopeRules::default()
    }

    /// Every call needs `scope`.
    pub fn every(mut self, scope: impl Into<String>) -> Self {
        self.every.push(scope.into());
        self
    }

    /// The tools of `family` need `scope` (unless a tool has scopes of its own).
    pub fn family(mut self, family: impl Into<String>, scope: impl Into<String>) -> Self {
        self.families
            .entry(family.into())
            .or_default()
            .push(scope.into());
        self
    }

    /// The tool named `tool` needs `scope`, instead of its family's.
    pub fn tool(mut self, tool: impl Into<String>, scope: impl Into<String>) -> Self {
        self.tools
            .entry(tool.into())
            .or_default()
            .push(scope.into());
        self
    }

    /// Every `dangerous` tool needs `scope`, besides its own or its family's.
    pub fn dangerous(mut self, scope: impl Into<String>) -> Self {
        self.dangerous.push(scope.into());
        self
    }

    /// These rules over `below`: scopes every call needs and dangerous tools' add up, a
    /// family's or a tool's here replace `below`'s.
    #[doc(hidden)]
    pub fn over(self, below: ScopeRules) -> ScopeRules {
        let add = |mut all: Vec<String>, more: Vec<String>| {
            for scope in more {
                if !all.contains(&scope) {
                    all.push(scope);
                }
            }
            all
        };
        let mut families = below.families;
        families.extend(self.families);
        let mut tools = below.tools;
        tools.extend(self.tools);
        ScopeRules {
            every: add(below.every, self.every),
            families,
            tools,
            dangerous: add(below.dangerous, self.dangerous),
        }
    }

    /// The scopes `tool` needs, in the order the rules name them, repeats included.
    fn needed<'a>(&'a self, tool: &ToolDescriptor) -> impl Iterator<Item = &'a str> {
        let own = self
            .tools
            .get(tool.name())
            .or_else(|| self.families.get(tool.family()));
        let dangerous = if tool.is_dangerous() {
            self.dangerous.as_slice()
        } else {
            &[]
        };
        self.every
            .iter()
            .chain(own.into_iter().flatten())
            .chain(dangerous)
            .map(String::as_str)
    }

    /// The scopes `tool` needs, in the order the rules name them, without repeats.
    pub fn required(&self, tool: &ToolDescriptor) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.needed(tool)
            .filter(|scope| seen.insert(*scope))
            .collect()
    }

    /// Whether `principal` holds every scope `tool` needs (what every call and every listed
    /// tool asks: no allocation).
    pub fn allows(&self, tool: &ToolDescriptor, principal: &Principal) -> bool {
        self.needed(tool).all(|scope| principal.has_scope(scope))
    }

    /// Every scope the rules name, sorted: what a server advertises as `scopes_supported`.
    pub fn all(&self) -> BTreeSet<&str> {
        self.every
            .iter()
            .chain(self.families.values().flatten())
            .chain(self.tools.values().flatten())
            .chain(&self.dangerous)
            .map(String::as_str)
            .collect()
    }

    /// The scopes every call needs.
    pub fn every_call(&self) -> &[String] {
        &self.every
    }

    /// The scopes `principal` lacks for `tool` (empty: it may call it).
    pub fn missing<'a>(&'a self, tool: &ToolDescriptor, principal: &Principal) -> Vec<&'a str> {
        self.required(tool)
            .into_iter()
            .filter(|scope| !principal.has_scope(scope))
            .collect()
    }
}

/// A layer that lets a principal call (and see) only the tools whose scopes
/// ([`ScopeRules`]) it was granted; any other call answers `type: "disabled"`, as a tool the
/// policy turned off does, and the tool is left out of that caller's listings. A call without
/// a principal is refused too, unless [`allow_anonymous`](Self::allow_anonymous) says
/// otherwise.
#[derive(Debug, Clone)]
pub struct RequireScopes {
    rules: ScopeRules,
    anonymous: bool,
}

impl RequireScopes {
    /// Calls need the scopes `rules` give.
    pub fn new(rules: ScopeRules) -> Self {
        RequireScopes {
            rules,
            anonymous: false,
        }
    }

    /// Lets calls without a principal through (in-process callers that are trusted).
    pub fn allow_anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }

    /// The rules.
    pub fn rules(&self) -> &ScopeRules {
        &self.rules
    }
}

impl Layer for RequireScopes {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        let tool = call.tool();
        let Some(principal) = call.principal() else {
            if self.anonymous {
                return Ok(());
            }
            return Err(ToolError::new(
                ErrorKind::Disabled,
                format!(
                    "the tool `{}` needs an authorized caller, and this call carries no principal",
                    tool.name()
                ),
            ));
        };
        if self.rules.allows(tool, principal) {
            return Ok(());
        }
        let missing = self.rules.missing(tool, principal);
        Err(ToolError::new(
            ErrorKind::Disabled,
            format!(
                "the tool `{}` needs the scope{} {}, which `{}` was not granted",
                tool.name(),
                if missing.len() == 1 { "" } else { "s" },
                missing
                    .iter()
                    .map(|scope| format!("`{scope}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                principal.subject
            ),
        ))
    }

    fn visible(&self, tool: &ToolDescriptor, principal: Option<&Principal>) -> bool {
        match principal {
            Some(principal) => self.rules.allows(tool, principal),
            None => self.anonymous,
        }
    }
}
