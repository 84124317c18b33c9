//! The `mcp_` tools ([`hub_tools!`](crate::hub_tools)): registering, listing and unregistering
//! external servers while the binary runs, from any front end.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::{ExternalTable, Hub, ServerStatus};
use buril_core::ToolError;
use buril_core::context::Context;

/// How long `mcp_register_external` waits for the server's first attempt to connect.
const SETTLE: Duration = Duration::from_secs(30);

fn hub(ctx: &Context) -> Result<Arc<Hub>, ToolError> {
    let dispatcher = ctx.dispatcher().ok_or_else(|| {
        ToolError::runtime(format!(
            "`{}` needs the dispatcher it was called through",
            ctx.tool_name()
        ))
    })?;
    Ok(Hub::of(dispatcher.registry()))
}

/// The servers of `mcp_list_servers`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[doc(hidden)]
pub struct Servers {
    /// Each external server, by name.
    pub servers: Vec<ServerStatus>,
}

/// What `mcp_unregister_external` did.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[doc(hidden)]
pub struct Unregistered {
    /// The server's name.
    pub name: String,
    /// How many of its tools were withdrawn.
    pub tools_withdrawn: usize,
}

/// `mcp_register_external`.
#[doc(hidden)]
pub async fn register(ctx: &Context, table: ExternalTable) -> Result<ServerStatus, ToolError> {
    let hub = hub(ctx)?;
    let external = table
        .into_external()
        .map_err(|error| ToolError::invalid(error.to_string()))?;
    let name = external.name().to_owned();
    hub.add(external)
        .map_err(|error| ToolError::invalid(error.to_string()))?;
    tokio::select! {
        () = hub.settled(SETTLE) => {}
        () = ctx.cancelled() => return Err(ToolError::cancelled()),
    }
    hub.status(&name).ok_or_else(|| {
        ToolError::runtime(format!("the server `{name}` was unregistered meanwhile"))
    })
}

/// `mcp_list_servers`.
#[doc(hidden)]
pub fn list(ctx: &Context) -> Result<Servers, ToolError> {
    Ok(Servers {
        servers: hub(ctx)?.statuses(),
    })
}

/// `mcp_unregister_external`.
#[doc(hidden)]
pub fn unregister(ctx: &Context, name: &str) -> Result<Unregistered, ToolError> {
    let hub = hub(ctx)?;
    let tools_withdrawn = hub.registry().tools_of(name).len();
    if !hub.remove(name) {
        let known: Vec<String> = hub
            .statuses()
            .into_iter()
            .map(|status| status.name)
            .collect();
        return Err(ToolError::invalid(format!(
            "no external server is named `{name}` (registered: {})",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        )));
    }
    Ok(Unregistered {
        name: name.to_owned(),
        tools_withdrawn,
    })
}

/// Registers the `mcp_register_external`, `mcp_list_servers` and `mcp_unregister_external`
/// tools in the crate that invokes it (feature `hub`): external MCP servers registered,
/// listed and unregistered while the binary runs, their tools joining its own.
/// `mcp_register_external` starts a program, so it is `dangerous`: off until the host enables
/// it.
///
/// ```
/// buril::hub_tools!();
///
/// assert!(buril::registry().get("mcp_list_servers").is_some());
/// ```
#[macro_export]
macro_rules! hub_tools {
    () => {
        /// Registers an external MCP server, a program started over stdio (`command`, `args`,
        /// `env`, `cwd`) or a Streamable HTTP endpoint (`url`, `headers`, `bearer_env`), and
        /// serves its tools as this server's, named with its prefix (its name and `_` by
        /// default). Its tools stay off unless `enable` is true or a rule enables them. Waits
        /// for the first attempt to connect and answers the server's status.
        #[$crate::__core::tool(crate = $crate::__core, dangerous, off_thread, open_world, title = "Register an external MCP server")]
        async fn mcp_register_external(
            $crate::__core::Input(server): $crate::__core::Input<$crate::hub::ExternalTable>,
            ctx: &$crate::__core::Context,
        ) -> ::core::result::Result<$crate::hub::ServerStatus, $crate::__core::ToolError> {
            $crate::hub::tools::register(ctx, server).await
        }

        /// Lists the external MCP servers whose tools this server serves: for each, its
        /// transport, status (`connecting`, `connected`, `reconnecting`, `failed`) with the
        /// failed attempts and last error, the protocol revision it speaks, how many of its
        /// tools are served and which were left out, and when they were last listed.
        #[$crate::__core::tool(crate = $crate::__core, read_only, idempotent, off_thread, title = "List the external MCP servers")]
        fn mcp_list_servers(
            ctx: &$crate::__core::Context,
        ) -> ::core::result::Result<$crate::hub::tools::Servers, $crate::__core::ToolError> {
            $crate::hub::tools::list(ctx)
        }

        /// Unregisters an external MCP server: its tools are withdrawn and a process started
        /// for it ends.
        #[$crate::__core::tool(crate = $crate::__core, destructive, off_thread, title = "Unregister an external MCP server")]
        fn mcp_unregister_external(
            /// The server's name.
            name: ::std::string::String,
            ctx: &$crate::__core::Context,
        ) -> ::core::result::Result<$crate::hub::tools::Unregistered, $crate::__core::ToolError> {
            $crate::hub::tools::unregister(ctx, &name)
        }
    };
}
