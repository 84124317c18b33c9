//! Where tasks are kept: the [`TaskStore`] trait, its errors, and the store in memory.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::record::TaskRecord;

/// What a store's operations return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A change applied to a task inside the store's atomic read-modify-write: it returns whether
/// it changed the record (nothing is written when it did not).
pub type Change<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// Where tasks' state lives: in memory ([`MemoryStore`], the default), in files of a project
/// folder ([`FileStore`](super::FileStore), shared by processes on one machine), or in Redis
/// (`RedisStore`, feature `redis`, shared by servers on many).
///
/// A store keeps records and changes them atomically; the rules of a task's life (it ends once,
/// a lapsed lease fails it, answers only to waiting questions) are [`TaskRecord`]'s and the
/// same for every store. A store forgets a record some time after it expired (it keeps its
/// tombstone at least an hour, so that a late caller hears "expired" rather than "unknown").
pub trait TaskStore: Send + Sync + 'static {
    /// A short name for messages: `memory`, `file`, `redis`.
    fn kind(&self) -> &'static str;

    /// Adds a new task. Once this returns, a [`load`](Self::load) of its id anywhere sees it.
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()>;

    /// The task with handle `id`, as stored.
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Applies `change` to the task atomically (no other change comes between its read and its
    /// write) and answers the record after it; `None` when no task has that id.
    fn modify<'a>(&'a self, id: &'a str, change: Change<'a>)
    -> StoreFuture<'a, Option<TaskRecord>>;

    /// Every task kept, in no particular order.
    fn list(&self) -> StoreFuture<'_, Vec<TaskRecord>>;

    /// Tells the store's other users that a task changed in a way its runner must hear of
    /// promptly (cancelled, answered); `Ok` without doing anything where runners poll.
    fn announce<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        let _ = id;
        Box::pin(async { Ok(()) })
    }

    /// The announcements of other users, if this store carries them (`None`: runners poll).
    fn announcements(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        None
    }
}

/// Why a store could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The store is full: no new task fits until some expire.
    Full(String),
    /// The store could not be reached or read (Redis down, a file unreadable); the words say
    /// what failed.
    Unavailable(String),
    /// A task of that id exists already.
    Exists(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Full(why) => write!(f, "the task store is full: {why}"),
            StoreError::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
            StoreError::Exists(id) => write!(f, "a task with the handle `{id}` exists already"),
        }
    }
}

impl std::error::Error for StoreError {}

/// How long an expired task's tombstone is kept, so that its handle is reported as expired
/// rather than unknown.
pub const TOMBSTONE_MS: u64 = 60 * 60 * 1000;

/// Tasks in this process's memory: the default store. Holds at most a capacity of records
/// (10,000 unless [`with_capacity`](Self::with_capacity) says otherwise); expired ones are
/// forgotten first, and a new task that still does not fit is refused ([`StoreError::Full`]).
/// What expired is also swept as tasks are created (at most every 10 s), so
/// that the results of tasks past their TTL do not stay in memory until the store fills.
pub struct MemoryStore {
    records: Mutex<HashMap<String, TaskRecord>>,
    capacity: usize,
    /// When the records were last swept (ms since the epoch).
    swept_ms: AtomicU64,
}

/// How often, at most, creating a task sweeps a memory store of what expired: 10 s.
const SWEEP_EVERY_MS: u64 = 10_000;

impl MemoryStore {
    /// An empty store of 10,000 records.
    pub fn new() -> Self {
        Self::with_capacity(10_000)
    }

    /// An empty store of `capacity` records.
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryStore {
            records: Mutex::new(HashMap::new()),
            capacity,
            swept_ms: AtomicU64::new(0),
        }
    }

    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("tasks", &self.records().len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// Forgets what expired in `records` (tombstones past their hour), and strips what expired
/// tasks produced: the rule every store applies when it sweeps.
pub(crate) fn sweep(records: &mut HashMap<String, TaskRecord>, now_ms: u64) {
    records.retain(|_, record| match record.expires_ms() {
        Some(at) if now_ms >= at.saturating_add(TOMBSTONE_MS) => false,
        Some(at) if now_ms >= at && record.envelope.is_some() => {
            *record = record.tombstone();
            true
        }
        _ => true,
    });
}

impl TaskStore for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut records = self.records();
            if records.contains_key(&record.id) {
                return Err(StoreError::Exists(record.id.clone()));
            }
            let now = super::clock::now_ms();
            let swept = &self.swept_ms;
            let due = now >= swept.load(Ordering::Relaxed).saturating_add(SWEEP_EVERY_MS);
            if due || records.len() >= self.capacity {
                swept.store(now, Ordering::Relaxed);
                sweep(&mut records, now);
            }
            // Tombstones go before anything that still counts.
            if records.len() >= self.capacity {
                records.retain(|_, kept| kept.envelope.is_some() || !kept.status.is_terminal());
            }
            if records.len() >= self.capacity {
                return Err(StoreError::Full(format!(
                    "{} tasks are kept in memory, the most it holds; they are forgotten as \
                     their TTLs pass",
                    records.len()
                )));
            }
            records.insert(record.id.clone(), record.clone());
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move { Ok(self.records().get(id).cloned()) })
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let mut records = self.records();
            Ok(records.get_mut(id).map(|record| {
                change(record);
                record.clone()
            }))
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<TaskRecord>> {
        Box::pin(async move {
            let mut records = self.records();
            sweep(&mut records, super::clock::now_ms());
            Ok(records.values().cloned().collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::{TaskEnd, TaskState};
    use serde_json::json;

    fn record(id: &str, now: u64) -> TaskRecord {
        let mut record = TaskRecord::new(id.into(), "demo_slow".into(), None, now);
        record.ttl_ms = 1_000;
        record
    }

    fn block<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_full_store_refuses_new_tasks_and_says_so() {
        let store = MemoryStore::with_capacity(2);
        let now = crate::tasks::clock::now_ms();
        block(async {
            store.create(&record("a", now)).await.unwrap();
            store.create(&record("b", now)).await.unwrap();
            let refused = store.create(&record("c", now)).await.unwrap_err();
            assert!(matches!(refused, StoreError::Full(_)), "{refused}");
            assert!(refused.to_string().contains("full"));
            assert_eq!(
                store.create(&record("a", now)).await.unwrap_err(),
                StoreError::Exists("a".into())
            );
        });
    }

    #[test]
    fn expired_tasks_make_room_and_leave_tombstones_for_an_hour() {
        let mut records = HashMap::new();
        let mut ended = record("a", 0);
        ended.finish(
            &TaskEnd::Completed {
                envelope: json!({"ok": true, "data": 1}),
                result: None,
            },
            0,
        );
        records.insert("a".to_owned(), ended);
        sweep(&mut records, 1_000);
        assert_eq!(
            records["a"].envelope, None,
            "expired: only the tombstone stays"
        );
        assert_eq!(records["a"].status, TaskState::Completed);
        sweep(&mut records, 1_000 + TOMBSTONE_MS);
        assert!(records.is_empty());
    }

    #[test]
    fn creating_tasks_sweeps_expired_results_long_before_the_store_fills() {
        let store = MemoryStore::new();
        let now = crate::tasks::clock::now_ms();
        block(async {
            // Ended long ago: past its TTL.
            let mut old = record("old", now - 60_000);
            old.finish(
                &TaskEnd::Completed {
                    envelope: json!({"ok": true, "data": "a large result"}),
                    result: None,
                },
                now - 60_000,
            );
            store.create(&old).await.unwrap();
            assert!(store.load("old").await.unwrap().unwrap().envelope.is_some());
            // Ten seconds after the last sweep, the next creation sweeps.
            store
                .swept_ms
                .store(now - SWEEP_EVERY_MS, Ordering::Relaxed);
            store.create(&record("new", now)).await.unwrap();
            let kept = store.load("old").await.unwrap().expect("its tombstone");
            assert_eq!(
                kept.envelope, None,
                "the result of an expired task is dropped"
            );
            assert_eq!(kept.status, TaskState::Completed);
        });
    }
}
