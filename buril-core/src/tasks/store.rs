//! Where tasks are kept: the [`TaskStore`] trait, its errors, and how long an expired task is
//! remembered.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::record::TaskRecord;

/// What a store's operations return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A change applied to a task inside the store's atomic read-modify-write: it returns whether
/// it changed the record (nothing is written when it did not).
pub type Change<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// Where tasks' state lives: in memory ([`MemoryStore`](super::MemoryStore), the default), in
/// files of a project folder ([`FileStore`](super::FileStore), shared by processes on one
/// machine), or in Redis (`RedisStore`, feature `redis`, shared by servers on many).
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

    /// Every task kept, in no particular order. Expired tasks may be left out (no caller sees
    /// them in a listing).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::{TaskEnd, TaskState};
    use serde_json::json;

    #[test]
    fn expired_tasks_leave_tombstones_for_an_hour() {
        let mut records = HashMap::new();
        let mut ended = TaskRecord::new("a".into(), "demo_slow".into(), None, 0);
        ended.ttl_ms = 1_000;
        ended.finish(
            &TaskEnd::Completed {
                envelope: json!({"ok": true, "data": 1}),
                result: None,
            },
            0,
        );
        records.insert("a".to_owned(), ended);
        sweep(&mut records, 999);
        assert!(records["a"].envelope.is_some(), "not expired yet");
        sweep(&mut records, 1_000);
        assert_eq!(
            records["a"].envelope, None,
            "expired: only the tombstone stays"
        );
        assert_eq!(records["a"].status, TaskState::Completed);
        sweep(&mut records, 1_000 + TOMBSTONE_MS);
        assert!(records.is_empty());
    }
}
