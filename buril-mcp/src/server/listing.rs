//! `tools/list`: the MCP definition of each tool, and pages in a stable order.

use rmcp::ErrorData;
use rmcp::model::{ListToolsResult, MetaObject, Tool};

use super::results::server_meta;
use super::state::{ServerState, definition_of};
use buril_core::Principal;

/// One page of the enabled tools, sorted by name. The cursor is the name of the last tool of
/// the previous page, so paging stays right when tools are enabled, disabled, provided or
/// withdrawn in between.
/// A tool the caller may not see (a layer hides it for `principal`: scopes it lacks) is left
/// out, as a disabled one is. With `apps` (a client that shows MCP Apps), a tool with an app
/// names its document in `_meta.ui`.
pub(crate) fn page(
    state: &ServerState,
    cursor: Option<&str>,
    principal: Option<&Principal>,
    apps: bool,
) -> Result<ListToolsResult, ErrorData> {
    // A cursor is a tool's name; the tool may have left since (a provider's tools withdrawn
    // between two pages), and the names after it are still the next page.
    if let Some(cursor) = cursor
        && !buril_names::is_valid_shape(cursor)
        && state
            .registry
            .get(cursor)
            .is_none_or(|tool| tool.name() != cursor)
    {
        return Err(ErrorData::invalid_params(
            format!("`{cursor}` is not a cursor this server gave out; list from the start"),
            None,
        ));
    }
    let policy = state.dispatcher.policy();
    let mut tools = Vec::new();
    let mut more = false;
    for tool in state.registry.iter() {
        if cursor.is_some_and(|after| tool.name() <= after)
            || !policy.allows(&tool)
            || !state.dispatcher.layers_show(&tool, principal)
        {
            continue;
        }
        if tools.len() == state.page_size {
            more = true;
            break;
        }
        match tool.meta().ui.as_ref() {
            Some(ui) if apps => tools.push(super::apps::with_ui(definition_of(&tool), ui)),
            _ => tools.push(definition_of(&tool).clone()),
        }
    }
    let next = more.then(|| tools.last().map(|tool: &Tool| tool.name.to_string()));
    let mut result = ListToolsResult::with_all_items(tools);
    result.next_cursor = next.flatten();
    result.meta = Some(MetaObject(server_meta(state)));
    Ok(result)
}
