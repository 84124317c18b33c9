//! The host's main thread: main-thread tools are queued here and run one at a time, in order.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::{self, ThreadId};

/// Who runs the main-thread tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MainThread {
    /// The dispatcher starts a thread of its own, `buril-main`, and runs every main-thread
    /// tool there, in call order. Suits servers and command-line hosts.
    #[default]
    Owned,
    /// The thread that builds the dispatcher is the main thread. Calls made on it run at once;
    /// calls from other threads wait in a queue until the host calls
    /// [`Dispatcher::pump`](crate::Dispatcher::pump) on it, as an editor's update tick does.
    Host,
}

pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

pub(crate) struct MainQueue {
    mode: MainThread,
    owner: OnceLock<ThreadId>,
    state: Mutex<QueueState>,
    ready: Condvar,
    started: OnceLock<()>,
}

#[derive(Default)]
struct QueueState {
    jobs: VecDeque<Job>,
    closed: bool,
}

impl MainQueue {
    pub(crate) fn new(mode: MainThread) -> Arc<Self> {
        let queue = Arc::new(MainQueue {
            mode,
            owner: OnceLock::new(),
            state: Mutex::new(QueueState::default()),
            ready: Condvar::new(),
            started: OnceLock::new(),
        });
        if mode == MainThread::Host {
            let _ = queue.owner.set(thread::current().id());
        }
        queue
    }

    pub(crate) fn mode(&self) -> MainThread {
        self.mode
    }

    /// Whether the current thread is the main thread.
    pub(crate) fn is_current(&self) -> bool {
        self.owner.get() == Some(&thread::current().id())
    }

    /// Queues a job for the main thread, starting the owned thread on first use.
    pub(crate) fn submit(self: &Arc<Self>, job: Job) {
        if self.mode == MainThread::Owned {
            self.started.get_or_init(|| self.start_owned());
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.jobs.push_back(job);
        drop(state);
        self.ready.notify_one();
    }

    /// Runs every queued job on the calling thread (the host's main thread); returns how many.
    pub(crate) fn pump(&self) -> usize {
        let mut count = 0;
        loop {
            let job = {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                state.jobs.pop_front()
            };
            match job {
                Some(job) => {
                    job();
                    count += 1;
                }
                None => return count,
            }
        }
    }

    /// How many jobs wait for the main thread.
    pub(crate) fn pending(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .jobs
            .len()
    }

    pub(crate) fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.closed = true;
        drop(state);
        self.ready.notify_all();
    }

    fn start_owned(self: &Arc<Self>) {
        let queue = Arc::clone(self);
        let (tx, rx) = std::sync::mpsc::channel();
        thread::Builder::new()
            .name("buril-main".into())
            .spawn(move || {
                let _ = tx.send(thread::current().id());
                queue.run_owned();
            })
            .expect("the main-thread worker could not be started");
        if let Ok(id) = rx.recv() {
            let _ = self.owner.set(id);
        }
    }

    fn run_owned(&self) {
        loop {
            let job = {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if let Some(job) = state.jobs.pop_front() {
                        break job;
                    }
                    if state.closed {
                        return;
                    }
                    state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            };
            job();
        }
    }
}
