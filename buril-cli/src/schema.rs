//! `schema`: the tool definitions exactly as a provider takes them.

use std::io::{self, Write};
use std::process::ExitCode;

use serde_json::Value;

use super::messages::{unknown_tool, usage};
use super::pipe::unless_closed;
use buril_core::Registry;
use buril_core::profile::{self, Profile};

/// What `schema` prints.
pub(crate) struct SchemaForm {
    pub(crate) profile: Profile,
    pub(crate) chat_completions: bool,
}

impl SchemaForm {
    fn shape(&self, definition: Value) -> Value {
        if self.chat_completions {
            profile::chat_completions_tool(&definition)
        } else {
            definition
        }
    }
}

pub(crate) fn schema(
    registry: &Registry,
    form: SchemaForm,
    name: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    if form.chat_completions && form.profile != Profile::OpenAi {
        return usage(err, "--chat-completions applies to --profile openai only");
    }
    let (definitions, errors) = match name {
        Some(name) => {
            let Some(tool) = registry.get(name) else {
                writeln!(err, "{}", unknown_tool(registry, name))?;
                return Ok(ExitCode::from(1));
            };
            match profile::render(form.profile, &tool) {
                Ok(definition) => (vec![definition], Vec::new()),
                Err(error) => (Vec::new(), vec![error]),
            }
        }
        None => profile::render_all(form.profile, registry),
    };
    for definition in &definitions {
        for note in &definition.notes {
            writeln!(err, "note: `{}`: {note}", definition.tool)?;
        }
    }
    let values: Vec<Value> = definitions
        .into_iter()
        .map(|d| form.shape(d.value))
        .collect();
    let printed = match (name, values.as_slice()) {
        (Some(_), [one]) => Some(one.clone()),
        (Some(_), _) => None,
        (None, _) => Some(Value::Array(values)),
    };
    if let Some(printed) = printed {
        // Whether some tool could not be given is known already, and still reported.
        unless_closed(writeln!(out, "{}", serde_json::to_string_pretty(&printed)?))?;
    }
    if errors.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        err,
        "{} {} cannot be given to {}:",
        errors.len(),
        if errors.len() == 1 { "tool" } else { "tools" },
        form.profile
    )?;
    for error in &errors {
        writeln!(
            err,
            "  `{}` at {}: {}",
            error.tool, error.pointer, error.reason
        )?;
    }
    Ok(ExitCode::from(1))
}
