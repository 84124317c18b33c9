//! Specialists: who a director hands work to. Declared in code with [`specialist!`](crate::specialist!)
//! (registered like tools, through a linker section), added with
//! [`TeamBuilder::specialist`](crate::TeamBuilder::specialist), or loaded from a config file
//! ([`TeamConfig`]).

use std::fmt;
use std::path::Path;
use std::time::Duration;

use buril::ToolView;
use buril::policy::PatternError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::OpenAiCompatible;

/// A specialist declared in code: everything is `'static`, so that it can live in the
/// [`SPECIALISTS`] slice. Register one with [`specialist!`](crate::specialist!).
#[derive(Debug, Clone, Copy)]
pub struct SpecialistDef {
    /// The specialist's name, in kebab case: `scene-inspector`.
    pub name: &'static str,
    /// What the specialist is for; the director picks specialists by this.
    pub description: &'static str,
    /// The tool view a handoff gets when it names none: patterns such as `scene_*`,
    /// `asset_list` or `*`.
    pub tool_view: &'static [&'static str],
    /// The model a handoff uses when it names none (see [`Team`](crate::Team) for how names
    /// resolve to models).
    pub model: &'static str,
    /// The system prompt the model gets.
    pub system_prompt: &'static str,
}

/// Every specialist declared with [`specialist!`](crate::specialist!) in the binary.
#[linkme::distributed_slice]
pub static SPECIALISTS: [SpecialistDef];

/// Declares a specialist in code; it is registered with no further step, like a tool, and a
/// [`Team`](crate::Team) built afterwards offers it (unless built
/// [`without_linked_specialists`](crate::TeamBuilder::without_linked_specialists)).
///
/// ```
/// buril_team::specialist! {
///     /// Reads the console log.
///     static CONSOLE_READER = buril_team::SpecialistDef {
///         name: "console-reader",
///         description: "Reads and summarises the console log.",
///         tool_view: &["console_read"],
///         model: "default",
///         system_prompt: "You read the console log and summarise errors first.",
///     };
/// }
///
/// assert!(buril_team::SPECIALISTS.iter().any(|s| s.name == "console-reader"));
/// ```
#[macro_export]
macro_rules! specialist {
    ($(#[$meta:meta])* $vis:vis static $name:ident = $def:expr;) => {
        $(#[$meta])*
        #[$crate::__private::linkme::distributed_slice($crate::SPECIALISTS)]
        #[linkme(crate = $crate::__private::linkme)]
        $vis static $name: $crate::SpecialistDef = $def;
    };
}

/// A specialist: a name, a description, a default tool view, a default model and a system
/// prompt, and optionally the schema of the artifact its reports carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Specialist {
    /// The specialist's name, in kebab case: `scene-inspector`.
    pub name: String,
    /// What the specialist is for; the director picks specialists by this.
    pub description: String,
    /// The tool view a handoff gets when it names none.
    pub tool_view: Vec<String>,
    /// The model a handoff uses when it names none.
    pub model: String,
    /// The system prompt the model gets.
    #[serde(default)]
    pub system_prompt: String,
    /// The JSON Schema of the artifact the specialist's final report carries, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_schema: Option<Value>,
}

impl Specialist {
    /// A specialist with a view of every tool (`*`), the model `default` and no system prompt;
    /// the builder methods change them.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Specialist {
            name: name.into(),
            description: description.into(),
            tool_view: vec!["*".to_owned()],
            model: "default".to_owned(),
            system_prompt: String::new(),
            artifact_schema: None,
        }
    }

    /// The default tool view.
    pub fn tool_view<I>(mut self, patterns: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.tool_view = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// The default model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// The system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = prompt.into();
        self
    }

    /// The schema of the artifact the specialist's reports carry.
    pub fn artifact_schema(mut self, schema: Value) -> Self {
        self.artifact_schema = Some(schema);
        self
    }

    /// The default tool view, parsed.
    pub fn view(&self) -> Result<ToolView, PatternError> {
        ToolView::parse(&self.tool_view)
    }

    /// Why the specialist cannot be offered, if it cannot: a name that is not kebab case, an
    /// empty description or model, or a view pattern that does not parse.
    pub fn check(&self) -> Result<(), String> {
        let name = &self.name;
        let kebab = !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && !name.ends_with('-')
            && !name.contains("--")
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !kebab {
            return Err(format!(
                "the specialist name `{name}` is not kebab case (`scene-inspector`)"
            ));
        }
        if self.description.trim().is_empty() {
            return Err(format!("the specialist `{name}` has no description"));
        }
        if self.model.trim().is_empty() {
            return Err(format!("the specialist `{name}` names no model"));
        }
        if self.tool_view.is_empty() {
            return Err(format!(
                "the specialist `{name}` has an empty tool view; use `*` for every tool"
            ));
        }
        self.view()
            .map_err(|error| format!("the specialist `{name}`: {error}"))?;
        Ok(())
    }
}

impl From<&SpecialistDef> for Specialist {
    fn from(def: &SpecialistDef) -> Self {
        Specialist {
            name: def.name.to_owned(),
            description: def.description.to_owned(),
            tool_view: def.tool_view.iter().map(|p| (*p).to_owned()).collect(),
            model: def.model.to_owned(),
            system_prompt: def.system_prompt.to_owned(),
            artifact_schema: None,
        }
    }
}

/// An OpenAI-compatible model endpoint declared in a config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// The name specialists and handoffs use for it (`local`, then `local` or
    /// `local/other-model`).
    pub name: String,
    /// The API's base URL, up to and including the version: `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// The model to ask for when a handoff names only the endpoint.
    pub model: String,
    /// The environment variable holding the API key, if the server needs one.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Seconds to wait for one answer. Default: 120.
    #[serde(default)]
    pub timeout_secs: Option<f64>,
}

impl ModelConfig {
    /// The client this entry describes.
    pub fn client(&self) -> Result<OpenAiCompatible, ConfigError> {
        let mut client = OpenAiCompatible::new(&self.base_url, &self.model);
        if let Some(var) = &self.api_key_env {
            client = client.api_key_env(var);
        }
        if let Some(seconds) = self.timeout_secs {
            let timeout = Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|t| !t.is_zero())
                .ok_or_else(|| {
                    ConfigError(format!(
                        "the model `{}`: `timeout_secs` must be a positive number",
                        self.name
                    ))
                })?;
            client = client.timeout(timeout);
        }
        Ok(client)
    }
}

/// Specialists and model endpoints from a config file, TOML or JSON:
///
/// ```toml
/// [[specialist]]
/// name = "console-reader"
/// description = "Reads and summarises the console log."
/// tool_view = ["console_*"]
/// model = "local"
/// system_prompt = "Summarise errors first."
///
/// [[model]]
/// name = "local"
/// base_url = "http://127.0.0.1:11434/v1"
/// model = "llama3.2"
/// api_key_env = "LOCAL_LLM_KEY"   # optional
/// ```
///
/// The JSON form is `{"specialists": [...], "models": [...]}` (`specialist` and `model` work
/// too).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamConfig {
    /// Specialists to offer.
    #[serde(default, alias = "specialist")]
    pub specialists: Vec<Specialist>,
    /// OpenAI-compatible endpoints, by name.
    #[serde(default, alias = "model")]
    pub models: Vec<ModelConfig>,
}

/// Why a config file could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl TeamConfig {
    /// Reads a config file: JSON when its name ends in `.json`, TOML otherwise.
    pub fn load(path: impl AsRef<Path>) -> Result<TeamConfig, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|error| ConfigError(format!("cannot read {}: {error}", path.display())))?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let parsed = if is_json {
            TeamConfig::from_json(&text)
        } else {
            TeamConfig::from_toml(&text)
        };
        parsed.map_err(|error| ConfigError(format!("{}: {error}", path.display())))
    }

    /// Parses the TOML form.
    pub fn from_toml(text: &str) -> Result<TeamConfig, ConfigError> {
        toml::from_str(text).map_err(|error| ConfigError(error.to_string()))
    }

    /// Parses the JSON form.
    pub fn from_json(text: &str) -> Result<TeamConfig, ConfigError> {
        serde_json::from_str(text).map_err(|error| ConfigError(error.to_string()))
    }
}
