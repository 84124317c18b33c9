//! The peer: the same tools written the way rmcp (the official Rust MCP SDK) writes them, with
//! `#[tool_router]`, `#[tool]` and `Parameters<T>`, and a harness that drives rmcp's
//! `ToolRouter::call` in-process, as rmcp's own server does for each `tools/call`.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, JsonObject, NumberOrString, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{Peer, RequestContext, RoleServer, RunningService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

use crate::work::{self, Held, HoldArgs, PlaceArgs, Placed, SpawnArgs, Spawned};

/// The rmcp server holding the tools.
#[derive(Debug, Clone)]
pub struct PeerServer {
    tool_router: ToolRouter<Self>,
}

impl Default for PeerServer {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_router(router = tool_router)]
impl PeerServer {
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Spawns an object named `name` at `x`, optionally tagged: the three-field tool.
    #[tool]
    fn bench_spawn(&self, Parameters(args): Parameters<SpawnArgs>) -> Json<Spawned> {
        Json(work::spawn(args.name, args.x, args.tag))
    }

    /// Waits `ms` milliseconds, then answers them: a call that stays in flight.
    #[tool]
    async fn bench_hold(&self, Parameters(args): Parameters<HoldArgs>) -> Json<Held> {
        tokio::time::sleep(std::time::Duration::from_millis(args.ms)).await;
        Json(Held { result: args.ms })
    }

    /// Places an object into a scene: a nested input (a struct holding a struct and a list).
    #[tool]
    fn bench_place(&self, Parameters(args): Parameters<PlaceArgs>) -> Json<Placed> {
        Json(work::place(args.scene, args.object))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for PeerServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Drives `ToolRouter::call` in-process. rmcp's router needs a `RequestContext`, which needs a
/// `Peer`; rmcp only hands one out from a running service, so the harness starts the server on
/// an in-memory pipe (never used) and keeps its peer.
pub struct Harness {
    server: PeerServer,
    peer: Peer<RoleServer>,
    _running: RunningService<RoleServer, PeerServer>,
    _runtime: tokio::runtime::Runtime,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    pub fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let server = PeerServer::new();
        let running = runtime.block_on(async {
            let (ours, _theirs) = tokio::io::duplex(4096);
            // `_theirs` is dropped: the pipe is never written; only the peer is kept.
            rmcp::service::serve_directly(server.clone(), ours, None)
        });
        let peer = running.peer().clone();
        Harness {
            server,
            peer,
            _running: running,
            _runtime: runtime,
        }
    }

    /// One `tools/call`, as rmcp's server runs it: the request context, the router's lookup,
    /// `Parameters<T>` deserialization, the call, and the `CallToolResult` (structured content
    /// and its text copy).
    #[inline]
    pub fn call(
        &self,
        name: &'static str,
        arguments: JsonObject,
    ) -> Result<CallToolResponse, ErrorData> {
        let params = CallToolRequestParams::new(name).with_arguments(arguments);
        let context = ToolCallContext::new(
            &self.server,
            params,
            RequestContext::new(NumberOrString::Number(1), self.peer.clone()),
        );
        let future = self.server.tool_router.call(context);
        // rmcp's sync tools finish on the first poll.
        poll_once(future).expect("an rmcp sync tool finishes on the first poll")
    }
}

/// Polls a future once with a no-op waker.
fn poll_once<F: Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

/// The arguments object of a JSON value.
pub fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => panic!("arguments must be an object"),
    }
}

/// rmcp's server with `n` tools of one shape (a text in, its length out), each its own route
/// with its own schema, as `n` distinct `#[tool]`s would have: the peer of buril's synthetic
/// registry ([`crate::synthetic::registry`]) for the start-up and memory benchmark.
#[derive(Debug, Clone)]
pub struct ManyServer {
    tool_router: ToolRouter<Self>,
}

/// The synthetic tools' input.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct TextArgs {
    /// The text to measure.
    pub text: String,
}

/// The synthetic tools' output.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Measured {
    /// The text's length, in bytes.
    pub length: usize,
}

impl ManyServer {
    pub fn new(n: usize) -> Self {
        let input = rmcp::handler::server::common::schema_for_type::<TextArgs>();
        let output = rmcp::handler::server::common::schema_for_output::<Measured>();
        let mut tool_router = ToolRouter::new();
        for i in 0..n {
            let tool = rmcp::model::Tool::new(
                crate::synthetic::name(i),
                "Measures a text (a synthetic tool).",
                std::sync::Arc::new((*input).clone()),
            )
            .with_raw_output_schema(std::sync::Arc::new((*output).clone()));
            tool_router.add_route(rmcp::handler::server::router::tool::ToolRoute::new(
                tool,
                |Parameters(args): Parameters<TextArgs>| -> Json<Measured> {
                    Json(Measured {
                        length: args.text.len(),
                    })
                },
            ));
        }
        ManyServer { tool_router }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ManyServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
