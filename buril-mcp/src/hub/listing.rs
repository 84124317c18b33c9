//! A server's tool list as buril's: each tool named under the server's prefix in buril's rule,
//! described with its schemas and annotations, and forwarded to the server when called; the
//! tools that cannot be are left out, saying why.

use std::collections::HashMap;
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

/// A tool of a server that implements a tool declared here (`#[tool(editor)]`): the contract
/// it says it was generated from, and whether it answers structured content.
#[derive(Debug, Clone)]
pub(crate) struct Implementation {
    /// Its `_meta["buril/tool-metadata"]`: the hash of the declaration it was generated from
    /// (`None`: written without one).
    pub(crate) hash: Option<String>,
    /// Whether it declared an output schema.
    pub(crate) structured: bool,
}

/// Splits a server's tools into those it serves as its own and those that implement a linked
/// declaration (`#[tool(editor)]`) of the same name, by name.
pub(crate) fn implementations(
    listed: Vec<rmcp::model::Tool>,
    registry: &buril_core::Registry,
) -> (Vec<rmcp::model::Tool>, HashMap<String, Implementation>) {
    let mut own = Vec::with_capacity(listed.len());
    let mut implementations = HashMap::new();
    for tool in listed {
        let declared = registry
            .get(&tool.name)
            .and_then(|found| found.as_linked())
            .is_some_and(|linked| linked.meta().editor && linked.name() == tool.name);
        if !declared {
            own.push(tool);
            continue;
        }
        let hash = tool
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get("buril/tool-metadata"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        implementations.insert(
            tool.name.to_string(),
            Implementation {
                hash,
                structured: tool.output_schema.is_some(),
            },
        );
    }
    (own, implementations)
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
