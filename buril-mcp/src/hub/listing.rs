//! A server's tool list as buril's: each tool named under the server's prefix in buril's rule,
//! described with its schemas and annotations, and forwarded to the server when called; the
//! tools that cannot be are left out, saying why.

use std::sync::Arc;

use serde_json::Value;

use super::forward::{Forward, Link};
use super::names;
use buril_core::provided::ProvidedTool;
use buril_core::{Annotations, TaskSupport, ToolDescriptor, ToolMeta};

/// A server's tools as provided tools named under `prefix`, each forwarded through `link`
/// (task tools when the server `tasks`), and why each of the others is left out.
pub(crate) fn provided_tools(
    listed: Vec<rmcp::model::Tool>,
    prefix: &str,
    link: &Arc<Link>,
    tasks: bool,
) -> (Vec<ToolDescriptor>, Vec<String>) {
    let family = prefix.strip_suffix('_').map(str::to_owned);
    let mut tools = Vec::with_capacity(listed.len());
    let mut refused = Vec::new();
    for tool in listed {
        let original = tool.name.to_string();
        let name = match names::map(prefix, &original) {
            Ok(name) => name,
            Err(reason) => {
                refused.push(reason);
                continue;
            }
        };
        let mut meta = ToolMeta::new(name);
        if let Some(family) = &family {
            meta.family = family.clone().into();
        }
        meta.description = tool.description.clone().unwrap_or_default();
        meta.annotations = annotations(&tool);
        if tasks {
            meta.task = TaskSupport::Deferred;
        }
        let input = Value::Object((*tool.input_schema).clone());
        let output = tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone()));
        let mut made = ProvidedTool::new(meta, input)
            .original_name(original.clone())
            .handler(Forward {
                link: Arc::clone(link),
                original: original.clone(),
                structured: output.is_some(),
            });
        if let Some(output) = output {
            made = made.output_schema(output);
        }
        match made.build() {
            Ok(descriptor) => tools.push(descriptor),
            Err(error) => refused.push(format!("the tool `{original}`: {}", error.reason)),
        }
    }
    (tools, refused)
}

/// A server's tool annotations, and its title, as buril's.
pub(crate) fn annotations(tool: &rmcp::model::Tool) -> Annotations {
    let mut annotations = Annotations::NONE;
    annotations.title = tool
        .title
        .clone()
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
        .map(Into::into);
    if let Some(given) = &tool.annotations {
        annotations.read_only = given.read_only_hint;
        annotations.destructive = given.destructive_hint;
        annotations.idempotent = given.idempotent_hint;
        annotations.open_world = given.open_world_hint;
    }
    annotations
}
