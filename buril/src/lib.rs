//! Typed Rust functions as LLM tools.
//!
//! Put `#[buril::tool]` on an ordinary function and it becomes a tool: its name is the
//! function's, its description the doc comment, its input schema comes from the parameters
//! (each parameter's doc comment describes it) and its output schema from the return type. The
//! tool registers itself, with no manifest; every call's input is validated before the
//! function runs; and every call answers with one envelope.
//!
//! ```
//! use buril::{CallOptions, Dispatcher};
//! use schemars::JsonSchema;
//! use serde::Serialize;
//! use serde_json::json;
//!
//! #[derive(Serialize, JsonSchema)]
//! struct SceneInfo {
//!     path: String,
//!     open_scenes: usize,
//! }
//!
//! /// Opens the scene at `path`, replacing the open scenes unless `additive` is set.
//! #[buril::tool(read_only = false, idempotent)]
//! fn scene_open(
//!     /// Project-relative path of the scene file, e.g. `Assets/Main.scene`.
//!     path: String,
//!     /// Keep the scenes that are already open.
//!     additive: Option<bool>,
//! ) -> Result<SceneInfo, buril::ToolError> {
//!     if !path.ends_with(".scene") {
//!         return Err(buril::ToolError::invalid("`path` must name a `.scene` file"));
//!     }
//!     Ok(SceneInfo { path, open_scenes: if additive == Some(true) { 2 } else { 1 } })
//! }
//!
//! let tool = buril::registry().get("scene_open").unwrap();
//! assert_eq!(tool.family(), "scene");
//! assert_eq!(tool.input_schema()["required"], json!(["path"]));
//!
//! let dispatcher = Dispatcher::new();
//! let input = json!({"path": "Assets/Main.scene"});
//! let envelope = dispatcher.invoke("scene_open", input, CallOptions::default()).into_envelope();
//! assert_eq!(envelope["ok"], true);
//! assert_eq!(envelope["data"]["open_scenes"], 1);
//! ```
//!
//! # The attribute
//!
//! `#[buril::tool(...)]` takes these keys, all optional:
//!
//! | key | meaning |
//! | --- | --- |
//! | `name = "..."` | the tool's name, instead of the function's |
//! | `family = "..."` | the family, when it is more than the name's first segment (`agent_team`) |
//! | `aliases = ["..."]` | former names: still callable, reported as deprecated |
//! | `fixed_name = "why"` | the name was fixed by someone else (a protocol's test suite): exempt from the naming rule, not from MCP's |
//! | `off_thread` | runs on a thread that may block, not the host's main thread ([`Threading`]) |
//! | `inline` | with `off_thread`, for sync tools that return quickly and never block: runs on the calling thread or task, no hand-off to the pool |
//! | `task`, `task = "optional" \| "required" \| "handle" \| "deferred"` | calls become tasks the caller follows ([`TaskSupport`], [`tasks`]); needs `off_thread` |
//! | `dangerous` | off until the host enables it |
//! | `confirm` | each call asks the caller's user to allow it first, when the caller can ask ([`Context::confirm`]) |
//! | `undocumented_params` | allows parameters without doc comments |
//! | `title = "..."`, `read_only`, `destructive`, `idempotent`, `open_world` | MCP annotations; a flag may be written `key = false` |
//! | `icons = ["https://..."]` | MCP's `icons`, by URI |
//! | `meta = [("key", value)]` | MCP's `_meta` of the tool, each value a string, number or boolean literal |
//! | `headers(param = "Name")` | mirrors a parameter into the `Mcp-Param-Name` HTTP header (MCP's `x-mcp-header`) |
//! | `crate = path` | where to find `buril`, for crates that re-export it |
//!
//! Names follow `<family>_<verb>[_<noun>...]` in lowercase snake case, at most 64 characters;
//! the attribute rejects anything else at compile time, with a suggested fix.
//!
//! Parameters are plain `name: Type` pairs with `Type: Deserialize + JsonSchema`; `Option<T>`
//! parameters are not required. A parameter `ctx: &buril::Context` is injected and never
//! appears in the schema. A tool may instead take one [`Input<T>`] parameter whose struct is
//! the whole input.
//!
//! A tool returns `T: Serialize + JsonSchema`, `Result<T, E>`, or `()`; `T` may be
//! [`content::Rich<U>`] to answer with images, audio or resources beside its data. The error
//! `E` may be a [`ToolError`], any `std::error::Error`, or any other `Display` type
//! (`anyhow::Error`, `eyre::Report`, `Box<dyn Error + Send + Sync>`, `String`, `&str`);
//! aliases such as `anyhow::Result<T>` work too. See [`ToolError`] for how each is converted.
//! Returning `Option` is rejected: never signal failure with null. An output that is not a
//! JSON object reaches the caller as `{"result": value}`.
//!
//! # Threads
//!
//! A tool runs on the host's main thread unless it is `off_thread`: see [`MainThread`] and
//! [`Threading`].
//!
//! An `off_thread` sync tool called from async code (the MCP server,
//! [`Dispatcher::invoke_async`]) runs on a thread of the dispatcher's blocking pool (first on
//! one such thread kept awake between calls), never in the caller's task: it may block (file
//! or network IO, a runtime of its own, a long computation), and a tool that blocks slows only
//! its own calls; its timeout answers the caller while it runs. A sync tool that returns in
//! microseconds and never blocks can say `#[buril::tool(off_thread, inline)]` to run on the
//! calling task instead, saving two thread wake-ups per call; its timeout then cannot interrupt
//! it, and a result that comes after the deadline is answered as a timeout. `inline` on an
//! async tool, or without `off_thread`, does not compile.

//!
//! # What the crate exports
//!
//! At the root, what a tool author and a host use every day:
//!
//! | item | what it is |
//! | --- | --- |
//! | [`tool`] | the attribute that makes a function a tool |
//! | [`Context`] | what a tool may ask for while it runs: cancellation, progress, logs, host state, its caller |
//! | [`ToolError`] | a tool's failure, and what a refused call reports |
//! | [`ErrorKind`] | the envelope's `type`: `validation`, `runtime`, `timeout`, `cancelled`, … |
//! | [`Problem`] | one problem with an input: a JSON pointer and a message |
//! | [`Input`] | a tool's whole input as one struct |
//! | [`Outcome`] | what a call produced; [`Outcome::into_envelope`] gives the envelope |
//! | [`Dispatcher`] | runs tools by name: [`invoke`](Dispatcher::invoke) and [`invoke_async`](Dispatcher::invoke_async) |
//! | [`DispatcherBuilder`] | a host's settings: state, policy, timeouts, layers, threads, input limits |
//! | [`WeakDispatcher`] | a dispatcher handle that does not keep it alive |
//! | [`CallOptions`] | what a caller may say about one call: timeout, cancellation, progress, view, who calls |
//! | [`CancelToken`] | cancels a call; the tool sees it through its context |
//! | [`MainThread`] | who runs the host's main thread: the dispatcher, or the host's own loop |
//! | [`Threading`] | where a tool's calls run (`off_thread`, `inline`) |
//! | [`Timeouts`] | the timeouts of calls that set none |
//! | [`InputLimits`] | how large and deep an input may be |
//! | [`Policy`] | which tools may run |
//! | [`ToolView`] | the tools one caller (an agent) may see and call |
//! | [`Principal`] | who calls, as a front end authorized them |
//! | [`ToolMeta`] | what is known of a tool before it runs |
//! | [`ToolDescriptor`] | a registered tool: its metadata, schemas and function |
//! | [`Annotations`] | MCP's hints about a tool |
//! | [`TaskSupport`] | whether a tool's calls become tasks |
//! | [`SourceLocation`] | where a tool was defined |
//! | [`Registry`], [`registry`], [`try_registry`] | the tools of the binary by name: linked into it, and provided while it runs |
//! | [`ToolRef`] | a tool of a registry, linked or provided |
//! | [`Lookup`], [`RegistryError`] | a name's lookup, and why a registry could not be built |
//!
//! And in modules: [`provided`] (tools made at run time from JSON Schemas and a handler, and
//! their providers), [`content`] (images, audio, resources and `Rich<T>` results), [`context`]
//! (questions to the caller, logs, progress, host state), [`policy`] (tool patterns),
//! [`middleware`] (layers around every call), [`tasks`] (calls that outlive the call),
//! [`profile`] (tool definitions for MCP, OpenAI, Anthropic and Gemini), and behind features
//! [`cli`] (the command line), [`server`] (the MCP server), [`hub`] (other MCP servers' tools
//! served as this binary's), [`telemetry`] (`otel`) and [`testing`] (an in-memory MCP client
//! for tool authors' tests).
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `cli` | yes | [`cli`]: `list`, `describe`, `call`, `schema`, `tasks` (and with `server`, `serve` and `settings`) |
//! | `server` | yes | [`server`]: MCP over stdio and Streamable HTTP |
//! | `hub` | no | [`hub`] and [`hub_tools!`]: other MCP servers' tools served as this binary's |
//! | `oauth` | no | JWT access tokens for `serve --http` |
//! | `otel` | no | [`telemetry`]: OTLP export of spans and metrics |
//! | `redis` | no | [`tasks::RedisStore`]: tasks shared by many servers |
//! | `studio` | no | the studio's page (`serve --studio`, `tools studio`) |
//! | `testing` | no | [`testing`]: the in-memory MCP client |
//!
//! `buril` is a facade: the runtime is `buril-core` (no protocol in its dependency tree: what a
//! host that embeds the dispatcher alone builds with `default-features = false`), the MCP side
//! `buril-mcp`, the command line `buril-cli`. Depend on `buril`; the others are its layers.

#![warn(missing_docs)]

pub use buril_core::*;

/// The command line over a binary's tools ([`cli::main`]); with the `server` feature its
/// `serve` speaks MCP. See [`buril_cli`].
#[cfg(feature = "cli")]
pub mod cli {
    pub use buril_cli::*;
}

/// The MCP server. See [`buril_mcp::server`].
#[cfg(feature = "server")]
pub mod server {
    pub use buril_mcp::server::*;
}

/// Other MCP servers' tools served as this binary's. See [`buril_mcp::hub`].
#[cfg(feature = "hub")]
pub mod hub {
    pub use buril_mcp::hub::*;
}

#[cfg(feature = "hub")]
pub use buril_mcp::hub_tools;

/// OTLP export of spans and metrics. See [`buril_mcp::telemetry`].
#[cfg(feature = "otel")]
pub mod telemetry {
    pub use buril_mcp::telemetry::*;
}

/// Testing tools as a client sees them: an MCP client in memory. See [`buril_mcp::testing`].
#[cfg(feature = "testing")]
pub mod testing {
    pub use buril_mcp::testing::*;
}

/// Calls that outlive the call: tasks, their stores and the `task_*` tools. See
/// [`buril_core::tasks`]; with the `redis` feature, the Redis store too.
pub mod tasks {
    pub use buril_core::tasks::*;
    #[cfg(feature = "redis")]
    pub use buril_mcp::RedisStore;
}
