//! The seams a front end (the command line, the MCP server) uses beyond the public API, named
//! in one place, so that moving a front end into a crate of its own is a matter of paths:
//! `crate::frontend::X` becomes `buril::frontend::X`. Not public API: it changes with the
//! front ends.
//!
//! Besides the items below, front ends call these methods of public types, which are hidden
//! from their docs for the same reason:
//!
//! - [`Dispatcher::admit_detached`](crate::Dispatcher::admit_detached): a call admitted, and
//!   the rest of the pipeline as a future of its own (a task's, a detached CLI call's);
//! - [`Dispatcher::run_async`](crate::Dispatcher::run_async): the pipeline, answering
//!   [`Finished`] (whether the tool ran, and which tool the name resolved to);
//! - [`Dispatcher::add_layer`](crate::Dispatcher::add_layer),
//!   [`Dispatcher::add_outer_layer`](crate::Dispatcher::add_outer_layer): layers a front end
//!   adds after the host built its dispatcher (authorization, an audit log);
//! - [`CallOptions::with_task_access`](crate::CallOptions::with_task_access): the front end's
//!   tasks, as the `task_*` tools reach them, made once;
//! - [`TaskStart::task_input`](crate::tasks::TaskStart::task_input),
//!   [`TaskEnd::from_outcome`](crate::tasks::TaskEnd::from_outcome): a task's questions, and a
//!   call's outcome as a task's end.

pub use crate::compiled::OutputShape;
pub use crate::content::result_kind;
pub use crate::content::shape::ContentShape;
pub use crate::context::tasks::CallerTasks;
pub use crate::dispatch::Finished;
pub use crate::profile::check_mcp;
pub use crate::profile::mcp::annotations as mcp_annotations;
#[cfg(any(feature = "cli", feature = "studio"))]
pub use crate::profile::mcp::listing as mcp_listing;
#[cfg(any(feature = "cli", feature = "server"))]
pub use crate::result_files::{
    DEFAULT_OUTPUT_DIR, file_uri, resource_link, write as write_result_file, write_binary_blocks,
};
pub use crate::suggest::unknown_tool;
pub use crate::tasks::TaskAccess;
#[cfg(feature = "otel")]
pub use crate::telemetry::{record_operation, recording, set_parent};
