//! `call` answering a tool's questions on the terminal: a form field by field, a sampling
//! request as the model, roots as the current folder. Prompts go to standard error and answers
//! come from standard input; `--no-input` (or an input read from standard input) refuses.

use std::io::{self, BufRead, Write};

use serde_json::{Map, Value, json};

use buril_core::context::{Asked, Context, InputKind, InputRequest, InputSource};
use buril_core::frontend::file_uri;

/// Answers from standard input, or refuses saying why it cannot.
pub(crate) struct Terminal {
    refusal: Option<String>,
}

impl Terminal {
    /// Asks on the terminal.
    pub(crate) fn new() -> Self {
        Terminal { refusal: None }
    }

    /// Refuses every request, saying `why`.
    pub(crate) fn refusing(why: impl Into<String>) -> Self {
        Terminal {
            refusal: Some(why.into()),
        }
    }
}

impl InputSource for Terminal {
    /// A refusing terminal supports nothing: a tool that can do without an answer (a
    /// confirmation, say) goes on without asking.
    fn supports(&self, _kind: InputKind) -> bool {
        self.refusal.is_none()
    }

    fn why_not(&self, _kind: InputKind) -> String {
        self.refusal.clone().unwrap_or_default()
    }

    fn ask(&self, _ctx: &Context, _key: &str, request: &InputRequest) -> Asked {
        if let Some(why) = &self.refusal {
            return Asked::Refused(why.clone());
        }
        let stdin = io::stdin();
        let mut input = stdin.lock();
        let mut prompt = io::stderr();
        let answer = match request.kind() {
            InputKind::Roots => Ok(roots()),
            InputKind::Elicitation => form(request.params(), &mut input, &mut prompt),
            InputKind::Sampling => sampled(request.params(), &mut input, &mut prompt),
        };
        match answer {
            Ok(answer) => Asked::Answer(answer),
            Err(error) => Asked::Refused(format!("the terminal could not be read ({error})")),
        }
    }
}

/// The current folder, as the one root.
fn roots() -> Value {
    let dir = std::env::current_dir().unwrap_or_default();
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({"roots": [{"uri": file_uri(&dir), "name": name}]})
}

/// One line, without its end; `None` at the end of input.
fn line(input: &mut dyn BufRead) -> io::Result<Option<String>> {
    let mut text = String::new();
    if input.read_line(&mut text)? == 0 {
        return Ok(None);
    }
    Ok(Some(text.trim_end_matches(['\n', '\r']).to_owned()))
}

/// A form, field by field: an empty answer takes the default (or leaves an optional field
/// out); the end of input declines the form.
pub(crate) fn form(
    params: &Value,
    input: &mut dyn BufRead,
    prompt: &mut dyn Write,
) -> io::Result<Value> {
    let message = params["message"].as_str().unwrap_or_default();
    writeln!(prompt, "{message}")?;
    writeln!(
        prompt,
        "(an empty answer takes the default; end the input to decline)"
    )?;
    let schema = &params["requestedSchema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let fields = schema["properties"].as_object().unwrap_or(&empty);
    let mut content = Map::new();
    for (name, field) in fields {
        let is_required = required.contains(&name.as_str());
        // Three tries for an answer that does not fit, then the form is declined.
        let mut tries = 0;
        loop {
            write!(prompt, "{}: ", label(name, field, is_required))?;
            prompt.flush()?;
            let Some(text) = line(input)? else {
                writeln!(prompt)?;
                return Ok(json!({"action": "decline"}));
            };
            match parse(field, text.trim()) {
                Ok(Some(value)) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Ok(None) if !is_required => break,
                Ok(None) => writeln!(prompt, "  an answer is needed")?,
                Err(problem) => writeln!(prompt, "  {problem}")?,
            }
            tries += 1;
            if tries == 3 {
                return Ok(json!({"action": "decline"}));
            }
        }
    }
    Ok(json!({"action": "accept", "content": content}))
}

/// `title (what it takes, default …, required)`.
fn label(name: &str, field: &Value, required: bool) -> String {
    let title = field["title"].as_str().unwrap_or(name);
    let mut notes = vec![kind_of(field)];
    // A description's own full stop would stand before the notes' separator.
    if let Some(description) = field["description"].as_str() {
        let description = description.trim().trim_end_matches(['.', ';', ',', ':']);
        if !description.is_empty() {
            notes.insert(0, description.to_owned());
        }
    }
    if let Some(default) = field.get("default") {
        notes.push(format!("default {default}"));
    }
    if required {
        notes.push("required".to_owned());
    }
    format!("{title} ({})", notes.join("; "))
}

/// What a field takes, in words.
fn kind_of(field: &Value) -> String {
    if let Some(options) = choices(field) {
        return format!("one of {}", options.join(", "));
    }
    match field["type"].as_str() {
        Some("boolean") => "yes or no".to_owned(),
        Some("integer") => "a whole number".to_owned(),
        Some("number") => "a number".to_owned(),
        Some("array") => {
            let options = choices(&field["items"]).unwrap_or_default();
            format!("any of {}, separated by commas", options.join(", "))
        }
        _ => "text".to_owned(),
    }
}

/// The values an enum field takes (`enum`, or `oneOf`/`anyOf` of `const`s).
fn choices(field: &Value) -> Option<Vec<String>> {
    if let Some(values) = field["enum"].as_array() {
        return Some(
            values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        );
    }
    let variants = field["oneOf"]
        .as_array()
        .or_else(|| field["anyOf"].as_array())?;
    Some(
        variants
            .iter()
            .filter_map(|v| v["const"].as_str())
            .map(str::to_owned)
            .collect(),
    )
}

/// A field's answer: `None` for an empty one (the default, if any).
fn parse(field: &Value, text: &str) -> Result<Option<Value>, String> {
    if text.is_empty() {
        return Ok(field.get("default").cloned());
    }
    if let Some(options) = choices(field) {
        return if options.iter().any(|o| o == text) {
            Ok(Some(text.into()))
        } else {
            Err(format!("answer one of {}", options.join(", ")))
        };
    }
    match field["type"].as_str() {
        Some("boolean") => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Some(true.into())),
            "n" | "no" | "false" => Ok(Some(false.into())),
            _ => Err("answer yes or no".to_owned()),
        },
        Some("integer") => text
            .parse::<i64>()
            .map(|n| Some(n.into()))
            .map_err(|_| "answer a whole number".to_owned()),
        Some("number") => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(|n| Some(Value::Number(n)))
            .ok_or_else(|| "answer a number".to_owned()),
        Some("array") => {
            let options = choices(&field["items"]).unwrap_or_default();
            let picked: Vec<&str> = text
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect();
            match picked.iter().find(|p| !options.iter().any(|o| o == *p)) {
                Some(wrong) => Err(format!("`{wrong}` is not one of {}", options.join(", "))),
                None => Ok(Some(json!(picked))),
            }
        }
        _ => Ok(Some(text.into())),
    }
}

/// A sampling request shown on the terminal, answered by whoever is at it.
fn sampled(params: &Value, input: &mut dyn BufRead, prompt: &mut dyn Write) -> io::Result<Value> {
    writeln!(prompt, "The tool asks for a completion from a model:")?;
    if let Some(system) = params["systemPrompt"].as_str() {
        writeln!(prompt, "  system: {system}")?;
    }
    for message in params["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("user");
        let text = message["content"]["text"].as_str().unwrap_or_default();
        writeln!(prompt, "  {role}: {text}")?;
    }
    write!(prompt, "answer as the model: ")?;
    prompt.flush()?;
    let text = line(input)?.unwrap_or_default();
    Ok(json!({
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "terminal",
        "stopReason": "endTurn"
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_is_filled_field_by_field() {
        let params = json!({
            "message": "Who?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "age": {"type": "integer", "default": 30},
                    "colour": {"type": "string", "enum": ["red", "green"]},
                    "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
                    "ok": {"type": "boolean"}
                },
                "required": ["name", "colour"]
            }
        });
        let mut input = io::Cursor::new("Ada\n\nblue\ngreen\na, b\ny\n");
        let mut prompt = Vec::new();
        let answer = form(&params, &mut input, &mut prompt).unwrap();
        assert_eq!(
            answer,
            json!({"action": "accept", "content": {"name": "Ada", "age": 30, "colour": "green", "tags": ["a", "b"], "ok": true}})
        );
        let shown = String::from_utf8(prompt).unwrap();
        assert!(shown.contains("answer one of red, green"), "{shown}");
        let labelled = label(
            "name",
            &json!({"type": "string", "description": "The name to show."}),
            true,
        );
        assert_eq!(labelled, "name (The name to show; text; required)");
        let mut ended = io::Cursor::new("Ada\n");
        let answer = form(&params, &mut ended, &mut Vec::new()).unwrap();
        assert_eq!(answer, json!({"action": "decline"}));
    }
}
