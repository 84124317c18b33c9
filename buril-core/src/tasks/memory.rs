//! The store in this process's memory: tasks that have not expired as they are, and those that
//! expired as small tombstones of their own.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::clock::now_ms;
use super::record::{TaskRecord, TaskState};
use super::store::{Change, StoreError, StoreFuture, TOMBSTONE_MS, TaskStore};

/// Tasks in this process's memory: the default store.
///
/// It holds at most a capacity of tasks that have not expired (10,000 unless
/// [`with_capacity`](Self::with_capacity) says otherwise) and refuses a new task beyond that
/// ([`StoreError::Full`]). A task that expired gives up what it produced and is kept for an hour
/// ([`TOMBSTONE_MS`]) as a tombstone of a few dozen bytes (its handle, tool, owner, status and
/// times), so that a late caller hears "expired" rather than "unknown"; at most as many
/// tombstones as the capacity are kept, the oldest forgotten first. What expired is swept as
/// tasks are created (at most every 10 s) and when the tasks are listed, so a server running a
/// steady stream of tasks holds a steady amount of memory.
pub struct MemoryStore {
    kept: Mutex<Kept>,
    capacity: usize,
    /// When the tasks were last swept (ms since the epoch).
    swept_ms: AtomicU64,
}

/// How often, at most, creating a task sweeps a memory store of what expired: 10 s.
const SWEEP_EVERY_MS: u64 = 10_000;

#[derive(Default)]
struct Kept {
    /// The tasks that have not expired, by handle.
    live: HashMap<String, TaskRecord>,
    /// The tasks that expired less than an hour ago, by handle.
    expired: HashMap<Box<str>, Tombstone>,
    /// The tool names of the tombstones, each kept once.
    tools: HashSet<Arc<str>>,
}

/// What an expired task leaves: enough to tell its owner that it expired.
struct Tombstone {
    tool: Arc<str>,
    owner: Option<Box<str>>,
    status: TaskState,
    created_ms: u64,
    finished_ms: u64,
    ttl_ms: u64,
}

impl Tombstone {
    fn expires_ms(&self) -> u64 {
        self.finished_ms
            .max(self.created_ms)
            .saturating_add(self.ttl_ms)
    }

    /// The task as [`TaskRecord::tombstone`] has it.
    fn record(&self, id: &str) -> TaskRecord {
        let mut record = TaskRecord::new(
            id.to_owned(),
            self.tool.to_string(),
            self.owner.as_deref().map(str::to_owned),
            self.created_ms,
        );
        record.status = self.status;
        record.finished_ms = Some(self.finished_ms);
        record.updated_ms = self.finished_ms;
        record.ttl_ms = self.ttl_ms;
        record
    }
}

impl Kept {
    /// Moves what expired into tombstones, forgets tombstones past their hour, and the oldest
    /// beyond `capacity`.
    fn sweep(&mut self, now_ms: u64, capacity: usize) {
        let Kept {
            live,
            expired,
            tools,
        } = self;
        for (id, record) in live.extract_if(|_, record| record.is_expired(now_ms)) {
            let tool = match tools.get(record.tool.as_str()) {
                Some(tool) => Arc::clone(tool),
                None => {
                    let tool: Arc<str> = Arc::from(record.tool.as_str());
                    tools.insert(Arc::clone(&tool));
                    tool
                }
            };
            let tombstone = Tombstone {
                tool,
                owner: record.owner.map(String::into_boxed_str),
                status: record.status,
                created_ms: record.created_ms,
                finished_ms: record.finished_ms.unwrap_or(record.updated_ms),
                ttl_ms: record.ttl_ms,
            };
            expired.insert(id.into_boxed_str(), tombstone);
        }
        expired.retain(|_, tombstone| now_ms < tombstone.expires_ms().saturating_add(TOMBSTONE_MS));
        if expired.len() > capacity {
            // Forget the oldest: those that expired before the one at the capacity's rank from
            // the newest.
            let mut times: Vec<u64> = expired.values().map(Tombstone::expires_ms).collect();
            let rank = times.len() - capacity;
            let (_, cut, _) = times.select_nth_unstable(rank);
            let cut = *cut;
            expired.retain(|_, tombstone| tombstone.expires_ms() >= cut);
            let mut over = expired.len().saturating_sub(capacity);
            expired.retain(|_, tombstone| {
                let forget = over > 0 && tombstone.expires_ms() == cut;
                over -= usize::from(forget);
                !forget
            });
        }
        tools.retain(|tool| Arc::strong_count(tool) > 1);
    }

    fn load(&self, id: &str) -> Option<TaskRecord> {
        match self.live.get(id) {
            Some(record) => Some(record.clone()),
            None => self.expired.get(id).map(|tombstone| tombstone.record(id)),
        }
    }
}

impl MemoryStore {
    /// An empty store of 10,000 tasks.
    pub fn new() -> Self {
        Self::with_capacity(10_000)
    }

    /// An empty store of `capacity` tasks.
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryStore {
            kept: Mutex::new(Kept::default()),
            capacity,
            swept_ms: AtomicU64::new(0),
        }
    }

    fn kept(&self) -> MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept = self.kept();
        f.debug_struct("MemoryStore")
            .field("tasks", &kept.live.len())
            .field("expired", &kept.expired.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl TaskStore for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut kept = self.kept();
            if kept.live.contains_key(&record.id) || kept.expired.contains_key(record.id.as_str()) {
                return Err(StoreError::Exists(record.id.clone()));
            }
            let now = now_ms();
            let swept = &self.swept_ms;
            let due = now >= swept.load(Ordering::Relaxed).saturating_add(SWEEP_EVERY_MS);
            if due || kept.live.len() >= self.capacity {
                swept.store(now, Ordering::Relaxed);
                kept.sweep(now, self.capacity);
            }
            if kept.live.len() >= self.capacity {
                return Err(StoreError::Full(format!(
                    "{} tasks are kept in memory, the most it holds; they are forgotten as \
                     their TTLs pass",
                    kept.live.len()
                )));
            }
            kept.live.insert(record.id.clone(), record.clone());
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move { Ok(self.kept().load(id)) })
    }

    /// An expired task does not change: `change` sees its tombstone, and what it does is not
    /// kept (the rules of [`TaskRecord`] change nothing of a task that ended).
    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let mut kept = self.kept();
            if let Some(record) = kept.live.get_mut(id) {
                change(record);
                return Ok(Some(record.clone()));
            }
            Ok(kept.load(id).map(|mut record| {
                change(&mut record);
                record
            }))
        })
    }

    /// The tasks that have not expired.
    fn list(&self) -> StoreFuture<'_, Vec<TaskRecord>> {
        Box::pin(async move {
            let mut kept = self.kept();
            kept.sweep(now_ms(), self.capacity);
            Ok(kept.live.values().cloned().collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::TaskEnd;
    use serde_json::json;
    use std::future::Future;

    fn record(id: &str, now: u64) -> TaskRecord {
        let mut record = TaskRecord::new(id.into(), "demo_slow".into(), None, now);
        record.ttl_ms = 1_000;
        record
    }

    /// A task of `owner` that ended at `at` with a large result.
    fn ended(id: &str, owner: Option<&str>, at: u64) -> TaskRecord {
        let mut record = record(id, at);
        record.owner = owner.map(str::to_owned);
        record.finish(
            &TaskEnd::Completed {
                envelope: json!({"ok": true, "data": "a large result"}),
                result: None,
            },
            at,
        );
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
        let now = now_ms();
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
    fn an_expired_task_leaves_a_tombstone_that_takes_no_room() {
        let store = MemoryStore::with_capacity(2);
        let now = now_ms();
        block(async {
            store
                .create(&ended("old", Some("session-1"), now - 60_000))
                .await
                .unwrap();
            store.create(&record("b", now)).await.unwrap();
            // Full of tasks, one of them expired: it makes room.
            store.create(&record("c", now)).await.unwrap();
            let old = store.load("old").await.unwrap().expect("its tombstone");
            assert!(old.is_expired(now));
            assert_eq!(old.envelope, None, "what it produced is gone");
            assert_eq!(old.status, TaskState::Completed);
            assert_eq!(old.owner.as_deref(), Some("session-1"));
            assert_eq!(old.tool, "demo_slow");
            assert_eq!(old.created_ms, now - 60_000);
            assert_eq!(
                store.create(&record("old", now)).await.unwrap_err(),
                StoreError::Exists("old".into()),
                "an expired handle is not given again"
            );
            let cancelled = store
                .modify("old", &|record| record.request_cancel(now))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                cancelled.status,
                TaskState::Completed,
                "an expired task stays"
            );
            let listed = store.list().await.unwrap();
            let mut ids: Vec<_> = listed.iter().map(|record| record.id.as_str()).collect();
            ids.sort_unstable();
            assert_eq!(ids, ["b", "c"], "a listing leaves out what expired");
            assert_eq!(
                format!("{store:?}"),
                "MemoryStore { tasks: 2, expired: 1, capacity: 2 }"
            );
        });
    }

    #[test]
    fn tombstones_are_forgotten_after_an_hour_and_beyond_the_capacity() {
        let mut kept = Kept::default();
        for (id, at) in [("a", 0), ("b", 10), ("c", 20), ("d", 20), ("e", 30)] {
            kept.live.insert(id.to_owned(), ended(id, None, at));
        }
        kept.sweep(1_030, 3);
        assert!(kept.live.is_empty());
        let mut ids: Vec<_> = kept.expired.keys().map(|id| id.to_string()).collect();
        ids.sort_unstable();
        assert_eq!(ids.len(), 3, "{ids:?}");
        assert_eq!(ids[2], "e", "the newest is kept");
        assert!(
            !ids.contains(&"a".to_owned()) && !ids.contains(&"b".to_owned()),
            "the oldest are forgotten first: {ids:?}"
        );
        assert_eq!(kept.tools.len(), 1, "one tool name for every tombstone");
        kept.sweep(1_025 + TOMBSTONE_MS, 3);
        assert_eq!(kept.expired.len(), 1, "only the task that expired last");
        assert!(kept.load("e").is_some());
        assert!(
            kept.load("c").is_none(),
            "an hour after it expired: unknown"
        );
        kept.sweep(1_030 + TOMBSTONE_MS, 3);
        assert!(kept.expired.is_empty());
        assert!(kept.tools.is_empty(), "tool names go with their tombstones");
    }

    #[test]
    fn creating_tasks_sweeps_expired_results_long_before_the_store_fills() {
        let store = MemoryStore::new();
        let now = now_ms();
        block(async {
            store
                .create(&ended("old", None, now - 60_000))
                .await
                .unwrap();
            assert!(store.load("old").await.unwrap().unwrap().envelope.is_some());
            // Ten seconds after the last sweep, the next creation sweeps.
            store
                .swept_ms
                .store(now - SWEEP_EVERY_MS, Ordering::Relaxed);
            store.create(&record("new", now)).await.unwrap();
            let kept = store.kept();
            assert!(!kept.live.contains_key("old"), "its result is dropped");
            assert!(kept.expired.contains_key("old"), "its tombstone stays");
        });
    }

    #[test]
    fn a_tombstone_is_small() {
        // Handle and owner apart, an expired task costs this much for its hour.
        assert!(size_of::<Tombstone>() <= 64, "{}", size_of::<Tombstone>());
    }
}
