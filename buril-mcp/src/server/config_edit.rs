//! The config file as a settings page sees it: what it turns on and off, and changes to it
//! (dangerous tools, rules, external servers, timeouts) written back with its comments and
//! layout kept. A running server watches the file and takes a change within a second or so,
//! telling its MCP clients that the tool list changed; `tools settings` and the studio both
//! edit through here.
//!
//! A change is checked as the server would read it (the same parser, against the same
//! registry) before anything is written, and the file is replaced in one rename, so a server
//! never reads half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml_edit::{Array, DocumentMut, Item, Value};

use super::config::{self, Settings};
use buril_core::Registry;
use buril_core::policy::Policy;

/// One change to the config file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "change", rename_all = "snake_case", deny_unknown_fields)]
pub enum Change {
    /// `allow_dangerous`: every dangerous tool on, or only those an `enable` rule names.
    AllowDangerous { allow: bool },
    /// Adds `rule` to `enable` (and takes it out of `disable`).
    Enable { rule: String },
    /// Adds `rule` to `disable` (and takes it out of `enable`).
    Disable { rule: String },
    /// Takes `rule` out of both lists.
    Reset { rule: String },
    /// The `enable` flag of the `[[external]]` server named `server`.
    External { server: String, enable: bool },
    /// The timeout of calls without their own, in seconds (`None`: the default).
    Timeout { seconds: Option<f64> },
    /// One tool's timeout, in seconds (`None`: none of its own).
    ToolTimeout { tool: String, seconds: Option<f64> },
}

/// What the config file says, as a settings page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    /// The file.
    pub config: PathBuf,
    /// Whether it exists (a missing one is the defaults).
    pub exists: bool,
    /// Its `allow_dangerous`.
    pub allow_dangerous: bool,
    /// Its `enable` rules, as written.
    pub enable: Vec<String>,
    /// Its `disable` rules, as written.
    pub disable: Vec<String>,
    /// Its `timeout`, in seconds.
    pub timeout: Option<f64>,
    /// Its `[timeouts]`, in seconds, by the names written.
    pub timeouts: std::collections::BTreeMap<String, f64>,
    /// Every tool linked into the binary, and whether the file lets it run.
    pub tools: Vec<ToolState>,
    /// Its `[[external]]` servers.
    pub externals: Vec<ExternalState>,
}

/// A linked tool under the config file's rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolState {
    pub name: String,
    pub family: String,
    pub dangerous: bool,
    pub enabled: bool,
    /// Why it is off, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An external server named by the config file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExternalState {
    pub name: String,
    /// What its tools' names start with here.
    pub prefix: String,
    /// Whether its tools are on (its `enable`, or an `enable` rule naming its family).
    pub enabled: bool,
}

/// Why a change was not made.
#[derive(Debug)]
pub struct EditError(pub String);

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The config file, read for editing.
pub struct ConfigEdit {
    path: PathBuf,
    exists: bool,
    document: DocumentMut,
}

/// The config file at `path` after `changes` (none: as it is): each made in order, the result
/// checked and written when there are any, then read back as a settings page shows it.
pub fn change(path: &Path, changes: &[Change], registry: &Registry) -> Result<View, EditError> {
    let mut edit = ConfigEdit::open(path)?;
    for change in changes {
        edit.apply(change)?;
    }
    if !changes.is_empty() {
        edit.save(registry)?;
    }
    edit.view(registry)
}

impl ConfigEdit {
    /// Reads `path` (a missing file is an empty one, created on [`save`](Self::save)).
    pub fn open(path: &Path) -> Result<ConfigEdit, EditError> {
        let (text, exists) = match std::fs::read_to_string(path) {
            Ok(text) => (text, true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => (String::new(), false),
            Err(error) => {
                return Err(EditError(format!(
                    "{} cannot be read: {error}",
                    path.display()
                )));
            }
        };
        let document = text
            .parse::<DocumentMut>()
            .map_err(|error| EditError(format!("{}: {error}", path.display())))?;
        Ok(ConfigEdit {
            path: path.to_owned(),
            exists,
            document,
        })
    }

    /// The file's text as it stands (with the changes made so far).
    pub fn text(&self) -> String {
        self.document.to_string()
    }

    /// Makes `change` (in memory: [`save`](Self::save) writes it).
    pub fn apply(&mut self, change: &Change) -> Result<(), EditError> {
        let root = self.document.as_table_mut();
        match change {
            Change::AllowDangerous { allow } => {
                root.insert("allow_dangerous", toml_edit::value(*allow));
            }
            Change::Enable { rule } => {
                let rule = checked_rule(rule)?;
                remove_rule(root, "disable", rule);
                add_rule(root, "enable", rule)?;
            }
            Change::Disable { rule } => {
                let rule = checked_rule(rule)?;
                remove_rule(root, "enable", rule);
                add_rule(root, "disable", rule)?;
            }
            Change::Reset { rule } => {
                let rule = checked_rule(rule)?;
                remove_rule(root, "enable", rule);
                remove_rule(root, "disable", rule);
            }
            Change::External { server, enable } => {
                let tables = root
                    .get_mut("external")
                    .and_then(Item::as_array_of_tables_mut);
                let Some(table) = tables.and_then(|tables| {
                    tables.iter_mut().find(|table| {
                        table.get("name").and_then(Item::as_str) == Some(server.as_str())
                    })
                }) else {
                    return Err(EditError(format!(
                        "the config file has no `[[external]]` server named `{server}`"
                    )));
                };
                table.insert("enable", toml_edit::value(*enable));
            }
            Change::Timeout { seconds } => match seconds {
                Some(seconds) => {
                    root.insert("timeout", toml_edit::value(*seconds));
                }
                None => {
                    root.remove("timeout");
                }
            },
            Change::ToolTimeout { tool, seconds } => match seconds {
                Some(seconds) => {
                    let timeouts = root
                        .entry("timeouts")
                        .or_insert_with(toml_edit::table)
                        .as_table_like_mut()
                        .ok_or_else(|| EditError("`timeouts` is not a table".to_owned()))?;
                    timeouts.insert(tool, toml_edit::value(*seconds));
                }
                None => {
                    if let Some(timeouts) =
                        root.get_mut("timeouts").and_then(Item::as_table_like_mut)
                    {
                        timeouts.remove(tool);
                    }
                }
            },
        }
        Ok(())
    }

    /// What the file says now, checked against `registry` as a server would read it.
    pub fn view(&self, registry: &Registry) -> Result<View, EditError> {
        let settings = self.settings(registry)?;
        let root = self.document.as_table();
        let strings = |key: &str| -> Vec<String> {
            root.get(key)
                .and_then(Item::as_array)
                .map(|array| {
                    array
                        .iter()
                        .filter_map(|value| value.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let timeouts = root
            .get("timeouts")
            .and_then(Item::as_table_like)
            .map(|table| {
                table
                    .iter()
                    .filter_map(|(name, item)| Some((name.to_owned(), number(item)?)))
                    .collect()
            })
            .unwrap_or_default();
        let policy = settings.rules.apply(Policy::new());
        let tools = registry
            .iter()
            .filter(|tool| tool.provenance().is_none())
            .map(|tool| {
                let reason = policy
                    .check(&tool)
                    .err()
                    .map(|error| error.message().to_owned());
                ToolState {
                    name: tool.name().to_owned(),
                    family: tool.family().to_owned(),
                    dangerous: tool.is_dangerous(),
                    enabled: reason.is_none(),
                    reason,
                }
            })
            .collect();
        Ok(View {
            config: self.path.clone(),
            exists: self.exists,
            allow_dangerous: settings.rules.allow_dangerous,
            enable: strings("enable"),
            disable: strings("disable"),
            timeout: root.get("timeout").and_then(number),
            timeouts,
            tools,
            externals: externals(&settings),
        })
    }

    /// Writes the file (creating its folder), replacing it in one rename, once the text reads
    /// as a server would read it; otherwise nothing is written and the error says why.
    pub fn save(&mut self, registry: &Registry) -> Result<(), EditError> {
        self.settings(registry)?;
        let text = self.text();
        let folder = match self.path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder.to_owned(),
            _ => PathBuf::from("."),
        };
        let failed = |error: std::io::Error| {
            EditError(format!(
                "{} cannot be written: {error}",
                self.path.display()
            ))
        };
        std::fs::create_dir_all(&folder).map_err(failed)?;
        let name = self
            .path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| "server.toml".to_owned());
        let temporary = folder.join(format!(".{name}.{}.tmp", std::process::id()));
        let written = std::fs::File::create(&temporary).and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
        if let Err(error) = written.and_then(|()| std::fs::rename(&temporary, &self.path)) {
            let _ = std::fs::remove_file(&temporary);
            return Err(failed(error));
        }
        self.exists = true;
        Ok(())
    }

    fn settings(&self, registry: &Registry) -> Result<Settings, EditError> {
        config::parse(&self.text(), registry, self.path.parent())
            .map_err(|error| EditError(format!("{}: {error}", self.path.display())))
    }
}

/// A rule as given, trimmed; an empty one is refused.
fn checked_rule(rule: &str) -> Result<&str, EditError> {
    let rule = rule.trim();
    if rule.is_empty() {
        return Err(EditError("a rule cannot be empty".to_owned()));
    }
    Ok(rule)
}

fn add_rule(root: &mut toml_edit::Table, key: &str, rule: &str) -> Result<(), EditError> {
    let array = root
        .entry(key)
        .or_insert_with(|| Item::Value(Value::Array(Array::new())))
        .as_array_mut()
        .ok_or_else(|| EditError(format!("`{key}` is not a list")))?;
    if !array.iter().any(|value| value.as_str() == Some(rule)) {
        array.push(rule);
    }
    Ok(())
}

fn remove_rule(root: &mut toml_edit::Table, key: &str, rule: &str) {
    if let Some(array) = root.get_mut(key).and_then(Item::as_array_mut) {
        // An emptied list stays (`disable = []`): the comments written above it stay with it.
        array.retain(|value| value.as_str() != Some(rule));
    }
}

fn number(item: &Item) -> Option<f64> {
    item.as_float()
        .or_else(|| item.as_integer().map(|number| number as f64))
}

#[cfg(feature = "hub")]
fn externals(settings: &Settings) -> Vec<ExternalState> {
    settings
        .externals
        .iter()
        .map(|external| {
            let prefix = external.prefix();
            // A rule naming the family (`family:NAME`, `NAME_*`, `*`) turns its tools on as
            // well, and one in `disable` off: a name of the family stands for them all.
            let one_of_them = format!("{prefix}tool");
            let rules = &settings.rules;
            let named = |patterns: &[buril_core::policy::ToolPattern]| {
                patterns.iter().any(|pattern| pattern.matches(&one_of_them))
            };
            ExternalState {
                name: external.name().to_owned(),
                enabled: (external.enabled() || named(&rules.enable)) && !named(&rules.disable),
                prefix,
            }
        })
        .collect()
}

#[cfg(not(feature = "hub"))]
fn externals(_: &Settings) -> Vec<ExternalState> {
    Vec::new()
}
