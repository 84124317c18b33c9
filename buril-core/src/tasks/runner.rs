//! The background work of the tasks one process runs: each task's lease renewed, its
//! questions put into the store and its answers taken out, a cancellation seen, and its end
//! recorded, once.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{Notify, mpsc, watch};

use super::clock::now_ms;
use super::input::Question;
use super::record::{Lease, TaskEnd, TaskRecord, TaskState};
use super::settings::{TaskSettings, millis};
use super::store::{StoreError, TaskStore};
use crate::context::CancelToken;

/// What every clone of a `Tasks`, and every runner of its tasks, share.
pub(super) struct Shared {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) settings: TaskSettings,
    /// This process, as leases name it.
    pub(super) holder: String,
    /// The tasks this process runs.
    pub(super) running: Mutex<HashMap<String, Local>>,
    /// Started on the first task, when the store announces changes.
    pub(super) listening: OnceLock<()>,
}

/// A task this process runs: how to cancel it and to nudge its runner.
pub(super) struct Local {
    pub(super) cancel: CancelToken,
    pub(super) nudge: Arc<Notify>,
}

impl Shared {
    /// The tasks this process runs.
    pub(super) fn running(&self) -> MutexGuard<'_, HashMap<String, Local>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The background work of one task this process runs.
pub(super) struct Runner {
    pub(super) shared: Arc<Shared>,
    /// The task as last read or written: recreated from this if the store lost it.
    pub(super) record: TaskRecord,
    pub(super) cancel: CancelToken,
    /// Questions asked and not yet answered, by key.
    pub(super) waiting: HashMap<String, SyncSender<Value>>,
    pub(super) reports: watch::Receiver<Option<Value>>,
    pub(super) report_changed: bool,
}

impl Runner {
    pub(super) async fn drive(
        mut self,
        mut work: std::pin::Pin<Box<dyn Future<Output = TaskEnd> + Send>>,
        mut questions: mpsc::UnboundedReceiver<Question>,
        nudge: Arc<Notify>,
    ) {
        // A store that announces cancellations and answers (Redis) is read at the pace of the
        // lease (a third of it, at most 2 s: a missed announcement is seen then); one that
        // does not (files, memory) at the check interval.
        let settings = &self.shared.settings;
        let pace = if self.shared.store.announcements().is_some() {
            (settings.lease / 3)
                .min(Duration::from_secs(2))
                .max(settings.check_interval)
        } else {
            settings.check_interval
        };
        let mut tick = tokio::time::interval(pace);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let end = loop {
            tokio::select! {
                biased;
                end = &mut work => break end,
                Some(question) = questions.recv() => {
                    let mut asked = vec![question];
                    while let Ok(question) = questions.try_recv() {
                        asked.push(question);
                    }
                    self.ask(asked).await;
                }
                _ = nudge.notified() => self.check().await,
                _ = tick.tick() => self.check().await,
                Ok(()) = self.reports.changed() => self.report_changed = true,
            }
        };
        self.finish(end).await;
        self.shared.running().remove(&self.record.id);
    }

    /// Puts questions into the task: it shows `input_required` until they are answered.
    async fn ask(&mut self, asked: Vec<Question>) {
        let requests: Vec<(String, Value)> = asked
            .iter()
            .map(|question| (question.key.clone(), question.request.clone()))
            .collect();
        let change = |record: &mut TaskRecord| {
            if record.status.is_terminal() {
                return false;
            }
            for (key, request) in &requests {
                record.input_requests.insert(key.clone(), request.clone());
            }
            record.status = TaskState::InputRequired;
            record.updated_ms = now_ms();
            true
        };
        self.apply(&change).await;
        for question in asked {
            self.waiting.insert(question.key, question.answer);
        }
    }

    /// Renews the lease, takes the answers that came, records progress, and cancels the work
    /// when someone asked (or when the task ended elsewhere: a lapsed lease failed it).
    async fn check(&mut self) {
        let settings = &self.shared.settings;
        let lease = millis(settings.lease);
        let holder = self.shared.holder.clone();
        let wanted: Vec<String> = self.waiting.keys().cloned().collect();
        let report = if self.report_changed {
            self.reports.borrow_and_update().clone()
        } else {
            None
        };
        let taken: Mutex<BTreeMap<String, Value>> = Mutex::new(BTreeMap::new());
        let change = |record: &mut TaskRecord| {
            let mut took = BTreeMap::new();
            if record.status.is_terminal() {
                *taken.lock().unwrap_or_else(PoisonError::into_inner) = took;
                return false;
            }
            let now = now_ms();
            let mut changed = false;
            let due = record.lease.as_ref().is_none_or(|kept| {
                kept.holder != holder || kept.until_ms < now.saturating_add(lease * 2 / 3)
            });
            if due {
                record.lease = Some(Lease {
                    holder: holder.clone(),
                    until_ms: now.saturating_add(lease),
                });
                changed = true;
            }
            for key in &wanted {
                if let Some(answer) = record.input_responses.remove(key) {
                    record.input_requests.remove(key);
                    took.insert(key.clone(), answer);
                    changed = true;
                }
            }
            if !took.is_empty()
                && record.input_requests.is_empty()
                && record.status == TaskState::InputRequired
            {
                record.status = TaskState::Working;
            }
            if let Some(report) = &report
                && record.progress.as_ref() != Some(report)
            {
                record.progress = Some(report.clone());
                changed = true;
            }
            if changed {
                record.updated_ms = now;
            }
            *taken.lock().unwrap_or_else(PoisonError::into_inner) = took;
            changed
        };
        if !self.apply(&change).await {
            return;
        }
        self.report_changed = false;
        let took = std::mem::take(&mut *taken.lock().unwrap_or_else(PoisonError::into_inner));
        for (key, answer) in took {
            if let Some(waiting) = self.waiting.remove(&key) {
                let _ = waiting.send(answer);
            }
        }
        if self.record.cancel_requested || self.record.status.is_terminal() {
            self.cancel.cancel();
        }
    }

    /// Applies `change` in the store (recreating the task from the last copy if the store lost
    /// it, as a Redis without persistence does when it restarts); whether the store answered.
    async fn apply(&mut self, change: &(dyn Fn(&mut TaskRecord) -> bool + Send + Sync)) -> bool {
        self.apply_or_full(change).await == Applied::Yes
    }

    /// [`apply`](Self::apply), telling a store that is full apart from one that failed.
    async fn apply_or_full(
        &mut self,
        change: &(dyn Fn(&mut TaskRecord) -> bool + Send + Sync),
    ) -> Applied {
        let store = &self.shared.store;
        match store.modify(&self.record.id, change).await {
            Ok(Some(record)) => {
                self.record = record;
                Applied::Yes
            }
            Ok(None) => {
                let mut again = self.record.clone();
                change(&mut again);
                match store.create(&again).await {
                    Ok(()) | Err(StoreError::Exists(_)) => {
                        tracing::warn!(
                            target: "buril::tasks",
                            task = %again.id,
                            store = store.kind(),
                            "the store had lost the task; it was written again"
                        );
                        self.record = again;
                        Applied::Yes
                    }
                    Err(error) => {
                        // Nobody can follow the task any more (its folder was removed, say):
                        // its work stops.
                        tracing::warn!(target: "buril::tasks", task = %again.id, %error, "the task is gone from its store and cannot be written again; cancelling its work");
                        self.cancel.cancel();
                        Applied::No
                    }
                }
            }
            Err(StoreError::Full(why)) => {
                tracing::warn!(
                    target: "buril::tasks",
                    task = %self.record.id,
                    error = %why,
                    "the task store is full"
                );
                Applied::Full(why)
            }
            Err(error) => {
                tracing::warn!(
                    target: "buril::tasks",
                    task = %self.record.id,
                    %error,
                    "cannot reach the task store; the task runs on, and its lease may lapse"
                );
                Applied::No
            }
        }
    }

    /// Records how the task ended, retrying while the store is unreachable (the result is
    /// kept here meanwhile), for up to the task's TTL. An end the store has no room for (a
    /// full disk) is recorded as a failure saying so, which is smaller, rather than not at all.
    async fn finish(&mut self, mut end: TaskEnd) {
        let give_up = tokio::time::Instant::now() + self.shared.settings.ttl;
        let mut pause = Duration::from_millis(50);
        // The last progress report goes in with the end.
        let report = self.reports.borrow().clone();
        let mut shrunk = false;
        loop {
            let change = |record: &mut TaskRecord| {
                if let Some(report) = &report
                    && !record.status.is_terminal()
                {
                    record.progress = Some(report.clone());
                }
                record.finish(&end, now_ms())
            };
            match self.apply_or_full(&change).await {
                Applied::Yes => return,
                Applied::Full(why) if !shrunk => {
                    end = unstorable(&why);
                    shrunk = true;
                    continue;
                }
                Applied::Full(_) | Applied::No => {}
            }
            if tokio::time::Instant::now() >= give_up {
                tracing::error!(
                    target: "buril::tasks",
                    task = %self.record.id,
                    "the task ended, and the store could not be reached to record it within its TTL"
                );
                return;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }
}

/// Whether the store took a change.
#[derive(Debug, PartialEq, Eq)]
enum Applied {
    Yes,
    /// It had no room for it; the words say why.
    Full(String),
    /// It failed, or the task is gone from it.
    No,
}

/// The end of a task whose end (its result, or its error) the store had no room for.
fn unstorable(why: &str) -> TaskEnd {
    let message = format!(
        "the task ended, and its result could not be stored (the task store is full): {why}"
    );
    TaskEnd::Failed {
        error: serde_json::json!({"code": -32603, "message": message}),
        envelope: serde_json::json!({"ok": false, "type": "runtime", "error": message}),
    }
}
