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

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use tokio::runtime::{Handle, Runtime};
use tokio::sync::Notify;

use crate::context::CancelToken;
use crate::error::{ErrorKind, ToolError};

/// A job's handle, such as `job_8f4a2c1`.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
#[schemars(transparent)]
pub struct JobId(String);

impl JobId {
    /// A handle with the given text (for looking a job up by a handle read from elsewhere).
    pub fn new(text: impl Into<String>) -> Self {
        JobId(text.into())
    }

    /// The handle's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for JobId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<JobId> for String {
    fn from(id: JobId) -> Self {
        id.0
    }
}

/// Where a job is: still running, or how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// The job is still working.
    Running,
    /// The job finished its work.
    Done,
    /// The job failed: a step it depended on returned an error.
    Errored,
    /// The job could not go on: something it needs (a tool, a resource) is missing.
    Blocked,
    /// The job stopped because it was cancelled.
    Cancelled,
}

impl JobStatus {
    /// The wire name: `running`, `done`, `errored`, `blocked` or `cancelled`.
    pub const fn as_str(self) -> &'static str {
        match self {
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Errored => "errored",
            JobStatus::Blocked => "blocked",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the job has ended (any status but `running`).
    pub const fn is_finished(self) -> bool {
        !matches!(self, JobStatus::Running)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a job ended: what its work returns.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOutcome {
    /// The final status; a work that returns [`JobStatus::Running`] is taken as done.
    pub status: JobStatus,
    /// What the job produced (`null` when nothing).
    pub output: Value,
    /// Why it did not finish its work, when it did not.
    pub error: Option<String>,
}

impl JobOutcome {
    /// The work finished and produced `output`.
    pub fn done(output: Value) -> Self {
        JobOutcome {
            status: JobStatus::Done,
            output,
            error: None,
        }
    }

    /// The work failed with `error`.
    pub fn errored(error: impl Into<String>) -> Self {
        JobOutcome {
            status: JobStatus::Errored,
            output: Value::Null,
            error: Some(error.into()),
        }
    }

    /// The work could not go on: `reason` says what is missing.
    pub fn blocked(reason: impl Into<String>) -> Self {
        JobOutcome {
            status: JobStatus::Blocked,
            output: Value::Null,
            error: Some(reason.into()),
        }
    }

    /// The work stopped because the job was cancelled.
    pub fn cancelled() -> Self {
        JobOutcome {
            status: JobStatus::Cancelled,
            output: Value::Null,
            error: Some("the job was cancelled".to_owned()),
        }
    }

    /// The same outcome with `output` (for a failed job, what it produced before failing).
    pub fn with_output(mut self, output: Value) -> Self {
        self.output = output;
        self
    }
}

/// A tool result as a job outcome: `Ok` is done; a `cancelled` error is cancelled; a
/// `not_found` or `disabled` error (a tool the work needs is missing) is blocked; any other
/// error is errored, with the error's message.
impl From<Result<Value, ToolError>> for JobOutcome {
    fn from(result: Result<Value, ToolError>) -> Self {
        match result {
            Ok(output) => JobOutcome::done(output),
            Err(error) => match error.kind() {
                ErrorKind::Cancelled => JobOutcome {
                    error: Some(error.message().to_owned()),
                    ..JobOutcome::cancelled()
                },
                ErrorKind::NotFound | ErrorKind::Disabled => JobOutcome::blocked(error.message()),
                _ => JobOutcome::errored(error.message()),
            },
        }
    }
}

/// A job as it is at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct JobSnapshot {
    /// The handle.
    pub id: JobId,
    /// What the job is, as its starter named it.
    pub label: String,
    /// Running, or how it ended.
    pub status: JobStatus,
    /// The partial output the job last reported (`null` when none).
    pub partial: Value,
    /// What the job produced, once it ended (`null` until then).
    pub output: Value,
    /// Why the job did not finish its work, when it ended otherwise.
    pub error: Option<String>,
    /// How long the job ran, or has been running, in milliseconds.
    #[serde(rename = "duration_ms", serialize_with = "as_millis")]
    #[schemars(with = "u64")]
    pub duration: Duration,
    /// How many tool calls the job made.
    pub tool_calls: u64,
    /// Whether cancellation was asked for (the job may still be stopping).
    pub cancel_requested: bool,
}

fn as_millis<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

/// What a job's work gets: its handle, its cancellation, and the means to report partial
/// output and count tool calls. Cheap to clone.
#[derive(Clone)]
pub struct JobContext {
    cell: Arc<JobCell>,
}

impl JobContext {
    /// The job's handle.
    pub fn id(&self) -> &JobId {
        &self.cell.id
    }

    /// The job's cancellation token; pass it (or a child) to the calls the job makes, so that
    /// cancelling the job cancels them.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cell.cancel
    }

    /// Whether the job was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cell.cancel.is_cancelled()
    }

    /// `Err(ToolError::cancelled())` once the job is cancelled, for use with `?`.
    pub fn check_cancelled(&self) -> Result<(), ToolError> {
        if self.is_cancelled() {
            Err(ToolError::cancelled())
        } else {
            Ok(())
        }
    }

    /// Completes once the job is cancelled; for `select!` in async work.
    pub async fn cancelled(&self) {
        self.cell.cancel.cancelled().await;
    }

    /// Replaces the job's partial output.
    pub fn set_partial(&self, partial: Value) {
        self.cell.lock().partial = partial;
    }

    /// Changes the job's partial output in place.
    pub fn update_partial(&self, update: impl FnOnce(&mut Value)) {
        update(&mut self.cell.lock().partial);
    }

    /// Counts one tool call made by the job; returns the count so far.
    pub fn count_tool_call(&self) -> u64 {
        self.cell.tool_calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// How long the job has been running.
    pub fn elapsed(&self) -> Duration {
        self.cell.started.elapsed()
    }
}

impl fmt::Debug for JobContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobContext")
            .field("id", &self.cell.id)
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

struct JobCell {
    id: JobId,
    label: String,
    started: Instant,
    cancel: CancelToken,
    tool_calls: AtomicU64,
    state: Mutex<CellState>,
    ended: Condvar,
    notify: Notify,
}

struct CellState {
    status: JobStatus,
    partial: Value,
    output: Value,
    error: Option<String>,
    duration: Option<Duration>,
}

impl JobCell {
    fn lock(&self) -> MutexGuard<'_, CellState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn snapshot(&self) -> JobSnapshot {
        let state = self.lock();
        JobSnapshot {
            id: self.id.clone(),
            label: self.label.clone(),
            status: state.status,
            partial: state.partial.clone(),
            output: state.output.clone(),
            error: state.error.clone(),
            duration: state.duration.unwrap_or_else(|| self.started.elapsed()),
            tool_calls: self.tool_calls.load(Ordering::SeqCst),
            cancel_requested: self.cancel.is_cancelled(),
        }
    }

    fn finish(&self, outcome: JobOutcome) {
        let mut state = self.lock();
        if state.status.is_finished() {
            return;
        }
        state.status = match outcome.status {
            JobStatus::Running => JobStatus::Done,
            status => status,
        };
        state.output = outcome.output;
        state.error = outcome.error;
        state.duration = Some(self.started.elapsed());
        drop(state);
        self.ended.notify_all();
        self.notify.notify_waiters();
    }

    fn is_finished(&self) -> bool {
        self.lock().status.is_finished()
    }

    async fn ended(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_finished() {
                return;
            }
            notified.await;
        }
    }
}

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
    handle: Option<Handle>,
    runtime: OnceLock<Runtime>,
    keep_finished: usize,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    cells: HashMap<JobId, Arc<JobCell>>,
    /// Handles in start order, for listing and pruning.
    order: VecDeque<JobId>,
}

impl Drop for JobsInner {
    fn drop(&mut self) {
        let table = self.table.get_mut().unwrap_or_else(|e| e.into_inner());
        for cell in table.cells.values() {
            cell.cancel.cancel();
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs::new()
    }
}

/// The process-wide counter behind every handle.
static NEXT_JOB: AtomicU64 = AtomicU64::new(1);

/// A bijection of 28-bit numbers, so that consecutive counters give unrelated-looking handles.
fn scramble(n: u64) -> u64 {
    const MASK: u64 = (1 << 28) - 1;
    let mut x = n & MASK;
    x = x.wrapping_mul(0x09E3_779B) & MASK;
    x ^= x >> 14;
    x = x.wrapping_mul(0x0B5A_D4ED) & MASK;
    x ^= x >> 13;
    x
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
                handle: None,
                runtime: OnceLock::new(),
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
            .handle = Some(handle);
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
        if let Some(handle) = &self.inner.handle {
            return handle.clone();
        }
        self.inner
            .runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("buril-job")
                    .enable_all()
                    .build()
                    .expect("the runtime for jobs could not be started")
            })
            .handle()
            .clone()
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.inner.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn insert(&self, label: String) -> Arc<JobCell> {
        let mut table = self.lock();
        let id = loop {
            let n = NEXT_JOB.fetch_add(1, Ordering::Relaxed);
            let id = JobId(format!("{}_{:07x}", self.inner.prefix, scramble(n)));
            if !table.cells.contains_key(&id) {
                break id;
            }
        };
        let cell = Arc::new(JobCell {
            id: id.clone(),
            label,
            started: Instant::now(),
            cancel: CancelToken::new(),
            tool_calls: AtomicU64::new(0),
            state: Mutex::new(CellState {
                status: JobStatus::Running,
                partial: Value::Null,
                output: Value::Null,
                error: None,
                duration: None,
            }),
            ended: Condvar::new(),
            notify: Notify::new(),
        });
        table.cells.insert(id.clone(), Arc::clone(&cell));
        table.order.push_back(id);
        self.prune(&mut table);
        cell
    }

    /// Forgets the oldest finished jobs beyond the limit.
    fn prune(&self, table: &mut Table) {
        let finished = table
            .cells
            .values()
            .filter(|cell| cell.is_finished())
            .count();
        let mut excess = finished.saturating_sub(self.inner.keep_finished);
        if excess == 0 {
            return;
        }
        let Table { cells, order } = table;
        order.retain(|id| {
            if excess > 0 && cells.get(id).is_some_and(|cell| cell.is_finished()) {
                cells.remove(id);
                excess -= 1;
                false
            } else {
                true
            }
        });
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
        let future = work(JobContext {
            cell: Arc::clone(&cell),
        });
        let handle = self.handle();
        let task = handle.spawn(future);
        let id = cell.id.clone();
        handle.spawn(async move {
            cell.finish(settle(task.await));
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
        let context = JobContext {
            cell: Arc::clone(&cell),
        };
        let handle = self.handle();
        let task = handle.spawn_blocking(move || work(context));
        let id = cell.id.clone();
        handle.spawn(async move {
            cell.finish(settle(task.await));
        });
        id
    }

    /// Records a job that ended before it started (work refused up front), so that it has a
    /// handle like any other.
    pub fn finished(&self, label: impl Into<String>, outcome: JobOutcome) -> JobId {
        let cell = self.insert(label.into());
        cell.finish(outcome);
        self.prune(&mut self.lock());
        cell.id.clone()
    }

    fn cell(&self, id: &str) -> Option<Arc<JobCell>> {
        self.lock().cells.get(id).cloned()
    }

    /// The job with handle `id`, as it is now.
    pub fn get(&self, id: &str) -> Option<JobSnapshot> {
        self.cell(id).map(|cell| cell.snapshot())
    }

    /// The job's context, for work started elsewhere that reports into this job (or for
    /// tests).
    pub fn context(&self, id: &str) -> Option<JobContext> {
        self.cell(id).map(|cell| JobContext { cell })
    }

    /// Asks the job to stop: its cancellation token is cancelled and its work, and the calls it
    /// makes with the token, see it. Returns the job as it is right after, or `None` for an
    /// unknown handle. Cancelling a finished job changes nothing.
    pub fn cancel(&self, id: &str) -> Option<JobSnapshot> {
        let cell = self.cell(id)?;
        if !cell.is_finished() {
            cell.cancel.cancel();
        }
        Some(cell.snapshot())
    }

    /// Waits, blocking the calling thread, until the job ends or `timeout` passes, and returns
    /// it as it is then (still `running` after a timeout); `None` for an unknown handle. Do
    /// not call it on an async executor's thread: use [`wait`](Self::wait) there.
    pub fn wait_for(&self, id: &str, timeout: Duration) -> Option<JobSnapshot> {
        let cell = self.cell(id)?;
        let deadline = Instant::now() + timeout;
        let mut state = cell.lock();
        while !state.status.is_finished() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = cell
                .ended
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(state);
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
        let table = self.lock();
        table
            .order
            .iter()
            .filter_map(|id| table.cells.get(id))
            .map(|cell| cell.snapshot())
            .collect()
    }

    /// Forgets a finished job and returns it; `None` when the handle is unknown or the job is
    /// still running.
    pub fn remove(&self, id: &str) -> Option<JobSnapshot> {
        let mut table = self.lock();
        let cell = table.cells.get(id)?;
        if !cell.is_finished() {
            return None;
        }
        let cell = table.cells.remove(id)?;
        table.order.retain(|kept| kept.as_str() != id);
        Some(cell.snapshot())
    }
}

impl fmt::Debug for Jobs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jobs")
            .field("prefix", &self.inner.prefix)
            .field("jobs", &self.lock().cells.len())
            .finish()
    }
}

/// The outcome of a job's task, panics included.
fn settle(joined: Result<JobOutcome, tokio::task::JoinError>) -> JobOutcome {
    match joined {
        Ok(outcome) => outcome,
        Err(error) if error.is_panic() => {
            let payload = error.into_panic();
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            JobOutcome::errored(format!("the job panicked: {detail}"))
        }
        Err(_) => JobOutcome {
            error: Some("the job was stopped before it finished".to_owned()),
            ..JobOutcome::cancelled()
        },
    }
}
