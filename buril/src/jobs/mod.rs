//! Jobs: work that outlives the call that started it.
//!
//! A long-running tool starts a job and answers at once with its handle; later calls poll the
//! handle ([`Jobs::get`]), wait for it ([`Jobs::wait_for`], [`Jobs::wait`]) or cancel it
//! ([`Jobs::cancel`]). A job has a [`JobStatus`] (running, then done, errored, blocked or
//! cancelled), partial output it updates while it runs, its duration and a count of the tool
//! calls it made. Cancellation is cooperative: the job's [`JobContext`] carries a
//! [`CancelToken`] that the work checks, and that it passes to the calls it makes.
//!
//! [`Jobs`] is cheap to clone (clones share the jobs) and is meant to be host state, reached by
//! tools through [`Context::state`](crate::Context::state):
//!
//! ```
//! use std::time::Duration;
//!
//! use buril::{JobOutcome, JobStatus, Jobs, ToolError};
//! use serde_json::json;
//!
//! /// Starts counting to `to` in the background and answers with the job's handle.
//! #[buril::tool(off_thread)]
//! fn count_start(
//!     /// Where to stop.
//!     to: u64,
//!     ctx: &buril::Context,
//! ) -> Result<String, ToolError> {
//!     let jobs = ctx.state::<Jobs>()?;
//!     let id = jobs.spawn_blocking("count", move |job| {
//!         for i in 0..to {
//!             if job.is_cancelled() {
//!                 return JobOutcome::cancelled();
//!             }
//!             job.set_partial(json!({"counted": i}));
//!         }
//!         JobOutcome::done(json!({"counted": to}))
//!     });
//!     Ok(id.to_string())
//! }
//!
//! let jobs = Jobs::new();
//! let dispatcher = buril::Dispatcher::builder().state(jobs.clone()).build();
//! let envelope = dispatcher.call("count_start", json!({"to": 1000}));
//! let handle = envelope["data"]["result"].as_str().unwrap();
//! assert!(handle.starts_with("job_"));
//!
//! let finished = jobs.wait_for(handle, Duration::from_secs(10)).unwrap();
//! assert_eq!(finished.status, JobStatus::Done);
//! assert_eq!(finished.output, json!({"counted": 1000}));
//! ```
//!
//! Handles look like `job_8f4a2c1`: a prefix ([`Jobs::with_prefix`]) and seven hex digits
//! that scramble a process-wide counter, so that handles are unique within the process, never
//! reused, and distinct at a glance. They are not secrets.
//!
//! [`CancelToken`]: crate::CancelToken

mod cell;
mod context;
mod id;
mod outcome;
mod runtime;
mod snapshot;
mod status;
mod table;

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::runtime::Handle;

pub use self::context::JobContext;
pub use self::id::JobId;
pub use self::outcome::JobOutcome;
pub use self::snapshot::JobSnapshot;
pub use self::status::JobStatus;

use self::cell::JobCell;
use self::outcome::outcome_of_task;
use self::runtime::JobRuntime;
use self::table::Table;

/// The jobs of a host: starts them, finds them by handle, waits for them and cancels them.
///
/// Jobs run on a Tokio runtime of their own, started on first use (two worker threads, named
/// `buril-job`), or on a runtime the host gives ([`Jobs::with_runtime`]). Finished jobs are
/// kept for polling until [`removed`](Self::remove), or until more than
/// [`keep_finished`](Self::keep_finished) finished jobs pile up, when the oldest go first.
///
/// Dropping the last clone cancels the jobs still running.
#[derive(Clone)]
pub struct Jobs {
    inner: Arc<JobsInner>,
}

struct JobsInner {
    prefix: String,
    runtime: JobRuntime,
    keep_finished: usize,
    table: Mutex<Table>,
}

impl Drop for JobsInner {
    fn drop(&mut self) {
        // The jobs are cancelled before their own runtime (a field) is shut down.
        let table = self.table.get_mut().unwrap_or_else(|e| e.into_inner());
        for cell in table.cells() {
            cell.cancel_token().cancel();
        }
    }
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs::new()
    }
}

impl Jobs {
    /// No jobs yet; handles start with `job_`.
    pub fn new() -> Self {
        Jobs::with_prefix("job")
    }

    /// No jobs yet; handles start with `prefix` and `_` (`team_8f4a2c1` for `team`).
    pub fn with_prefix(prefix: impl Into<String>) -> Self {
        Jobs {
            inner: Arc::new(JobsInner {
                prefix: prefix.into(),
                runtime: JobRuntime::default(),
                keep_finished: 256,
                table: Mutex::new(Table::default()),
            }),
        }
    }

    /// Runs jobs on the runtime behind `handle` instead of a runtime of their own.
    ///
    /// # Panics
    /// When jobs were already started or the value was cloned (configure first).
    pub fn with_runtime(mut self, handle: Handle) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("Jobs::with_runtime must be called before the jobs are shared")
            .runtime
            .use_host(handle);
        self
    }

    /// Keeps at most `count` finished jobs (default 256); older ones are forgotten.
    ///
    /// # Panics
    /// When the value was cloned (configure first).
    pub fn keep_finished(mut self, count: usize) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("Jobs::keep_finished must be called before the jobs are shared")
            .keep_finished = count;
        self
    }

    /// The prefix of this registry's handles.
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    fn handle(&self) -> Handle {
        self.inner.runtime.handle()
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.inner.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn insert(&self, label: String) -> Arc<JobCell> {
        self.lock()
            .insert(&self.inner.prefix, label, self.inner.keep_finished)
    }

    /// Starts an async job labelled `label`: `work` gets the job's context and returns the
    /// future that does the work. Returns the handle at once. A panic in the work ends the job
    /// as errored.
    pub fn spawn<F, Fut>(&self, label: impl Into<String>, work: F) -> JobId
    where
        F: FnOnce(JobContext) -> Fut,
        Fut: Future<Output = JobOutcome> + Send + 'static,
    {
        let cell = self.insert(label.into());
        let future = work(JobContext::new(Arc::clone(&cell)));
        let handle = self.handle();
        let task = handle.spawn(future);
        let id = cell.id().clone();
        handle.spawn(async move {
            cell.finish(outcome_of_task(task.await));
        });
        id
    }

    /// Starts a blocking job labelled `label` on a thread for blocking work. Returns the handle
    /// at once. A panic in the work ends the job as errored.
    pub fn spawn_blocking<F>(&self, label: impl Into<String>, work: F) -> JobId
    where
        F: FnOnce(JobContext) -> JobOutcome + Send + 'static,
    {
        let cell = self.insert(label.into());
        let context = JobContext::new(Arc::clone(&cell));
        let handle = self.handle();
        let task = handle.spawn_blocking(move || work(context));
        let id = cell.id().clone();
        handle.spawn(async move {
            cell.finish(outcome_of_task(task.await));
        });
        id
    }

    /// Records a job that ended before it started (work refused up front), so that it has a
    /// handle like any other.
    pub fn finished(&self, label: impl Into<String>, outcome: JobOutcome) -> JobId {
        let cell = self.insert(label.into());
        cell.finish(outcome);
        self.lock().prune(self.inner.keep_finished);
        cell.id().clone()
    }

    fn cell(&self, id: &str) -> Option<Arc<JobCell>> {
        self.lock().get(id)
    }

    /// The job with handle `id`, as it is now.
    pub fn get(&self, id: &str) -> Option<JobSnapshot> {
        self.cell(id).map(|cell| cell.snapshot())
    }

    /// The job's context, for work started elsewhere that reports into this job (or for
    /// tests).
    pub fn context(&self, id: &str) -> Option<JobContext> {
        self.cell(id).map(JobContext::new)
    }

    /// Asks the job to stop: its cancellation token is cancelled and its work, and the calls it
    /// makes with the token, see it. Returns the job as it is right after, or `None` for an
    /// unknown handle. Cancelling a finished job changes nothing.
    pub fn cancel(&self, id: &str) -> Option<JobSnapshot> {
        let cell = self.cell(id)?;
        if !cell.is_finished() {
            cell.cancel_token().cancel();
        }
        Some(cell.snapshot())
    }

    /// Waits, blocking the calling thread, until the job ends or `timeout` passes, and returns
    /// it as it is then (still `running` after a timeout); `None` for an unknown handle. Do
    /// not call it on an async executor's thread: use [`wait`](Self::wait) there.
    pub fn wait_for(&self, id: &str, timeout: Duration) -> Option<JobSnapshot> {
        let cell = self.cell(id)?;
        cell.wait_until(Instant::now() + timeout);
        Some(cell.snapshot())
    }

    /// Waits, without blocking the executor, until the job ends or `timeout` passes, and
    /// returns it as it is then (still `running` after a timeout); `None` for an unknown
    /// handle. Works from any executor.
    pub async fn wait(&self, id: &str, timeout: Duration) -> Option<JobSnapshot> {
        let cell = self.cell(id)?;
        // The timer belongs to the jobs' runtime, so that the caller needs none.
        let sleep = {
            let _entered = self.handle().enter();
            tokio::time::sleep(timeout)
        };
        tokio::select! {
            _ = cell.ended() => {}
            _ = sleep => {}
        }
        Some(cell.snapshot())
    }

    /// Every job kept, in start order.
    pub fn list(&self) -> Vec<JobSnapshot> {
        self.lock()
            .in_start_order()
            .map(|cell| cell.snapshot())
            .collect()
    }

    /// Forgets a finished job and returns it; `None` when the handle is unknown or the job is
    /// still running.
    pub fn remove(&self, id: &str) -> Option<JobSnapshot> {
        self.lock().remove_finished(id).map(|cell| cell.snapshot())
    }
}

impl fmt::Debug for Jobs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jobs")
            .field("prefix", &self.inner.prefix)
            .field("jobs", &self.lock().len())
            .finish()
    }
}
