//! MCP Apps (the extension `io.modelcontextprotocol/ui`): the interactive UIs of tools that
//! declare one (`#[tool(ui = "map.html")]`), offered to clients that declare the extension.
//!
//! Such a client sees, on each of those tools in `tools/list`, `_meta.ui` with the document's
//! `resourceUri` and the tool's `visibility` (and the older flat `_meta["ui/resourceUri"]`),
//! finds the documents in `resources/list`, and reads them through `resources/read` with the
//! MIME type `text/html;profile=mcp-app`. Other clients get the tools as before, and the plain
//! results. The documents carry their scripts and styles inline, so they declare no content
//! security policy domains: a host's default (no network) applies.

use rmcp::model::{MetaObject, ReadResourceResult, Resource, ResourceContents, Tool};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::state::ServerState;
use buril_core::ToolUi;

/// Whether the request's client declared the extension, for the session or in the request's
/// own `_meta`.
pub(crate) fn client_shows_apps(context: &RequestContext<RoleServer>) -> bool {
    context.client_capabilities().is_some_and(|capabilities| {
        capabilities
            .extensions
            .as_ref()
            .is_some_and(|extensions| extensions.contains_key(ToolUi::EXTENSION))
    })
}

/// `definition` with `_meta.ui` naming `ui`'s document (for a client that shows apps).
pub(crate) fn with_ui(definition: &Tool, ui: &ToolUi) -> Tool {
    let mut tool = definition.clone();
    let mut meta = tool.meta.take().map(|meta| meta.0).unwrap_or_default();
    meta.insert(
        "ui".to_owned(),
        json!({"resourceUri": ui.uri, "visibility": ["model", "app"]}),
    );
    // The flat key hosts of the extension's first drafts read.
    meta.insert("ui/resourceUri".to_owned(), Value::from(ui.uri.as_ref()));
    tool.meta = Some(MetaObject(meta));
    tool
}

/// The apps' documents, as `resources/list` lists them.
pub(crate) fn resources(state: &ServerState) -> Vec<Resource> {
    state
        .registry
        .iter()
        .filter_map(|tool| {
            let ui = tool.meta().ui.as_ref()?;
            Some(
                Resource::new(ui.uri.as_ref(), format!("{} (app)", tool.name()))
                    .with_description(format!(
                        "The interactive view of `{}`'s results",
                        tool.name()
                    ))
                    .with_mime_type(ToolUi::MIME_TYPE)
                    .with_size(ui.html.len() as u64),
            )
        })
        .collect()
}

/// The app whose document is at `uri`, if a tool has one there.
pub(crate) fn app_at(state: &ServerState, uri: &str) -> Option<ToolUi> {
    state.registry.iter().find_map(|tool| {
        let ui = tool.meta().ui.as_ref()?;
        (ui.uri == uri).then(|| ui.clone())
    })
}

/// The document at `uri`, as `resources/read` answers it, if a tool's app is there.
pub(crate) fn read(state: &ServerState, uri: &str) -> Option<ReadResourceResult> {
    let ui = app_at(state, uri)?;
    let mut meta = serde_json::Map::new();
    meta.insert("ui".to_owned(), json!({"prefersBorder": true}));
    Some(ReadResourceResult::new(vec![
        ResourceContents::TextResourceContents {
            uri: ui.uri.to_string(),
            mime_type: Some(ToolUi::MIME_TYPE.to_owned()),
            text: ui.html.to_string(),
            meta: Some(MetaObject(meta)),
        },
    ]))
}
