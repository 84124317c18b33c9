//! A client of OpenAI-compatible chat-completions servers: OpenAI itself, vLLM, Ollama and
//! llama.cpp's server.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::interface::{
    Model, ModelError, ModelFuture, ModelReply, ModelRequest, Report, ToolCall, Turn,
};
use crate::http::{self, Url};

/// A model served by an OpenAI-compatible chat-completions API (`POST
/// {base_url}/chat/completions` with `tools`, answered with `tool_calls` or a message).
///
/// Works with OpenAI (`https://api.openai.com/v1`, with the `rustls` feature), vLLM
/// (`http://host:8000/v1`), Ollama (`http://127.0.0.1:11434/v1`) and llama.cpp's server
/// (`http://127.0.0.1:8080/v1`, started with `--jinja` for tool calls).
///
/// The API key is read from the environment variable named by
/// [`api_key_env`](Self::api_key_env) at each request and sent as `Authorization: Bearer
/// KEY`; when the variable is unset or empty no key is sent, which local servers accept.
///
/// ```
/// use buril_team::OpenAiCompatible;
///
/// let model = OpenAiCompatible::new("http://127.0.0.1:11434/v1", "llama3.2")
///     .api_key_env("OLLAMA_API_KEY");
/// assert_eq!(model.endpoint(), "http://127.0.0.1:11434/v1/chat/completions");
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    base_url: String,
    model: String,
    api_key_env: Option<String>,
    timeout: Duration,
    headers: Vec<(String, String)>,
}

impl OpenAiCompatible {
    /// A client of the server at `base_url` (up to and including the API version, such as
    /// `http://127.0.0.1:8080/v1`), asking for `model` unless a handoff names another.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiCompatible {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            timeout: Duration::from_secs(120),
            headers: Vec::new(),
        }
    }

    /// The environment variable that holds the API key.
    pub fn api_key_env(mut self, var: impl Into<String>) -> Self {
        self.api_key_env = Some(var.into());
        self
    }

    /// How long one answer may take. Default: 120 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Adds a header to every request (`OpenAI-Organization`, say).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The model asked for when a handoff names none.
    pub fn default_model(&self) -> &str {
        &self.model
    }

    /// Where requests go: `{base_url}/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// The request body for `request`: the model, the messages (system prompt, brief, then
    /// the history as assistant `tool_calls` and `tool` messages), the tools in the Chat
    /// Completions form and the temperature, if set.
    pub fn request_body(&self, request: &ModelRequest) -> Value {
        let mut messages = vec![
            json!({"role": "system", "content": request.system_prompt}),
            json!({"role": "user", "content": request.brief}),
        ];
        for turn in &request.history {
            match turn {
                Turn::Calls { calls } => {
                    let calls: Vec<Value> = calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id,
                                "type": "function",
                                "function": {
                                    "name": call.tool,
                                    "arguments": call.input.to_string(),
                                },
                            })
                        })
                        .collect();
                    messages.push(json!({
                        "role": "assistant",
                        "content": Value::Null,
                        "tool_calls": calls,
                    }));
                }
                Turn::Result {
                    call_id, envelope, ..
                } => messages.push(json!({
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": envelope.to_string(),
                })),
            }
        }
        let mut body = Map::new();
        let model = request.model.as_deref().unwrap_or(&self.model);
        body.insert("model".into(), model.into());
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            let tools = request
                .tools
                .iter()
                .map(buril::profile::chat_completions_tool)
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), temperature.into());
        }
        Value::Object(body)
    }

    /// Reads a chat-completions answer: the first choice's `tool_calls`, or its content as the
    /// report (plain text, or `{"report": ..., "artifact": ...}`). Arguments may be a JSON
    /// string (OpenAI, vLLM, llama.cpp) or an object (some Ollama versions); a call without an
    /// id gets one.
    pub fn parse_reply(body: &Value) -> Result<ModelReply, ModelError> {
        if let Some(error) = body.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(ModelError(format!("the model server refused: {message}")));
        }
        let message = body.pointer("/choices/0/message").ok_or_else(|| {
            ModelError::new(format!(
                "no `choices[0].message` in the answer: {}",
                excerpt(&body.to_string())
            ))
        })?;
        let calls = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .filter(|calls| !calls.is_empty());
        if let Some(calls) = calls {
            let mut parsed = Vec::with_capacity(calls.len());
            for (index, call) in calls.iter().enumerate() {
                let function = call.get("function").ok_or_else(|| {
                    ModelError::new(format!("tool call {index} has no `function`: {call}"))
                })?;
                let name = function
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        ModelError::new(format!("tool call {index} has no function name: {call}"))
                    })?;
                let input = match function.get("arguments") {
                    None | Some(Value::Null) => Value::Object(Map::new()),
                    Some(Value::String(text)) if text.trim().is_empty() => {
                        Value::Object(Map::new())
                    }
                    // Arguments that are not JSON reach the tool as a string, which its
                    // validation refuses, saying so.
                    Some(Value::String(text)) => {
                        serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
                    }
                    Some(other) => other.clone(),
                };
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty())
                    .map_or_else(|| format!("call_{index}"), str::to_owned);
                parsed.push(ToolCall::new(id, name, input));
            }
            return Ok(ModelReply::ToolCalls(parsed));
        }
        let content = match message.get("content") {
            Some(Value::String(text)) => text.clone(),
            // Content given as parts: their texts, joined.
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        };
        Ok(ModelReply::Report(Report::parse(&content)))
    }

    async fn ask(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let endpoint = self.endpoint();
        let url = Url::parse(&endpoint).map_err(ModelError)?;
        let mut headers = self.headers.clone();
        if let Some(var) = &self.api_key_env
            && let Ok(key) = std::env::var(var)
            && !key.is_empty()
        {
            headers.push(("authorization".to_owned(), format!("Bearer {key}")));
        }
        let body = serde_json::to_vec(&self.request_body(request))
            .map_err(|error| ModelError(format!("the request could not be encoded: {error}")))?;
        let answer = http::post_json(&url, &headers, body, self.timeout)
            .await
            .map_err(|error| ModelError(format!("{endpoint}: {error}")))?;
        let text = String::from_utf8_lossy(&answer.body);
        let parsed: Result<Value, _> = serde_json::from_str(&text);
        if !(200..300).contains(&answer.status) {
            let detail = match &parsed {
                Ok(body) => body
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .map_or_else(|| excerpt(&text), str::to_owned),
                Err(_) => excerpt(&text),
            };
            return Err(ModelError(format!(
                "{endpoint} answered HTTP {}: {detail}",
                answer.status
            )));
        }
        let body = parsed.map_err(|error| {
            ModelError(format!(
                "{endpoint} answered something that is not JSON ({error}): {}",
                excerpt(&text)
            ))
        })?;
        Self::parse_reply(&body)
    }
}

fn excerpt(text: &str) -> String {
    const LIMIT: usize = 500;
    if text.chars().count() <= LIMIT {
        return text.to_owned();
    }
    let cut: String = text.chars().take(LIMIT).collect();
    format!("{cut}…")
}

impl Model for OpenAiCompatible {
    fn complete<'a>(&'a self, request: &'a ModelRequest) -> ModelFuture<'a> {
        Box::pin(self.ask(request))
    }
}
