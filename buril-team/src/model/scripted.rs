//! A model that answers from a script, for tests and demonstrations.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

use buril::Context;
use buril::context::{Asked, InputKind, InputRequest, InputSource};
use serde_json::Value;

use super::interface::{
    Model, ModelError, ModelFuture, ModelReply, ModelRequest, Report, ToolCall,
};

type Responder = Box<dyn Fn(&ModelRequest) -> Result<ModelReply, ModelError> + Send + Sync>;

/// One answer of a [`ScriptedModel`].
pub enum Step {
    /// Ask for these calls: `(tool, input)`, in order.
    Calls(Vec<(String, Value)>),
    /// End with this report.
    Report(Report),
    /// Fail with this message, as an unreachable model would.
    Fail(String),
    /// Answer with whatever the function makes of the request (to use an id from an earlier
    /// result, say).
    Respond(Responder),
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Calls(calls) => f.debug_tuple("Calls").field(calls).finish(),
            Step::Report(report) => f.debug_tuple("Report").field(report).finish(),
            Step::Fail(message) => f.debug_tuple("Fail").field(message).finish(),
            Step::Respond(_) => f.write_str("Respond(..)"),
        }
    }
}

/// A model that answers from a script, one [`Step`] per question, and remembers every request
/// it was asked with. Call ids are `call_1`, `call_2`, ... in the order the script asks for
/// calls. When the script runs out it fails, saying so.
///
/// ```
/// use buril_team::ScriptedModel;
/// use serde_json::json;
///
/// let model = ScriptedModel::new()
///     .call("scene_list", json!({}))
///     .report("One scene: Main.");
/// assert_eq!(model.remaining(), 2);
/// ```
#[derive(Default)]
pub struct ScriptedModel {
    steps: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<ModelRequest>>,
    next_call: Mutex<u64>,
    input: Arc<ScriptedInput>,
}

/// The scripted answers to the questions tools ask mid-call, and the questions asked.
#[derive(Debug, Default)]
struct ScriptedInput {
    answers: Mutex<VecDeque<Value>>,
    asked: Mutex<Vec<(String, InputRequest)>>,
}

impl InputSource for ScriptedInput {
    fn supports(&self, _kind: InputKind) -> bool {
        true
    }

    fn ask(&self, _ctx: &Context, key: &str, request: &InputRequest) -> Asked {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key.to_owned(), request.clone()));
        match self
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
        {
            Some(answer) => Asked::Answer(answer),
            None => Asked::Refused("the scripted model has no answer left in its script".into()),
        }
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("remaining", &self.remaining())
            .finish()
    }
}

impl ScriptedModel {
    /// An empty script.
    pub fn new() -> Self {
        ScriptedModel::default()
    }

    /// Adds a step.
    pub fn step(self, step: Step) -> Self {
        self.steps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(step);
        self
    }

    /// Adds a step asking for one call.
    pub fn call(self, tool: impl Into<String>, input: Value) -> Self {
        self.step(Step::Calls(vec![(tool.into(), input)]))
    }

    /// Adds a step asking for several calls at once.
    pub fn calls<I, S>(self, calls: I) -> Self
    where
        I: IntoIterator<Item = (S, Value)>,
        S: Into<String>,
    {
        let calls = calls.into_iter().map(|(t, i)| (t.into(), i)).collect();
        self.step(Step::Calls(calls))
    }

    /// Adds the final report.
    pub fn report(self, text: impl Into<String>) -> Self {
        self.step(Step::Report(Report::text(text)))
    }

    /// Adds the final report, with an artifact.
    pub fn report_with_artifact(self, text: impl Into<String>, artifact: Value) -> Self {
        self.step(Step::Report(Report {
            text: text.into(),
            artifact: Some(artifact),
        }))
    }

    /// Adds a failure.
    pub fn fail(self, message: impl Into<String>) -> Self {
        self.step(Step::Fail(message.into()))
    }

    /// Adds a step computed from the request.
    pub fn respond(
        self,
        respond: impl Fn(&ModelRequest) -> Result<ModelReply, ModelError> + Send + Sync + 'static,
    ) -> Self {
        self.step(Step::Respond(Box::new(respond)))
    }

    /// Adds the answer to the next question a tool asks mid-call (its MCP result: `{"action":
    /// "accept", "content": {...}}` for a form, `{"role": "assistant", "content": {...},
    /// "model": ...}` for a completion, `{"roots": [...]}`), in the order they are asked.
    ///
    /// ```
    /// use buril_team::ScriptedModel;
    /// use serde_json::json;
    ///
    /// let model = ScriptedModel::new()
    ///     .answer(json!({"action": "accept", "content": {"name": "Forest"}}))
    ///     .call("scene_create", json!({"path": "Assets/Scenes/Forest.scene"}))
    ///     .report("Made the scene.");
    /// assert!(model.questions().is_empty());
    /// ```
    pub fn answer(self, answer: Value) -> Self {
        self.input
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(answer);
        self
    }

    /// Every question tools asked so far, with its key, in order.
    pub fn questions(&self) -> Vec<(String, InputRequest)> {
        self.input
            .asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Steps not yet used.
    pub fn remaining(&self) -> usize {
        self.steps.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Every request asked so far, in order.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn call_id(&self) -> String {
        let mut next = self.next_call.lock().unwrap_or_else(|e| e.into_inner());
        *next += 1;
        format!("call_{next}")
    }

    fn reply(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
        let step = self
            .steps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        match step {
            None => Err(ModelError::new(
                "the scripted model has no more steps in its script",
            )),
            Some(Step::Calls(calls)) => Ok(ModelReply::ToolCalls(
                calls
                    .into_iter()
                    .map(|(tool, input)| ToolCall::new(self.call_id(), tool, input))
                    .collect(),
            )),
            Some(Step::Report(report)) => Ok(ModelReply::Report(report)),
            Some(Step::Fail(message)) => Err(ModelError(message)),
            Some(Step::Respond(respond)) => respond(request),
        }
    }
}

impl Model for ScriptedModel {
    fn complete<'a>(&'a self, request: &'a ModelRequest) -> ModelFuture<'a> {
        let answer = self.reply(request);
        Box::pin(async move { answer })
    }

    fn input_source(&self) -> Option<Arc<dyn InputSource>> {
        Some(Arc::clone(&self.input) as Arc<dyn InputSource>)
    }
}
