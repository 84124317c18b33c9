//! What every model implements and exchanges with the team: the [`Model`] trait, the request
//! it is asked with, the tool calls and reports it answers with, and the history of turns.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use buril::context::InputSource;
use buril::profile::Profile;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a model's answer is: tool calls or a final report, or why it could not answer.
pub type ModelFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ModelReply, ModelError>> + Send + 'a>>;

/// The model behind a specialist. Implementations:
/// [`OpenAiCompatible`](crate::OpenAiCompatible) (an OpenAI-compatible chat-completions
/// server: OpenAI, vLLM, Ollama, llama.cpp) and [`ScriptedModel`](crate::ScriptedModel) (for
/// tests).
///
/// The team renders the tools of the handoff's view for [`profile`](Model::profile) (with
/// `buril::profile`), asks [`complete`](Model::complete) for the next step, runs the tool
/// calls it answers with through the dispatcher, adds them and their envelopes to the history,
/// and asks again, until the model answers with a report. A model that needs no network may
/// answer at once; a cancelled handoff drops the future.
pub trait Model: Send + Sync + 'static {
    /// The provider profile the tool definitions are rendered in. Default: OpenAI.
    fn profile(&self) -> Profile {
        Profile::OpenAi
    }

    /// The next step: tool calls, or the final report.
    fn complete<'a>(&'a self, request: &'a ModelRequest) -> ModelFuture<'a>;

    /// Who answers the questions a tool asks in the middle of a call (a form, a completion,
    /// the roots: `Context::elicit` and its kin). Default: nobody, and the tool is told so.
    fn input_source(&self) -> Option<Arc<dyn InputSource>> {
        None
    }
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn profile(&self) -> Profile {
        (**self).profile()
    }

    fn input_source(&self) -> Option<Arc<dyn InputSource>> {
        (**self).input_source()
    }

    fn complete<'a>(&'a self, request: &'a ModelRequest) -> ModelFuture<'a> {
        (**self).complete(request)
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn profile(&self) -> Profile {
        (**self).profile()
    }

    fn input_source(&self) -> Option<Arc<dyn InputSource>> {
        (**self).input_source()
    }

    fn complete<'a>(&'a self, request: &'a ModelRequest) -> ModelFuture<'a> {
        (**self).complete(request)
    }
}

/// Everything a model is asked with.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The specialist being run.
    pub specialist: String,
    /// The model to ask for; `None` leaves the choice to the model's own configuration.
    pub model: Option<String>,
    /// The sampling temperature, when the handoff sets one.
    pub temperature: Option<f64>,
    /// The specialist's system prompt, followed by how to end with a report.
    pub system_prompt: String,
    /// The director's brief.
    pub brief: String,
    /// The tools of the handoff's view, in [`Model::profile`]'s form, sorted by name.
    pub tools: Vec<Value>,
    /// The tool calls asked for so far and their envelopes, in order.
    pub history: Vec<Turn>,
}

/// One tool call a model asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, echoed with its result (providers pair them by id).
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The input, a JSON object.
    pub input: Value,
}

impl ToolCall {
    /// A call with the given id.
    pub fn new(id: impl Into<String>, tool: impl Into<String>, input: Value) -> Self {
        ToolCall {
            id: id.into(),
            tool: tool.into(),
            input,
        }
    }
}

/// One entry of the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "turn", rename_all = "snake_case")]
pub enum Turn {
    /// The model asked for these calls.
    Calls {
        /// The calls, in order.
        calls: Vec<ToolCall>,
    },
    /// A call's answer.
    Result {
        /// The id of the call it answers.
        call_id: String,
        /// The tool called.
        tool: String,
        /// The envelope the call answered with.
        envelope: Value,
    },
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelReply {
    /// Run these calls, in order, and ask again.
    ToolCalls(Vec<ToolCall>),
    /// The work is done.
    Report(Report),
}

/// A specialist's final report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// What was done and found, for the director.
    pub text: String,
    /// Structured results (the paths written, the ids found), if any.
    pub artifact: Option<Value>,
}

impl Report {
    /// A report with no artifact.
    pub fn text(text: impl Into<String>) -> Self {
        Report {
            text: text.into(),
            artifact: None,
        }
    }

    /// The report a model wrote: either plain text or a JSON object
    /// `{"report": "...", "artifact": ...}`.
    pub fn parse(content: &str) -> Self {
        let trimmed = content.trim();
        if trimmed.starts_with('{')
            && let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(trimmed)
            && let Some(Value::String(text)) = object.remove("report")
        {
            return Report {
                text,
                artifact: object.remove("artifact").filter(|a| !a.is_null()),
            };
        }
        Report::text(content)
    }
}

/// Why a model could not answer: unreachable, refused, or answered something unreadable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl ModelError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ModelError(message.into())
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}
