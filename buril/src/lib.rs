//! Typed Rust functions as LLM tools.
//!
//! Put `#[buril::tool]` on an ordinary function and it becomes a tool: its name is the
//! function's, its description the doc comment, its input schema comes from the parameters
//! (each parameter's doc comment describes it) and its output schema from the return type. The
//! tool registers itself, with no manifest; every call's input is validated before the
//! function runs; and every call answers with one envelope.
//!
//! ```
//! use serde::Serialize;
//! use schemars::JsonSchema;
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
//! assert_eq!(tool.input_schema()["required"], serde_json::json!(["path"]));
//!
//! let envelope = buril::call("scene_open", serde_json::json!({"path": "Assets/Main.scene"}));
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
//! | `off_thread` | may run on any thread; otherwise the tool runs on the host's main thread |
//! | `inline` | with `off_thread`, for sync tools that return quickly and never block: runs on the calling thread or task, no hand-off to the pool (see [Threads](#threads)) |
//! | `blocking` | with `off_thread`, for sync tools that may block however quick their runs have been: calls from async code always go to the blocking pool (see [Threads](#threads)) |
//! | `dangerous` | off until the host enables it |
//! | `undocumented_params` | allows parameters without doc comments |
//! | `title = "..."`, `read_only`, `destructive`, `idempotent`, `open_world` | MCP annotations; a flag may be written `key = false` |
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
//! A tool returns `T: Serialize + JsonSchema`, `Result<T, E>`, or `()`. The error `E` may be
//! a [`ToolError`], any `std::error::Error`, or any other `Display` type (`anyhow::Error`,
//! `eyre::Report`, `Box<dyn Error + Send + Sync>`, `String`, `&str`); aliases such as
//! `anyhow::Result<T>` work too. See [`ToolError`] for how each is converted. Returning `Option` is rejected: never signal failure with null. An output that is not
//! a JSON object reaches the caller as `{"result": value}`.
//!
//! # Threads
//!
//! A tool runs on the host's main thread unless it is `off_thread`: see [`MainThread`].
//!
//! An `off_thread` sync tool called from async code (the MCP server, [`Dispatcher::call_async`])
//! is handed to a thread of the dispatcher's blocking pool, so that a tool that blocks (file or
//! network IO, a long computation) never stalls the server, and its timeout can answer the caller
//! while it runs. Those runs are timed: a tool whose runs have been quick (8 in a row within
//! 100 µs) runs in the caller's task instead while it stays quick, unless its call's deadline is
//! less than a second away; a slow run there sends its calls back to the pool (see
//! [`DispatcherBuilder::learn_pace`], which turns this off). A tool that may block however
//! quick it has been says `#[buril::tool(off_thread, blocking)]` and always goes to the pool.
//! A sync tool that returns in
//! microseconds and never blocks can say
//! `#[buril::tool(off_thread, inline)]` to run on the calling task instead, saving two thread
//! wake-ups per call; its timeout then cannot interrupt it, and a result that comes after the
//! deadline is answered as a timeout. `inline` on an async tool, or without `off_thread`, does
//! not compile.

#![warn(missing_docs)]

mod args;
#[cfg(feature = "cli")]
pub mod cli;
mod compiled;
pub mod content;
mod context;
mod descriptor;
mod dispatch;
mod envelope;
mod error;
mod input_limits;
mod jobs;
pub mod metadata;
pub mod middleware;
mod output;
mod pace;
mod pattern;
pub mod pointer;
mod policy;
mod principal;
pub mod profile;
mod properties;
mod registry;
#[cfg(any(feature = "cli", feature = "server"))]
mod result_files;
mod schema;
#[cfg(feature = "server")]
pub mod server;
mod suggest;
pub mod tasks;
#[cfg(feature = "otel")]
pub mod telemetry;
mod validate;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use buril_macros::tool;

pub use crate::content::{Audio, Content, Image, Resource, ResourceLink, Rich};
pub use crate::context::{
    Asked, CancelToken, Context, Elicited, InputKind, InputRequest, InputSource, LogLevel,
    LogRecord, LogSink, Progress, ProgressSink, Root, Sampled, Sampling, State,
};
pub use crate::descriptor::{Annotations, SourceLocation, TaskSupport, ToolDescriptor, ToolMeta};
pub use crate::dispatch::{
    CallOptions, Dispatcher, DispatcherBuilder, MainThread, Timeouts, WeakDispatcher,
};
pub use crate::envelope::Outcome;
pub use crate::error::{ErrorKind, Problem, ToolError};
pub use crate::input_limits::{DEFAULT_MAX_INPUT_BYTES, DEFAULT_MAX_INPUT_DEPTH};
pub use crate::jobs::{JobContext, JobId, JobOutcome, JobSnapshot, JobStatus, Jobs};
pub use crate::pattern::{PatternError, ToolPattern, ToolView};
pub use crate::policy::Policy;
pub use crate::principal::Principal;
pub use crate::registry::{Lookup, Registry, RegistryError, registry, try_registry};

/// The whole input of a tool that takes a single input struct instead of one parameter per
/// property. The struct's field doc comments describe the properties.
///
/// ```
/// use serde::Deserialize;
/// use schemars::JsonSchema;
///
/// /// Where to move the object.
/// #[derive(Deserialize, JsonSchema)]
/// struct MoveArgs {
///     /// The object's id.
///     id: u64,
///     /// Metres along x.
///     x: f64,
/// }
///
/// /// Moves an object along x.
/// #[buril::tool]
/// fn demo_move(buril::Input(args): buril::Input<MoveArgs>) -> f64 {
///     args.x
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Input<T>(pub T);

/// Calls the tool `name` with `input` through the global [`Dispatcher`] and answers with the
/// envelope: `{"ok": true, "data": …}` or `{"ok": false, "type": …, "error": …}`.
pub fn call(name: &str, input: serde_json::Value) -> serde_json::Value {
    Dispatcher::global().call(name, input)
}
