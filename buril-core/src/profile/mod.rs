//! Tool definitions exactly as each provider expects them: MCP, OpenAI, Anthropic and Gemini.
//!
//! The registry's schemas are JSON Schema 2020-12. Each provider takes a different shape of
//! tool object and a different subset of JSON Schema, so a [`Profile`] renders a tool for one
//! of them, checked against that provider's documented limits ([`limits`]).
//!
//! A tool that a profile cannot express is reported as a [`ProfileError`], with the reason and
//! where in the schema it is; it is never silently changed into something that accepts more,
//! or less, than the tool does. Rewrites that keep the meaning (a `const` as a one-value
//! `enum`, a `$ref` inlined, `nullable: true` for `type: [T, "null"]`) are made; annotations a
//! provider rejects are dropped, since they decide no validation.
//!
//! | profile | tool object | schema |
//! | --- | --- | --- |
//! | `mcp` | `{name, title?, description, inputSchema, outputSchema, annotations?}` | as the registry gives it, each `type: [T, "null"]` written as `anyOf: [{type: T}, {type: "null"}]`, the form portability checks accept |
//! | `openai` | `{"type": "function", name, description, parameters, strict}` (Responses API; [`chat_completions_tool`] gives the Chat Completions form) | strict whenever the schema allows it, otherwise unchanged with `strict: false` and a [`Note`] saying why |
//! | `anthropic` | `{name, description, input_schema}` | unchanged; a root `oneOf`/`anyOf`/`allOf` is reported |
//! | `gemini` | `{name, description, parameters?}`, or `{name, description, parametersJsonSchema}` | Gemini's OpenAPI 3.0 subset: `$ref` inlined, `nullable`, no `const`, `$schema`, `$defs` or `additionalProperties`; a tool the subset cannot express (recursive types, open maps, ...) goes as full JSON Schema in `parametersJsonSchema`, with a [`Note`] saying why |
//!
//! ```
//! use buril::profile::{self, Profile};
//!
//! /// Counts the words of a text.
//! #[buril::tool]
//! fn text_count_words(
//!     /// The text.
//!     text: String,
//!     /// Count only words at least this long.
//!     min_length: Option<u32>,
//! ) -> usize {
//!     text.split_whitespace()
//!         .filter(|w| w.len() >= min_length.unwrap_or(0) as usize)
//!         .count()
//! }
//!
//! let tool = buril::registry().get("text_count_words").unwrap();
//! let openai = profile::render(Profile::OpenAi, &tool).unwrap().value;
//! assert_eq!(openai["strict"], true);
//! assert_eq!(openai["parameters"]["required"], serde_json::json!(["text", "min_length"]));
//!
//! let gemini = profile::render(Profile::Gemini, &tool).unwrap();
//! assert_eq!(gemini.value["parameters"]["properties"]["min_length"]["nullable"], true);
//! assert_eq!(gemini.notes, vec![]);
//! ```

use serde_json::Value;

use crate::descriptor::ToolDescriptor;
use crate::registry::Registry;

mod anthropic;
mod error;
mod gemini;
mod kind;
pub mod limits;
pub(crate) mod mcp;
mod openai;
mod union;
mod walk;

pub use self::error::{Note, ProfileError};
pub use self::kind::{Profile, UnknownProfile};
pub use self::openai::chat_completions_tool;

/// One tool's definition for a profile, with notes on it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Definition {
    /// The tool's name.
    pub tool: String,
    /// The tool object the provider expects.
    pub value: Value,
    /// What is worth knowing about it, such as why an OpenAI tool is not strict.
    pub notes: Vec<Note>,
}

/// Renders `tool` for `profile`: the tool object the provider expects
/// ([`Definition::value`]), with notes; fails when the profile cannot express it.
pub fn render(profile: Profile, tool: &ToolDescriptor) -> Result<Definition, ProfileError> {
    let rendered = match profile {
        Profile::Mcp => mcp::render(tool).map(|value| (value, Vec::new())),
        Profile::OpenAi => openai::render(tool),
        Profile::Anthropic => anthropic::render(tool).map(|value| (value, Vec::new())),
        Profile::Gemini => gemini::render(tool),
    };
    match rendered {
        Ok((value, notes)) => Ok(Definition {
            tool: tool.name().to_owned(),
            value,
            notes,
        }),
        Err(issue) => Err(issue.into_error(tool.name(), profile)),
    }
}

/// Why the `mcp` profile cannot express `tool`, if it cannot ([`render`]'s checks, without the
/// definition).
#[doc(hidden)]
pub fn check_mcp(tool: &ToolDescriptor) -> Result<(), ProfileError> {
    mcp::check(tool).map_err(|issue| issue.into_error(tool.name(), Profile::Mcp))
}

/// Every tool of `registry` rendered for `profile`, in the registry's order (sorted by name),
/// and one error for each tool the profile cannot express.
pub fn render_all(profile: Profile, registry: &Registry) -> (Vec<Definition>, Vec<ProfileError>) {
    let mut definitions = Vec::with_capacity(registry.len());
    let mut errors = Vec::new();
    for tool in registry.iter() {
        match render(profile, &tool) {
            Ok(definition) => definitions.push(definition),
            Err(error) => errors.push(error),
        }
    }
    (definitions, errors)
}
