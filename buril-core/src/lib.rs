//! The core of buril: tool descriptors and the registry, the validating call pipeline
//! (`Dispatcher`), the context a tool sees, tasks with their memory and file stores, layers,
//! and the provider profiles (MCP, OpenAI, Anthropic, Gemini), with no protocol in its
//! dependency tree.
//!
//! Users depend on `buril`, which re-exports all of this at its root and adds the command line
//! and the MCP server behind features. `#[buril::tool]` expands to paths of `buril`; a crate
//! that depends on this one alone writes `#[buril_core::tool(crate = buril_core)]`.

#![warn(missing_docs)]

mod args;
mod compiled;
pub mod content;
pub mod context;
mod descriptor;
mod dispatch;
pub mod editor;
mod envelope;
mod error;
#[doc(hidden)]
pub mod frontend;
mod input_limits;
mod intern;
#[doc(hidden)]
pub mod metadata;
pub mod middleware;
mod name_hash;
mod output;
mod pattern;
#[doc(hidden)]
pub mod pointer;
pub mod policy;
mod principal;
pub mod profile;
mod properties;
pub mod provided;
mod provider;
mod registry;
mod result_files;
mod schema;
mod suggest;
pub mod tasks;
mod tool_ref;
mod validate;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use buril_macros::tool;

pub use crate::context::{CancelToken, Context};
pub use crate::descriptor::{
    Annotations, SourceLocation, TaskSupport, Threading, ToolDescriptor, ToolMeta, ToolUi,
};
pub use crate::dispatch::{
    CallOptions, Dispatcher, DispatcherBuilder, MainThread, Timeouts, WeakDispatcher,
};
pub use crate::envelope::Outcome;
pub use crate::error::{ErrorKind, Problem, ToolError};
pub use crate::input_limits::InputLimits;
pub use crate::policy::{Policy, ToolView};
pub use crate::principal::Principal;
pub use crate::registry::{Lookup, Registry, RegistryError, registry, try_registry};
pub use crate::tool_ref::ToolRef;

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
