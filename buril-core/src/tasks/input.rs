//! A task's questions: the tool asks through its context, the question goes into the task
//! (`input_required`, with its request under its key), and the tool waits until the caller's
//! answer comes back through the store (MCP's `tasks/update`).

use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::context::{Asked, Context, InputKind, InputRequest, InputSource};

/// A question on its way to the task's runner, with where its answer goes.
pub(crate) struct Question {
    pub key: String,
    /// The request as MCP writes it (`{"method", "params"}`).
    pub request: Value,
    pub answer: SyncSender<Value>,
}

/// The input source of a task's call: every kind of question, answered by whoever follows the
/// task.
pub(crate) struct TaskInput {
    pub questions: UnboundedSender<Question>,
    /// How long a question waits for its answer: the task's TTL (a task nobody answers is
    /// not kept waiting for ever).
    pub patience: Duration,
}

impl TaskInput {
    /// Hands the questions to the runner: their answers, as they will come.
    fn post(&self, requests: &[(&str, &InputRequest)]) -> Vec<Result<Receiver<Value>, String>> {
        requests
            .iter()
            .map(|(key, request)| {
                let (answer, answered) = sync_channel(1);
                let question = Question {
                    key: (*key).to_owned(),
                    request: request.to_json(),
                    answer,
                };
                self.questions
                    .send(question)
                    .map(|()| answered)
                    .map_err(|_| "the task ended before the question could be asked".to_owned())
            })
            .collect()
    }
}

/// Waits for one answer, giving up when the call is cancelled or times out, or `patience`
/// passes.
fn wait(ctx: &Context, answered: Receiver<Value>, patience: Duration) -> Asked {
    let until = std::time::Instant::now() + patience;
    loop {
        match answered.recv_timeout(Duration::from_millis(20)) {
            Ok(answer) => return Asked::Answer(answer),
            Err(RecvTimeoutError::Disconnected) => {
                return Asked::Refused("the task ended before the caller answered".into());
            }
            Err(RecvTimeoutError::Timeout) if ctx.is_cancelled() => {
                return Asked::Refused("the task was cancelled before the caller answered".into());
            }
            Err(RecvTimeoutError::Timeout) if std::time::Instant::now() >= until => {
                return Asked::Refused(format!(
                    "nobody answered within the task's TTL ({} s)",
                    patience.as_secs()
                ));
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

impl InputSource for TaskInput {
    fn supports(&self, _kind: InputKind) -> bool {
        // The caller sees the question when it polls the task; whether it can answer is its
        // affair (a task waits for the answer, or for its cancellation).
        true
    }

    fn ask(&self, ctx: &Context, key: &str, request: &InputRequest) -> Asked {
        match self.post(&[(key, request)]).pop() {
            Some(Ok(answered)) => wait(ctx, answered, self.patience),
            Some(Err(reason)) => Asked::Refused(reason),
            None => Asked::Refused("nothing was asked".into()),
        }
    }

    fn ask_many(&self, ctx: &Context, requests: &[(&str, &InputRequest)]) -> Vec<Asked> {
        // Every question is posted before any answer is awaited: the caller sees them all
        // pending at once and may answer them in any order.
        self.post(requests)
            .into_iter()
            .map(|posted| match posted {
                Ok(answered) => wait(ctx, answered, self.patience),
                Err(reason) => Asked::Refused(reason),
            })
            .collect()
    }
}
