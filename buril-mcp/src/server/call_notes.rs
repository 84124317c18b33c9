//! What a running call tells its client: its progress (rate-limited) and its log messages, in
//! order, as MCP notifications; and the log levels as MCP and the session have them.

use std::sync::Arc;

use rmcp::model::ProgressNotificationParam;
#[allow(deprecated)] // MCP's logging: deprecated by the 2026-07-28 revision, still spoken.
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{RequestContext, RoleServer};

use buril_core::context::{LogLevel, LogRecord, LogSink, Progress, ProgressSink};

/// `level` as the session keeps it: 1 for `debug` up to 8 for `emergency` (0: none asked for).
pub(super) fn level_code(level: LogLevel) -> u8 {
    LogLevel::ALL
        .iter()
        .position(|l| *l == level)
        .map_or(0, |at| at as u8 + 1)
}

pub(super) fn level_of_code(code: u8) -> Option<LogLevel> {
    code.checked_sub(1)
        .and_then(|at| LogLevel::ALL.get(usize::from(at)).copied())
}

#[allow(deprecated)]
pub(super) fn log_level_of(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

#[allow(deprecated)]
fn logging_level_of(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// What a running call tells its client, in the order the tool said it.
enum Note {
    Progress(Progress),
    Log(LogRecord),
}

/// The least time between two progress notifications of one call: a tool may report on every
/// item (`asset_search` reports every file, thousands in one call), and the spec asks senders
/// not to flood; some clients drop what comes too fast.
pub(crate) const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// Forwards a call's progress reports (as `notifications/progress`, to a client that sent a
/// progress token) and its log messages (as `notifications/message`, at or above the level the
/// client asked for; none when it asked for none), in order, from one task.
///
/// Progress is rate-limited: at most one notification per [`PROGRESS_INTERVAL`]; a report that
/// comes sooner waits, replaced by any later one (the newest wins), and goes out when the
/// interval has passed. A report waiting when a log message comes goes out first, and the last
/// report always goes out before the call's response. Log messages are never dropped.
pub(super) struct Notifier {
    pub(super) progress: Option<ProgressSink>,
    pub(super) log: Option<LogSink>,
    done: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Notifier {
    pub(super) fn start(
        context: &RequestContext<RoleServer>,
        log_level: Option<LogLevel>,
    ) -> Option<Self> {
        let token = context.meta.get_progress_token();
        if token.is_none() && log_level.is_none() {
            return None;
        }
        let peer = context.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Note>();
        let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
        let progress_token = token.clone();
        let task = tokio::spawn(async move {
            let send = |note: Note| {
                let peer = peer.clone();
                let token = progress_token.clone();
                async move {
                    match note {
                        Note::Progress(report) => {
                            let Some(token) = token else { return };
                            let mut param = ProgressNotificationParam::new(token, report.progress);
                            if let Some(total) = report.total {
                                param = param.with_total(total);
                            }
                            if let Some(message) = report.message {
                                param = param.with_message(message);
                            }
                            let _ = peer.notify_progress(param).await;
                        }
                        Note::Log(record) => {
                            #[allow(deprecated)]
                            let param = LoggingMessageNotificationParam::new(
                                logging_level_of(record.level),
                                record.data,
                            )
                            .with_logger(record.tool);
                            #[allow(deprecated)]
                            let _ = peer.notify_logging_message(param).await;
                        }
                    }
                }
            };
            // The progress report waiting for the interval to pass, and when it may go.
            let mut waiting: Option<Progress> = None;
            let mut next = tokio::time::Instant::now();
            loop {
                tokio::select! {
                    biased;
                    note = rx.recv() => match note {
                        Some(Note::Progress(report)) => {
                            let now = tokio::time::Instant::now();
                            if waiting.is_none() && now >= next {
                                send(Note::Progress(report)).await;
                                next = now + PROGRESS_INTERVAL;
                            } else {
                                waiting = Some(report);
                            }
                        }
                        Some(log) => {
                            if let Some(report) = waiting.take() {
                                send(Note::Progress(report)).await;
                                next = tokio::time::Instant::now() + PROGRESS_INTERVAL;
                            }
                            send(log).await;
                        }
                        None => break,
                    },
                    _ = tokio::time::sleep_until(next), if waiting.is_some() => {
                        if let Some(report) = waiting.take() {
                            send(Note::Progress(report)).await;
                        }
                        next = tokio::time::Instant::now() + PROGRESS_INTERVAL;
                    }
                    _ = &mut finished => break,
                }
            }
            // The call has ended: what is queued goes now, the newest report last.
            while let Ok(note) = rx.try_recv() {
                match note {
                    Note::Progress(report) => waiting = Some(report),
                    log => {
                        if let Some(report) = waiting.take() {
                            send(Note::Progress(report)).await;
                        }
                        send(log).await;
                    }
                }
            }
            if let Some(report) = waiting {
                send(Note::Progress(report)).await;
            }
        });
        let progress: Option<ProgressSink> = token.is_some().then(|| {
            let tx = tx.clone();
            Arc::new(move |report| {
                let _ = tx.send(Note::Progress(report));
            }) as ProgressSink
        });
        let log: Option<LogSink> = log_level.map(|least| {
            Arc::new(move |record: LogRecord| {
                if record.level >= least {
                    let _ = tx.send(Note::Log(record));
                }
            }) as LogSink
        });
        Some(Notifier {
            progress,
            log,
            done,
            task,
        })
    }

    /// Sends what is queued, then stops: nothing about the call after its response.
    pub(super) async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
}
