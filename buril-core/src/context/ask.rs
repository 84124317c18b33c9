//! Asking the caller for input in the middle of a call: elicitation (a form for the user),
//! sampling (a completion from the client's model) and roots (the client's folders), as MCP
//! defines them.
//!
//! A tool asks through its [`Context`](super::Context) (`ctx.elicit::<T>(message)`,
//! `ctx.confirm(message)`, `ctx.sample(...)`, `ctx.roots()`); the front end that called it
//! answers through an [`InputSource`]: the MCP server sends the request to the client (during
//! the call under 2025-11-25, or as an `input_required` result under 2026-07-28, in which case
//! the call ends at the question and runs again with the answer), the CLI asks on the terminal,
//! and a caller that cannot answer says so, which the tool sees as an error it can return.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::error::ToolError;

/// What kind of input a request asks for: the client capability that answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// `elicitation/create`: a form the user fills in.
    Elicitation,
    /// `sampling/createMessage`: a completion from the client's model.
    Sampling,
    /// `roots/list`: the folders the client works in.
    Roots,
}

impl InputKind {
    /// The MCP method of requests of this kind.
    pub fn method(self) -> &'static str {
        match self {
            InputKind::Elicitation => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }

    /// The client capability that answers it (`elicitation`, `sampling`, `roots`).
    pub fn capability(self) -> &'static str {
        match self {
            InputKind::Elicitation => "elicitation",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }
}

/// One request a tool makes of its caller: an MCP `elicitation/create`,
/// `sampling/createMessage` or `roots/list` with its params.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    kind: InputKind,
    params: Value,
}

impl InputRequest {
    /// A form for the user: `message`, and the fields of `T` (a struct of strings, numbers,
    /// booleans and enums, optional fields allowed, defaults and doc comments kept) as the
    /// requested schema. An error if `T` has a field elicitation cannot ask for (an object, a
    /// list of anything but enum values).
    pub fn elicit<T: JsonSchema>(message: impl Into<String>) -> Result<Self, ToolError> {
        let schema = crate::schema::input_generator()
            .into_root_schema_for::<T>()
            .to_value();
        let requested = elicitation_schema(&schema).map_err(|reason| {
            ToolError::runtime(format!(
                "`{}` cannot be asked for with elicitation: {reason}",
                T::schema_name()
            ))
        })?;
        Ok(Self::elicit_schema(message, requested))
    }

    /// A form for the user with a requested schema given as JSON (a flat object schema, as
    /// MCP's elicitation defines it). Not checked: the client refuses what it cannot show.
    pub fn elicit_schema(message: impl Into<String>, requested_schema: Value) -> Self {
        InputRequest {
            kind: InputKind::Elicitation,
            params: json!({"message": message.into(), "requestedSchema": requested_schema}),
        }
    }

    /// A yes-or-no question: a form with one boolean field, `confirm`.
    pub fn confirm(message: impl Into<String>) -> Self {
        Self::elicit_schema(
            message,
            json!({
                "type": "object",
                "properties": {
                    "confirm": {"type": "boolean", "title": "Confirm", "default": false}
                },
                "required": ["confirm"]
            }),
        )
    }

    /// A completion from the client's model.
    pub fn sample(sampling: Sampling) -> Self {
        InputRequest {
            kind: InputKind::Sampling,
            params: sampling.into_params(),
        }
    }

    /// A request as MCP writes it (`method` and its `params`), such as one another MCP server
    /// sent while the hub forwarded a call to it; `None` for a method that is not a question
    /// to the caller.
    pub fn from_mcp(method: &str, params: Value) -> Option<Self> {
        let kind = [
            InputKind::Elicitation,
            InputKind::Sampling,
            InputKind::Roots,
        ]
        .into_iter()
        .find(|kind| kind.method() == method)?;
        Some(InputRequest { kind, params })
    }

    /// The client's roots (the folders it works in).
    pub fn list_roots() -> Self {
        InputRequest {
            kind: InputKind::Roots,
            params: json!({}),
        }
    }

    /// What it asks for.
    pub fn kind(&self) -> InputKind {
        self.kind
    }

    /// The MCP method.
    pub fn method(&self) -> &'static str {
        self.kind.method()
    }

    /// The request's params, as MCP writes them.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// `{"method": …, "params": …}`: the request as an `input_required` result lists it.
    pub fn to_json(&self) -> Value {
        json!({"method": self.method(), "params": self.params})
    }
}

/// A sampling request: messages for the client's model, and how long an answer may be.
///
/// ```
/// let sampling = buril::context::Sampling::prompt("Name a colour.").max_tokens(20);
/// # let _ = sampling;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    messages: Vec<(Cow<'static, str>, String)>,
    max_tokens: u32,
    system_prompt: Option<String>,
    temperature: Option<f64>,
}

impl Sampling {
    /// One user message; at most 100 tokens of answer.
    pub fn prompt(text: impl Into<String>) -> Self {
        Sampling {
            messages: vec![(Cow::Borrowed("user"), text.into())],
            max_tokens: 100,
            system_prompt: None,
            temperature: None,
        }
    }

    /// With a further message (`role`: `user` or `assistant`).
    pub fn message(mut self, role: &'static str, text: impl Into<String>) -> Self {
        self.messages.push((Cow::Borrowed(role), text.into()));
        self
    }

    /// The most tokens the answer may have.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// A system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// A sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    fn into_params(self) -> Value {
        let messages: Vec<Value> = self
            .messages
            .into_iter()
            .map(|(role, text)| json!({"role": role, "content": {"type": "text", "text": text}}))
            .collect();
        let mut params = Map::new();
        params.insert("messages".into(), Value::Array(messages));
        params.insert("maxTokens".into(), self.max_tokens.into());
        if let Some(prompt) = self.system_prompt {
            params.insert("systemPrompt".into(), prompt.into());
        }
        if let Some(temperature) = self.temperature {
            params.insert("temperature".into(), temperature.into());
        }
        Value::Object(params)
    }
}

/// What the user did with a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicited<T> {
    /// Filled it in and submitted it.
    Accepted(T),
    /// Said no.
    Declined,
    /// Dismissed it without choosing.
    Cancelled,
}

impl<T> Elicited<T> {
    /// The answer, if the user submitted one.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accepted(value) => Some(value),
            _ => None,
        }
    }
}

impl<T: DeserializeOwned> Elicited<T> {
    /// Reads an `elicitation/create` result (`{action, content?}`).
    pub fn from_answer(answer: &Value) -> Result<Self, ToolError> {
        match answer.get("action").and_then(Value::as_str) {
            Some("accept") => {
                let content = answer
                    .get("content")
                    .cloned()
                    .unwrap_or(Value::Object(Map::new()));
                serde_json::from_value(content)
                    .map(Elicited::Accepted)
                    .map_err(|error| {
                        ToolError::runtime(format!(
                            "the client's answer to the form does not fit what was asked: {error}"
                        ))
                    })
            }
            Some("decline") => Ok(Elicited::Declined),
            Some("cancel") => Ok(Elicited::Cancelled),
            _ => Err(ToolError::runtime(format!(
                "the client answered the form with no `action` of accept, decline or cancel: {answer}"
            ))),
        }
    }
}

/// What the client's model answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// The text of the answer (its text blocks joined).
    pub text: String,
    /// The model that answered, as the client names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, ...), if the client said.
    pub stop_reason: Option<String>,
    /// The whole `sampling/createMessage` result.
    pub raw: Value,
}

impl Sampled {
    /// Reads a `sampling/createMessage` result.
    pub fn from_answer(answer: &Value) -> Result<Self, ToolError> {
        let content = answer.get("content").ok_or_else(|| {
            ToolError::runtime(format!(
                "the client's model answered with no content: {answer}"
            ))
        })?;
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            block => vec![block],
        };
        let text = blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(Sampled {
            text,
            model: answer
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            stop_reason: answer
                .get("stopReason")
                .and_then(Value::as_str)
                .map(str::to_owned),
            raw: answer.clone(),
        })
    }
}

/// One of the client's roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its URI (`file:///…`).
    pub uri: String,
    /// Its name, if the client gave one.
    pub name: Option<String>,
}

impl Root {
    /// Reads a `roots/list` result.
    pub fn from_answer(answer: &Value) -> Result<Vec<Root>, ToolError> {
        let roots = answer
            .get("roots")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                ToolError::runtime(format!("the client listed no `roots` array: {answer}"))
            })?;
        roots
            .iter()
            .map(|root| {
                let uri = root.get("uri").and_then(Value::as_str).ok_or_else(|| {
                    ToolError::runtime(format!("a root the client listed has no `uri`: {root}"))
                })?;
                Ok(Root {
                    uri: uri.to_owned(),
                    name: root.get("name").and_then(Value::as_str).map(str::to_owned),
                })
            })
            .collect()
    }
}

/// How a caller answered a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    /// The answer: the MCP result of the request (`{action, content}`, `{role, content,
    /// model}`, `{roots}`).
    Answer(Value),
    /// The caller answers between rounds (MCP 2026-07-28's `input_required` results): the
    /// call ends here, the request goes in its result, and the call runs again with the answer.
    Later,
    /// The caller cannot answer, and says why.
    Refused(String),
}

/// Runs `wait`, which blocks (a wait for the caller's answer, file work under a lock), where it
/// is: on a worker of a multi-threaded Tokio runtime (an async tool, an inline one) it first
/// hands the worker's other tasks to the rest of the runtime (`block_in_place`), so that the
/// wait never stalls them; anywhere else it just runs.
pub(crate) fn block_here<R>(wait: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(wait)
        }
        _ => wait(),
    }
}

/// The error of a call that ends to ask between rounds (the front end answers with the
/// requests instead).
pub(crate) fn waiting_for_input(keys: &[String]) -> ToolError {
    ToolError::runtime(format!(
        "the call waits for the caller's answer to {}",
        keys.iter()
            .map(|key| format!("`{key}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The error of a request no caller can answer.
pub(crate) fn cannot_ask(tool: &str, kind: InputKind, reason: Option<&str>) -> ToolError {
    let why = reason.map_or_else(
        || "it was called by something that cannot answer".to_owned(),
        str::to_owned,
    );
    ToolError::runtime(format!(
        "`{tool}` asked its caller for input ({}), but {why}",
        kind.method()
    ))
}

/// The requested schema of an elicitation from a type's input schema: a flat object whose
/// properties are strings, numbers, integers, booleans, enums or lists of enum values; `$ref`s
/// resolved, `Option`'s `null` dropped (the field is then not required), descriptions,
/// titles, defaults and bounds kept.
pub(crate) fn elicitation_schema(schema: &Value) -> Result<Value, String> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let resolve = |value: &Value| -> Value {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.trim_start_matches("#/$defs/");
                let mut resolved = defs
                    .and_then(|defs| defs.get(name))
                    .cloned()
                    .unwrap_or(Value::Bool(true));
                // Keywords beside the `$ref` (a field's description) win.
                if let (Some(target), Some(beside)) = (resolved.as_object_mut(), value.as_object())
                {
                    for (key, keyword) in beside {
                        if key != "$ref" {
                            target.insert(key.clone(), keyword.clone());
                        }
                    }
                }
                resolved
            }
            None => value.clone(),
        }
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("it is not an object of fields".to_owned());
    }
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut fields = Map::new();
    for (name, property) in properties {
        let mut field = resolve(property);
        let Some(object) = field.as_object_mut() else {
            return Err(format!("the field `{name}` has no schema"));
        };
        // `Option<T>`: `type: [T, "null"]` or `anyOf: [T, null]`.
        if let Some(Value::Array(types)) = object.get("type") {
            let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            if let [only] = kept.as_slice() {
                object.insert("type".into(), only.clone());
            }
        }
        if let Some(Value::Array(variants)) = object.get("anyOf").cloned() {
            let kept: Vec<&Value> = variants
                .iter()
                .filter(|v| v.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if let [only] = kept.as_slice() {
                object.remove("anyOf");
                for (key, value) in resolve(only).as_object().into_iter().flatten() {
                    object.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
        if object.get("default").is_some_and(Value::is_null) {
            object.remove("default");
        }
        // A documented enum variant (schemars: `oneOf` of `const`s with descriptions) is a titled
        // option (SEP-1330: `const` and `title`).
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(options)) = object.get_mut(keyword) {
                for option in options.iter_mut().filter_map(Value::as_object_mut) {
                    if option.contains_key("const")
                        && !option.contains_key("title")
                        && let Some(description) = option.remove("description")
                    {
                        option.insert("title".into(), description);
                    }
                    if option.get("type").and_then(Value::as_str) == Some("string") {
                        option.remove("type");
                    }
                }
            }
        }
        // Elicitation knows four formats; schemars' others (`uint8`, ...) go.
        if let Some(format) = object.remove("format")
            && matches!(
                format.as_str(),
                Some("email" | "uri" | "date" | "date-time")
            )
        {
            object.insert("format".into(), format);
        }
        let kind = object
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_else(|| {
                if object.contains_key("enum") || object.contains_key("oneOf") {
                    "string"
                } else {
                    ""
                }
            });
        let kind = kind.to_owned();
        if !object.contains_key("type") && kind == "string" {
            object.insert("type".into(), "string".into());
        }
        match kind.as_str() {
            "string" | "number" | "integer" | "boolean" => {}
            "array" => {
                let items = object.get("items").map(&resolve).unwrap_or(Value::Null);
                let enumerated = items.get("enum").is_some()
                    || items.get("anyOf").is_some()
                    || items.get("oneOf").is_some();
                if !enumerated {
                    return Err(format!(
                        "the field `{name}` is a list of something other than enum values"
                    ));
                }
                object.insert("items".into(), items);
            }
            other => {
                let what = if other.is_empty() { "untyped" } else { other };
                return Err(format!(
                    "the field `{name}` is {what}: elicitation asks for strings, numbers, \
                     booleans and enums only"
                ));
            }
        }
        fields.insert(name.clone(), field);
    }
    let mut requested = Map::new();
    requested.insert("type".into(), "object".into());
    requested.insert("properties".into(), Value::Object(fields));
    if let Some(required) = schema.get("required") {
        requested.insert("required".into(), required.clone());
    }
    Ok(Value::Object(requested))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    enum Colour {
        Red,
        Green,
    }

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    #[serde(rename_all = "lowercase")]
    enum Size {
        /// Small, 1 m.
        Small,
        /// Large, 10 m.
        Large,
    }

    /// A form with a titled choice.
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Sized {
        /// How big.
        size: Size,
    }

    #[test]
    fn documented_variants_become_titled_options() {
        let request = InputRequest::elicit::<Sized>("?").unwrap();
        let size = &request.params()["requestedSchema"]["properties"]["size"];
        assert_eq!(size["type"], "string", "{size}");
        assert_eq!(
            size["oneOf"],
            json!([
                {"const": "small", "title": "Small, 1 m."},
                {"const": "large", "title": "Large, 10 m."}
            ]),
            "{size}"
        );
    }

    /// A form.
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Form {
        /// Who you are.
        name: String,
        /// How old.
        #[serde(default)]
        age: Option<u8>,
        /// Favourite.
        colour: Colour,
        /// Agreed.
        #[serde(default = "yes")]
        #[schemars(default = "yes")]
        agreed: bool,
    }

    fn yes() -> bool {
        true
    }

    #[test]
    fn a_struct_becomes_a_flat_requested_schema() {
        let request = InputRequest::elicit::<Form>("Tell me").unwrap();
        assert_eq!(request.method(), "elicitation/create");
        let schema = &request.params()["requestedSchema"];
        assert_eq!(schema["properties"]["name"]["type"], "string");
        assert_eq!(schema["properties"]["name"]["description"], "Who you are.");
        assert_eq!(schema["properties"]["age"]["type"], "integer");
        assert_eq!(schema["properties"]["age"]["maximum"], 255);
        assert_eq!(
            schema["properties"]["colour"]["enum"],
            json!(["Red", "Green"])
        );
        assert_eq!(schema["properties"]["colour"]["description"], "Favourite.");
        assert_eq!(schema["properties"]["agreed"]["default"], true);
        assert_eq!(schema["required"], json!(["name", "colour"]));
        assert!(schema.get("$defs").is_none());
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        /// Not flat.
        inner: Form,
    }

    #[test]
    fn a_nested_object_cannot_be_asked_for() {
        let error = InputRequest::elicit::<Nested>("?").unwrap_err();
        assert!(error.message().contains("`inner`"), "{}", error.message());
    }

    #[test]
    fn answers_are_read() {
        let form: Elicited<serde_json::Map<String, Value>> =
            Elicited::from_answer(&json!({"action": "accept", "content": {"a": 1}})).unwrap();
        assert_eq!(form.accepted().unwrap()["a"], 1);
        let declined: Elicited<Value> =
            Elicited::from_answer(&json!({"action": "decline"})).unwrap();
        assert_eq!(declined, Elicited::Declined);
        assert!(Elicited::<Value>::from_answer(&json!(12345)).is_err());
        let sampled = Sampled::from_answer(&json!({
            "role": "assistant", "content": {"type": "text", "text": "Paris"},
            "model": "m", "stopReason": "endTurn"
        }))
        .unwrap();
        assert_eq!(
            (sampled.text.as_str(), sampled.model.as_str()),
            ("Paris", "m")
        );
        let roots =
            Root::from_answer(&json!({"roots": [{"uri": "file:///a", "name": "A"}]})).unwrap();
        assert_eq!(roots[0].uri, "file:///a");
        assert_eq!(
            Sampling::prompt("Hi").max_tokens(50).into_params(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}], "maxTokens": 50})
        );
    }
}
