//! Running tasks: [`Tasks`] starts a call as a task in a store, keeps its lease while it runs,
//! hands it its caller's cancellation and answers, and records how it ended, once.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, watch};

use super::clock::now_ms;
use super::error::TaskError;
use super::input::{Question, TaskInput};
use super::memory::MemoryStore;
use super::record::{Lease, TaskEnd, TaskRecord};
use super::runner::{Local, Runner, Shared};
use super::settings::{TaskSettings, millis};
use super::store::{StoreError, TaskStore};
use crate::context::{CancelToken, InputSource, Progress, ProgressSink};

/// Tasks over one store: cheap to clone (clones share the store and the tasks this process
/// runs).
///
/// ```
/// use buril::tasks::{TaskEnd, TaskState, Tasks};
/// use serde_json::json;
///
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let tasks = Tasks::in_memory();
/// let start = tasks.prepare().unwrap();
/// let task = tasks
///     .launch(start, "demo_slow", None, async {
///         TaskEnd::Completed { envelope: json!({"ok": true, "data": 42}), result: None }
///     })
///     .await
///     .unwrap();
/// let done = tasks.wait(&task.id, None, None).await.unwrap();
/// assert_eq!(done.status, TaskState::Completed);
/// assert_eq!(done.envelope.unwrap()["data"], 42);
/// # });
/// ```
#[derive(Clone)]
pub struct Tasks {
    inner: Arc<Shared>,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("store", &self.inner.store.kind())
            .field("holder", &self.inner.holder)
            .field("settings", &self.inner.settings)
            .finish()
    }
}

/// A task about to start: give its call the task's options
/// ([`CallOptions::of_task`](crate::CallOptions::of_task)), then [`launch`](Tasks::launch) it.
pub struct TaskStart {
    id: String,
    cancel: CancelToken,
    input: Arc<TaskInput>,
    progress: ProgressSink,
    questions: mpsc::UnboundedReceiver<Question>,
    reports: watch::Receiver<Option<Value>>,
    detail: Option<Value>,
}

impl fmt::Debug for TaskStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskStart").field("id", &self.id).finish()
    }
}

impl TaskStart {
    /// The task's handle.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The task's cancellation: cancelled when someone cancels the task.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// Where the task's progress goes: the task keeps the latest report, which its followers
    /// read (`progress` in [`TaskSummary`](super::TaskSummary)).
    pub fn progress(&self) -> ProgressSink {
        Arc::clone(&self.progress)
    }

    /// Where the task's questions go (its followers answer them).
    #[doc(hidden)]
    pub fn task_input(&self) -> Arc<dyn InputSource> {
        Arc::clone(&self.input) as Arc<dyn InputSource>
    }

    /// Says what the task is, for people and for the starter reading it in another process:
    /// stored with the task ([`TaskRecord::detail`]).
    pub fn with_detail(mut self, detail: Value) -> Self {
        self.detail = Some(detail);
        self
    }
}

/// What a task's work said when it panicked.
fn panic_text(joined: tokio::task::JoinError) -> String {
    if !joined.is_panic() {
        return "it was stopped before it ended".to_owned();
    }
    let payload = joined.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

/// A handle no one can guess: `task_` and 32 hex digits (128 random bits).
fn new_handle() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| {
        StoreError::Unavailable(format!("no random source for the task's handle: {error}"))
    })?;
    let mut id = String::with_capacity(37);
    id.push_str("task_");
    for byte in bytes {
        id.push_str(&format!("{byte:02x}"));
    }
    Ok(id)
}

impl Tasks {
    /// Tasks over `store`, with the default [`TaskSettings`].
    pub fn new(store: impl TaskStore) -> Self {
        Self::with_settings(Arc::new(store), TaskSettings::default())
    }

    /// Tasks over a shared `store`, with `settings`.
    pub fn with_settings(store: Arc<dyn TaskStore>, settings: TaskSettings) -> Self {
        let holder = match new_handle() {
            Ok(handle) => format!("{}-{}", std::process::id(), &handle[5..13]),
            Err(_) => format!("{}", std::process::id()),
        };
        Tasks {
            inner: Arc::new(Shared {
                store,
                settings,
                holder,
                running: Mutex::new(HashMap::new()),
                listening: OnceLock::new(),
            }),
        }
    }

    /// Tasks in this process's memory.
    pub fn in_memory() -> Self {
        Self::new(MemoryStore::new())
    }

    /// The settings.
    pub fn settings(&self) -> &TaskSettings {
        &self.inner.settings
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.inner.store
    }

    /// This process, as the leases of the tasks it runs name it.
    pub fn holder(&self) -> &str {
        &self.inner.holder
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, Local>> {
        self.inner.running()
    }

    /// A new task's handle and what its call needs. Nothing is stored until
    /// [`launch`](Self::launch): a call refused before it runs (invalid input) leaves no task.
    pub fn prepare(&self) -> Result<TaskStart, StoreError> {
        Ok(self.prepare_with_id(new_handle()?))
    }

    /// [`prepare`](Self::prepare) with a handle made earlier by `prepare` (in another
    /// process: `tools call --detach` makes the handle, its detached worker runs the task).
    pub fn prepare_with_id(&self, id: String) -> TaskStart {
        let (questions_tx, questions) = mpsc::unbounded_channel();
        let (report, reports) = watch::channel(None);
        let progress: ProgressSink = Arc::new(move |progress: Progress| {
            let mut value = json!({"progress": progress.progress});
            if let Some(total) = progress.total {
                value["total"] = json!(total);
            }
            if let Some(message) = progress.message {
                value["message"] = json!(message);
            }
            report.send_replace(Some(value));
        });
        TaskStart {
            id,
            cancel: CancelToken::new(),
            input: Arc::new(TaskInput {
                questions: questions_tx,
                patience: self.inner.settings.ttl,
            }),
            progress,
            questions,
            reports,
            detail: None,
        }
    }

    /// How many tasks this process runs now.
    pub fn running_here(&self) -> usize {
        self.running().len()
    }

    /// Gives up the tasks this process still runs, when it stops before they end: each is
    /// cancelled and recorded as failed, saying `reason`, so that its followers (through any
    /// server that shares the store) learn at once why it cannot finish, not when its lease
    /// lapses. Answers how many were given up.
    pub async fn hand_back(&self, reason: &str) -> usize {
        let running: Vec<(String, CancelToken)> = self
            .running()
            .iter()
            .map(|(id, local)| (id.clone(), local.cancel.clone()))
            .collect();
        let end = TaskEnd::Failed {
            error: json!({"code": -32603, "message": reason}),
            envelope: json!({"ok": false, "type": "runtime", "error": reason}),
        };
        for (id, cancel) in &running {
            // Recorded before the work is cancelled: a task ends once, and its end is this.
            let _ = self
                .inner
                .store
                .modify(id, &|record| record.finish(&end, now_ms()))
                .await;
            cancel.cancel();
        }
        running.len()
    }

    /// Whether this process still runs the task (its end may not be recorded yet).
    pub fn is_running(&self, id: &str) -> bool {
        self.running().contains_key(id)
    }

    /// Stores the task (once this returns, anyone with the store finds it) and runs `work`
    /// (the call, started with [`CallOptions::of_task`](crate::CallOptions::of_task)) in the background, keeping the task's
    /// lease and recording how it ends. Must be called within a Tokio runtime.
    pub async fn launch<F>(
        &self,
        start: TaskStart,
        tool: &str,
        owner: Option<String>,
        work: F,
    ) -> Result<TaskRecord, StoreError>
    where
        F: Future<Output = TaskEnd> + Send + 'static,
    {
        let settings = &self.inner.settings;
        let now = now_ms();
        let mut record = TaskRecord::new(start.id.clone(), tool.to_owned(), owner, now);
        record.detail = start.detail;
        record.ttl_ms = millis(settings.ttl);
        record.poll_interval_ms = millis(settings.poll_interval).max(1);
        record.lease = Some(Lease {
            holder: self.inner.holder.clone(),
            until_ms: now.saturating_add(millis(settings.lease)),
        });
        self.inner.store.create(&record).await?;
        self.listen();
        let nudge = Arc::new(Notify::new());
        self.running().insert(
            record.id.clone(),
            Local {
                cancel: start.cancel.clone(),
                nudge: Arc::clone(&nudge),
            },
        );
        let runner = Runner {
            shared: Arc::clone(&self.inner),
            record: record.clone(),
            cancel: start.cancel,
            waiting: HashMap::new(),
            reports: start.reports,
            report_changed: false,
        };
        // The work on a task of its own, so that a panic in it fails the task (saying so)
        // rather than leaving it working until its lease lapses.
        let work = async move {
            match tokio::spawn(work).await {
                Ok(end) => end,
                Err(joined) => {
                    let message = format!("the task's work panicked: {}", panic_text(joined));
                    TaskEnd::Failed {
                        error: json!({"code": -32603, "message": message}),
                        envelope: json!({"ok": false, "type": "panic", "error": message}),
                    }
                }
            }
        };
        tokio::spawn(runner.drive(Box::pin(work), start.questions, nudge));
        Ok(record)
    }

    /// Nudges local runners when the store announces a change to their task.
    fn listen(&self) {
        let Some(mut announcements) = self.inner.store.announcements() else {
            return;
        };
        if self.inner.listening.set(()).is_err() {
            return;
        }
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            loop {
                let id = match announcements.recv().await {
                    Ok(id) => id,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                let Some(inner) = weak.upgrade() else { return };
                let running = inner.running();
                if let Some(local) = running.get(&id) {
                    local.nudge.notify_one();
                }
            }
        });
    }

    /// The task with handle `id`, as `owner` may see it. A task whose runner's lease lapsed
    /// is failed first, saying so.
    pub async fn get(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, TaskError> {
        let record = self.visible(id, owner).await?;
        let skew = millis(self.inner.settings.skew);
        if record.lease_lapsed(now_ms(), skew) {
            let failed = self
                .inner
                .store
                .modify(id, &|record| record.fail_lapsed(now_ms(), skew))
                .await?;
            return failed.ok_or_else(|| TaskError::Unknown(id.to_owned()));
        }
        Ok(record)
    }

    async fn visible(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, TaskError> {
        let mut loaded = self.inner.store.load(id).await?;
        // A task this process runs that the store lost (a Redis restarted without
        // persistence): its runner writes it again at once.
        for _ in 0..50 {
            if loaded.is_some() {
                break;
            }
            let Some(nudge) = self.running().get(id).map(|local| Arc::clone(&local.nudge)) else {
                break;
            };
            nudge.notify_one();
            tokio::time::sleep(Duration::from_millis(10)).await;
            loaded = self.inner.store.load(id).await?;
        }
        let record = loaded
            .filter(|record| record.owner.as_deref().is_none_or(|of| Some(of) == owner))
            .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
        if record.is_expired(now_ms()) {
            return Err(TaskError::Expired(id.to_owned()));
        }
        Ok(record)
    }

    /// Asks for the task to be cancelled. An ended task stays as it is (cancelling it again is
    /// not an error); a running one is cancelled by its runner, wherever it runs, and shows
    /// `cancelled` once its call has stopped.
    pub async fn cancel(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, TaskError> {
        self.visible(id, owner).await?;
        let record = self
            .inner
            .store
            .modify(id, &|record| record.request_cancel(now_ms()))
            .await?
            .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
        let local = self.running().get(id).map(|local| local.cancel.clone());
        match local {
            Some(cancel) => cancel.cancel(),
            None if !record.status.is_terminal() => self.inner.store.announce(id).await?,
            None => {}
        }
        Ok(record)
    }

    /// Gives the task the caller's answers to its questions, by key; answers to questions it
    /// is not waiting on are ignored.
    pub async fn answer(
        &self,
        id: &str,
        owner: Option<&str>,
        responses: &BTreeMap<String, Value>,
    ) -> Result<TaskRecord, TaskError> {
        self.visible(id, owner).await?;
        let mut kept = false;
        let record = self
            .inner
            .store
            .modify(id, &|record| record.answer(responses, now_ms()))
            .await?
            .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
        for key in responses.keys() {
            kept |= record.input_responses.contains_key(key);
        }
        if kept {
            let local = self.running().get(id).map(|local| Arc::clone(&local.nudge));
            match local {
                Some(nudge) => nudge.notify_one(),
                None => self.inner.store.announce(id).await?,
            }
        }
        Ok(record)
    }

    /// The tasks `owner` may see that have not expired, newest first.
    pub async fn list(&self, owner: Option<&str>) -> Result<Vec<TaskRecord>, TaskError> {
        let now = now_ms();
        let mut records: Vec<TaskRecord> = self
            .inner
            .store
            .list()
            .await?
            .into_iter()
            .filter(|record| record.owner.as_deref().is_none_or(|of| Some(of) == owner))
            .filter(|record| !record.is_expired(now))
            .collect();
        records.sort_by(|a, b| b.created_ms.cmp(&a.created_ms).then(a.id.cmp(&b.id)));
        Ok(records)
    }

    /// Waits until the task ends, or `timeout` passes (then answers it as it is), polling at
    /// the poll interval.
    pub async fn wait(
        &self,
        id: &str,
        owner: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<TaskRecord, TaskError> {
        let until = timeout.map(|timeout| tokio::time::Instant::now() + timeout);
        let poll = self
            .inner
            .settings
            .poll_interval
            .clamp(Duration::from_millis(10), Duration::from_secs(1));
        loop {
            let record = self.get(id, owner).await?;
            if record.status.is_terminal() {
                return Ok(record);
            }
            let now = tokio::time::Instant::now();
            let next = now + poll;
            match until {
                Some(until) if until <= now => return Ok(record),
                Some(until) => tokio::time::sleep_until(next.min(until)).await,
                None => tokio::time::sleep_until(next).await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::TaskState;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    fn ended(data: i64) -> TaskEnd {
        TaskEnd::Completed {
            envelope: json!({"ok": true, "data": data}),
            result: None,
        }
    }

    #[test]
    fn handles_are_unguessable_and_owners_see_only_their_tasks() {
        runtime().block_on(async {
            let tasks = Tasks::in_memory();
            let start = tasks.prepare().unwrap();
            assert_eq!(start.id().len(), 37);
            let task = tasks
                .launch(start, "demo", Some("alice".into()), async { ended(1) })
                .await
                .unwrap();
            tasks.wait(&task.id, Some("alice"), None).await.unwrap();
            for stranger in [None, Some("bob")] {
                let refused = tasks.get(&task.id, stranger).await.unwrap_err();
                assert_eq!(refused, TaskError::Unknown(task.id.clone()));
            }
            let forged = tasks.get("task_0000", Some("alice")).await.unwrap_err();
            assert!(forged.to_string().contains("no task has the handle"));
            assert_eq!(tasks.list(Some("bob")).await.unwrap(), vec![]);
            assert_eq!(tasks.list(Some("alice")).await.unwrap().len(), 1);
        });
    }

    #[test]
    fn a_cancelled_task_sees_its_cancellation_and_ends_once() {
        runtime().block_on(async {
            let tasks = Tasks::in_memory();
            let start = tasks.prepare().unwrap();
            let cancel = start.cancel_token().clone();
            let task = tasks
                .launch(start, "demo", None, async move {
                    cancel.cancelled().await;
                    TaskEnd::Cancelled {
                        envelope: json!({"ok": false, "type": "cancelled", "error": "cancelled"}),
                    }
                })
                .await
                .unwrap();
            assert_eq!(
                tasks.get(&task.id, None).await.unwrap().status,
                TaskState::Working
            );
            tasks.cancel(&task.id, None).await.unwrap();
            let done = tasks.wait(&task.id, None, None).await.unwrap();
            assert_eq!(done.status, TaskState::Cancelled);
            // Cancelling an ended task changes nothing and is no error.
            let again = tasks.cancel(&task.id, None).await.unwrap();
            assert_eq!(again.status, TaskState::Cancelled);
        });
    }

    #[test]
    fn an_expired_task_says_so() {
        runtime().block_on(async {
            let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
            let tasks = Tasks::with_settings(
                store,
                TaskSettings::new()
                    .ttl(Duration::from_millis(50))
                    .poll_interval(Duration::from_millis(10)),
            );
            let start = tasks.prepare().unwrap();
            let task = tasks
                .launch(start, "demo", Some("alice".into()), async { ended(1) })
                .await
                .unwrap();
            tasks.wait(&task.id, Some("alice"), None).await.unwrap();
            tokio::time::sleep(Duration::from_millis(80)).await;
            let expired = tasks.get(&task.id, Some("alice")).await.unwrap_err();
            assert_eq!(expired, TaskError::Expired(task.id.clone()));
            // Once swept (a listing sweeps), the store keeps its tombstone, which says the same
            // to its owner and nothing to anyone else.
            assert!(tasks.list(Some("alice")).await.unwrap().is_empty());
            let expired = tasks.get(&task.id, Some("alice")).await.unwrap_err();
            assert_eq!(expired, TaskError::Expired(task.id.clone()));
            let cancel = tasks.cancel(&task.id, Some("alice")).await.unwrap_err();
            assert_eq!(cancel, TaskError::Expired(task.id.clone()));
            let other = tasks.get(&task.id, Some("bob")).await.unwrap_err();
            assert_eq!(other, TaskError::Unknown(task.id.clone()));
        });
    }

    /// A lease is written on the runner's clock and read on the reader's: a runner whose
    /// clock is behind within the skew allowance keeps its task; one further behind than the
    /// allowance has its task failed early, which is what the allowance is sized against.
    #[test]
    fn clock_skew_within_the_allowance_fails_nothing() {
        let skew = 5_000;
        let lease = 1_000;
        let now = now_ms();
        let with_runner_behind = |behind: u64| {
            let mut record = TaskRecord::new("task_skew".into(), "demo".into(), None, now);
            // Renewed just now, on a clock `behind` ms slow.
            record.lease = Some(Lease {
                holder: "slow".into(),
                until_ms: now - behind + lease,
            });
            record
        };
        for behind in [0, 3_000, 5_900] {
            assert!(
                !with_runner_behind(behind).lease_lapsed(now, skew),
                "{behind} ms behind"
            );
        }
        assert!(with_runner_behind(6_500).lease_lapsed(now, skew));
        // A runner whose clock is ahead only keeps its task longer after it died.
        let mut ahead = with_runner_behind(0);
        ahead.lease.as_mut().unwrap().until_ms += 3_000;
        assert!(!ahead.lease_lapsed(now + lease + skew, skew));
        assert!(ahead.lease_lapsed(now + lease + skew + 3_001, skew));
    }

    #[test]
    fn a_task_of_a_runner_that_stopped_fails_after_its_lease() {
        runtime().block_on(async {
            let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
            let settings = TaskSettings::new()
                .lease(Duration::from_millis(40))
                .skew(Duration::from_millis(10));
            let tasks = Tasks::with_settings(Arc::clone(&store), settings.clone());
            // A task written by a runner that is gone: its lease is never renewed.
            let mut record = TaskRecord::new("task_gone".into(), "demo".into(), None, now_ms());
            record.ttl_ms = 60_000;
            record.lease = Some(Lease {
                holder: "gone".into(),
                until_ms: now_ms() + 40,
            });
            store.create(&record).await.unwrap();
            assert_eq!(
                tasks.get("task_gone", None).await.unwrap().status,
                TaskState::Working
            );
            tokio::time::sleep(Duration::from_millis(80)).await;
            let failed = tasks.get("task_gone", None).await.unwrap();
            assert_eq!(failed.status, TaskState::Failed);
            assert!(
                failed
                    .message
                    .unwrap()
                    .contains("stopped renewing its lease")
            );
        });
    }
}
