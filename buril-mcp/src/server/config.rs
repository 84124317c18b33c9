//! Rules (which tools are on) and timeouts, from the options and from a TOML config file.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::Deserialize;

use super::auth::{AuthFile, AuthOptions};
use buril_core::Registry;
use buril_core::policy::Policy;
use buril_core::policy::ToolPattern;

/// One layer of rules, resolved against the registry.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Rules {
    pub allow_dangerous: bool,
    pub enable: Vec<ToolPattern>,
    pub disable: Vec<ToolPattern>,
}

impl Rules {
    /// Adds this layer to `policy`.
    pub fn apply(&self, policy: Policy) -> Policy {
        let allow = policy.dangerous_allowed() || self.allow_dangerous;
        let policy = self.enable.iter().cloned().fold(policy, Policy::enable);
        self.disable
            .iter()
            .cloned()
            .fold(policy, Policy::disable)
            .allow_dangerous(allow)
    }
}

/// Rules and timeouts of one source (the options or the config file).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Settings {
    pub rules: Rules,
    /// The timeout of calls without their own.
    pub timeout: Option<Duration>,
    /// Per tool, by the tool's own name.
    pub timeouts: HashMap<&'static str, Duration>,
    /// The `[auth]` table, when there is one.
    pub auth: Option<AuthOptions>,
    /// The `[[external]]` tables: other MCP servers whose tools are served too.
    #[cfg(feature = "hub")]
    pub externals: Vec<crate::hub::External>,
}

/// The config file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    allow_dangerous: bool,
    #[serde(default)]
    enable: Vec<String>,
    #[serde(default)]
    disable: Vec<String>,
    timeout: Option<f64>,
    #[serde(default)]
    timeouts: BTreeMap<String, f64>,
    auth: Option<AuthFile>,
    #[serde(default)]
    external: Vec<toml::Table>,
}

/// Parses the config file's text (TOML) into settings, naming every mistake.
/// `folder` is the file's, which relative paths in it are taken from.
pub(crate) fn parse(
    text: &str,
    registry: &Registry,
    folder: Option<&Path>,
) -> Result<Settings, String> {
    let file: ConfigFile = toml::from_str(text).map_err(|error| error.to_string())?;
    let mut errors = Vec::new();
    let auth = file
        .auth
        .as_ref()
        .map(|auth| auth.resolve(registry, folder, &mut errors));
    #[cfg(feature = "hub")]
    let externals = crate::hub::from_tables(file.external, folder, &mut errors);
    #[cfg(feature = "hub")]
    let prefixes: Vec<String> = externals.iter().map(crate::hub::External::prefix).collect();
    #[cfg(not(feature = "hub"))]
    let prefixes: Vec<String> = Vec::new();
    #[cfg(not(feature = "hub"))]
    if !file.external.is_empty() {
        errors.push(
            "`[[external]]` serves other MCP servers' tools, which needs buril's `hub` \
             feature: this binary was built without it"
                .to_owned(),
        );
    }
    let enable = resolve_all(&file.enable, registry, &prefixes, &mut errors);
    let disable = resolve_all(&file.disable, registry, &prefixes, &mut errors);
    let timeout = file
        .timeout
        .and_then(|seconds| seconds_or(seconds, "`timeout`", &mut errors));
    let mut timeouts = HashMap::new();
    for (name, seconds) in &file.timeouts {
        let Some(tool) = timed_tool(name, registry, &prefixes) else {
            errors.push(unknown_tool(name, registry, "`[timeouts]`"));
            continue;
        };
        if let Some(timeout) = seconds_or(*seconds, &format!("`[timeouts] {name}`"), &mut errors) {
            timeouts.insert(tool, timeout);
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    Ok(Settings {
        rules: Rules {
            allow_dangerous: file.allow_dangerous,
            enable,
            disable,
        },
        timeout,
        timeouts,
        auth,
        #[cfg(feature = "hub")]
        externals,
    })
}

/// Reads and parses the config file; a missing file is `Ok(None)`.
pub(crate) fn read(path: &Path, registry: &Registry) -> Result<Option<Settings>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{} cannot be read: {error}", path.display())),
    };
    parse(&text, registry, path.parent())
        .map(Some)
        .map_err(|error| format!("{}: {error}", path.display()))
}

fn resolve_all(
    rules: &[String],
    registry: &Registry,
    prefixes: &[String],
    errors: &mut Vec<String>,
) -> Vec<ToolPattern> {
    let mut patterns = Vec::new();
    for rule in rules {
        match resolve(rule, registry, prefixes) {
            Ok(resolved) => patterns.extend(resolved),
            Err(error) => errors.push(error),
        }
    }
    patterns
}

/// Resolves one rule: `family:NAME` (every tool of that family), a glob (`*`, `prefix*`), or
/// a tool's name or alias (resolved to the tool's own name, which policies decide on).
///
/// `prefixes` are the prefixes of external servers' tools (`everything_`), whose tools come
/// and go while the server runs: `family:everything` is every tool named `everything_…`
/// whenever it is served, and a name with such a prefix is taken as it is.
pub(crate) fn resolve(
    rule: &str,
    registry: &Registry,
    prefixes: &[String],
) -> Result<Vec<ToolPattern>, String> {
    let rule = rule.trim();
    let external = |name: &str| {
        prefixes
            .iter()
            .any(|prefix| !prefix.is_empty() && name.starts_with(prefix.as_str()))
    };
    if let Some(family) = rule.strip_prefix("family:")
        && prefixes
            .iter()
            .any(|prefix| prefix.strip_suffix('_') == Some(family))
    {
        return format!("{family}_*")
            .parse()
            .map(|pattern| vec![pattern])
            .map_err(|error: buril_core::policy::PatternError| error.to_string());
    }
    if let Some(family) = rule.strip_prefix("family:") {
        let names: Vec<ToolPattern> = registry
            .iter()
            .filter(|tool| tool.family() == family)
            .map(|tool| exact(tool.name()))
            .collect();
        // The Unity editor's own tools come when it connects, and again after each reload: a
        // family not served yet may be one of theirs.
        if names.is_empty() && buril_core::editor::link().is_some() {
            return format!("{family}_*")
                .parse()
                .map(|pattern| vec![pattern])
                .map_err(|error: buril_core::policy::PatternError| error.to_string());
        }
        if names.is_empty() {
            return Err(format!(
                "no tool family is named `{family}` (families: {})",
                registry.families().join(", ")
            ));
        }
        return Ok(names);
    }
    let pattern: ToolPattern = rule
        .parse()
        .map_err(|error| format!("{error}; a family is written `family:NAME`"))?;
    if rule.ends_with('*') {
        return Ok(vec![pattern]);
    }
    match registry.get(rule) {
        Some(tool) => Ok(vec![exact(tool.name())]),
        None if external(rule) => Ok(vec![pattern]),
        None => Err(unknown_tool(rule, registry, "a rule")),
    }
}

/// The tool a timeout names (its own name, when named by an alias): a tool served now, or a
/// tool of an external server, by its prefix, which may not be served yet.
pub(crate) fn timed_tool(
    name: &str,
    registry: &Registry,
    prefixes: &[String],
) -> Option<&'static str> {
    match registry.get(name) {
        Some(tool) => Some(tool.static_name()),
        None if prefixes
            .iter()
            .any(|prefix| !prefix.is_empty() && name.starts_with(prefix.as_str()))
            && buril_names::is_valid_shape(name) =>
        {
            Some(buril_core::frontend::intern(name))
        }
        None => None,
    }
}

fn exact(name: &str) -> ToolPattern {
    name.parse()
        .expect("a registered tool's name is a valid pattern")
}

/// A rule or timeout naming no tool; the names suggested are every tool's, since a rule may
/// well enable a tool that is off.
pub(crate) fn unknown_tool(name: &str, registry: &Registry, place: &str) -> String {
    let suggestions = registry.suggest(name);
    format!(
        "{place}: {}",
        buril_core::frontend::unknown_tool(name, &suggestions)
    )
}

fn seconds_or(seconds: f64, what: &str, errors: &mut Vec<String>) -> Option<Duration> {
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if seconds > 0.0 => Some(duration),
        _ => {
            errors.push(format!(
                "{what} must be a positive number of seconds, not {seconds}"
            ));
            None
        }
    }
}

/// What the watcher compares between polls: modification time and length (`None`: missing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Stamp(Option<(Option<SystemTime>, u64)>);

impl Stamp {
    pub fn of(path: &Path) -> Stamp {
        Stamp(
            std::fs::metadata(path)
                .ok()
                .map(|metadata| (metadata.modified().ok(), metadata.len())),
        )
    }
}
