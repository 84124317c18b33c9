//! The host's main thread: main-thread tools are queued here and run one at a time, in order.

use std::sync::{Arc, OnceLock};
use std::thread::{self, ThreadId};

use std::time::Duration;

use super::hot::{Errand, ErrandQueue, Replies};

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

pub(crate) struct MainQueue {
    mode: MainThread,
    owner: OnceLock<ThreadId>,
    queue: Arc<ErrandQueue>,
}

impl MainQueue {
    /// The main thread's queue, whose thread watches for its next call (and whose callers
    /// for their answers) for at most `spin`.
    pub(crate) fn new(mode: MainThread, spin: Duration) -> Arc<Self> {
        let queue = Arc::new(MainQueue {
            mode,
            owner: OnceLock::new(),
            queue: Arc::new(ErrandQueue::new(spin)),
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

    /// Queues an errand for the main thread, starting the owned thread (which stays awake between
    /// calls that come close together: `hot.rs`) on first use. Answers where the caller watches
    /// for its answer, when the errand found the main thread idle and nothing queued before it.
    pub(crate) fn submit(&self, errand: Errand) -> Option<Replies<'_>> {
        if self.mode == MainThread::Owned {
            self.owner
                .get_or_init(|| self.queue.start_thread("buril-main"));
        }
        self.queue.push(errand).then(|| self.queue.replies())
    }

    /// Runs every queued errand on the calling thread (the host's main thread); returns how many.
    pub(crate) fn pump(&self) -> usize {
        self.queue.run_queued()
    }

    /// How many errands wait for the main thread.
    pub(crate) fn pending(&self) -> usize {
        self.queue.len()
    }

    pub(crate) fn close(&self) {
        self.queue.close();
    }
}
