//! One job's shared state: what its work reports into and what polls, waits and cancels read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Notify;

use super::id::JobId;
use super::outcome::JobOutcome;
use super::snapshot::JobSnapshot;
use super::status::JobStatus;
use crate::context::CancelToken;

/// One job, shared by its work (through its context), its table and its waiters.
pub(super) struct JobCell {
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
    /// A job labelled `label` with handle `id`, running from now.
    pub(super) fn new(id: JobId, label: String) -> Self {
        JobCell {
            id,
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
        }
    }

    fn lock(&self) -> MutexGuard<'_, CellState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn id(&self) -> &JobId {
        &self.id
    }

    pub(super) fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// Changes the partial output in place.
    pub(super) fn update_partial(&self, update: impl FnOnce(&mut Value)) {
        update(&mut self.lock().partial);
    }

    /// Counts one tool call; returns the count so far.
    pub(super) fn count_tool_call(&self) -> u64 {
        self.tool_calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// How long since the job started.
    pub(super) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub(super) fn snapshot(&self) -> JobSnapshot {
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

    /// Ends the job with `outcome` and wakes its waiters; a job already ended stays as it was.
    pub(super) fn finish(&self, outcome: JobOutcome) {
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

    pub(super) fn is_finished(&self) -> bool {
        self.lock().status.is_finished()
    }

    /// Blocks the calling thread until the job ends or `deadline` passes.
    pub(super) fn wait_until(&self, deadline: Instant) {
        let mut state = self.lock();
        while !state.status.is_finished() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = self
                .ended
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Completes once the job has ended.
    pub(super) async fn ended(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_finished() {
                return;
            }
            notified.await;
        }
    }
}
