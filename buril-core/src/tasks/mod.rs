//! Tasks: calls that answer at once with a handle, while the work goes on in the background,
//! followed by whoever holds the handle (polled, answered, cancelled) until it ends.
//!
//! A tool marked `#[buril::tool(task)]` ([`TaskSupport`](crate::TaskSupport)) becomes a task
//! where its caller can follow one: over MCP, the tasks extension
//! (`io.modelcontextprotocol/tasks`: `tasks/get`, `tasks/update`, `tasks/cancel`); on the
//! command line, `tools call --detach` and `tools tasks`. The tool itself is an ordinary
//! `async fn` (or an `off_thread` sync one) that reports progress, asks questions and watches
//! for cancellation through its [`Context`](crate::Context), as any tool does.
//!
//! A task's state lives in a [`TaskStore`]: in this process's memory ([`MemoryStore`], the
//! default), in files of a project folder ([`FileStore`], which the CLI uses, so that a handle
//! outlives the process that printed it), or in Redis (`RedisStore`, feature `redis`, which
//! lets any of many servers answer for a task another runs). [`Tasks`] runs tasks over a
//! store: it keeps each running task's lease (a task whose process died is failed once its lease
//! runs out, so none stays `working` for ever), delivers cancellations and answers to the
//! process that runs the task, and records how the task ended, once. Tasks are kept for their
//! TTL after they end; a handle is 128 random bits, and a task is visible only to its owner
//! (the session or principal that started it) when it has one.

mod access;
mod clock;
pub(crate) mod error;
mod file;
mod input;
mod memory;
pub(crate) mod record;
mod runner;
mod service;
mod settings;
mod store;
mod tools;

#[doc(hidden)]
pub use self::access::TaskAccess;
#[doc(hidden)]
pub use self::clock::{iso, now_ms};
pub use self::error::TaskError;
pub use self::file::FileStore;
pub use self::memory::MemoryStore;
pub use self::record::{Lease, TaskEnd, TaskRecord, TaskState, TaskSummary};
pub use self::service::{TaskStart, Tasks};
pub use self::settings::TaskSettings;
#[doc(hidden)]
pub use self::store::TOMBSTONE_MS;
pub use self::store::{Change, StoreError, StoreFuture, TaskStore};
#[doc(hidden)]
pub use self::tools::{task_cancel, task_get, task_wait};
