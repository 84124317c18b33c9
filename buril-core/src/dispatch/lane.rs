//! The sync lanes: threads of buril's own for sync `off_thread` tools' calls from async code,
//! each taken by one call at a time and kept awake between calls (`hot.rs`).
//!
//! A call that finds a lane free runs there, with none of the wake-ups of a pool whose threads
//! sleep between calls; a call that finds every lane busy (a call runs on each, or ran past its
//! deadline and goes on) goes to the blocking pool. A lane never queues a call behind another,
//! so a tool that blocks holds only its own lane: the next calls take another lane or the pool,
//! and a blocking tool slows only its own calls. A server taking calls one after the other
//! hands each to an awake thread; one taking many at once keeps as many lanes awake as the
//! machine has cores (up to [`MAX_LANES`]) and spreads the rest over the pool.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::hot::{ErrandQueue, Replies, cores_to_watch_on};

/// The most lanes a dispatcher keeps, whatever the cores.
pub(crate) const MAX_LANES: usize = 4;

/// How many lanes a dispatcher keeps: one a core, up to [`MAX_LANES`] (none on one core, where
/// a thread that watches cannot see the other side make progress).
pub(crate) fn lanes_for_this_machine() -> usize {
    if !cores_to_watch_on() {
        return 0;
    }
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(MAX_LANES)
}

/// The lanes of one dispatcher.
pub(crate) struct SyncLanes {
    /// Tried in order: calls one after the other all take the first, which stays awake; the
    /// others wake only when calls overlap.
    lanes: Box<[SyncLane]>,
}

impl SyncLanes {
    /// `count` lanes whose threads watch for their next call for at most `spin`; none (every
    /// call to the pool) with zero `count` or zero `spin`. A lane's thread starts with its
    /// first call.
    pub(crate) fn new(count: usize, spin: Duration) -> Self {
        let count = if spin.is_zero() { 0 } else { count };
        SyncLanes {
            lanes: (0..count).map(|_| SyncLane::new(spin)).collect(),
        }
    }

    /// Runs `errand` on a free lane's thread, answering where its caller watches for the
    /// answer; gives `errand` back when every lane is busy. `errand` gets the lane's release,
    /// which it drops as soon as its tool has returned.
    pub(crate) fn try_run<F>(&self, errand: F) -> Result<Replies<'_>, F>
    where
        F: FnOnce(LaneRelease) + Send + 'static,
    {
        for lane in &self.lanes {
            if let Some(release) = lane.take() {
                lane.run(errand, release);
                return Ok(lane.queue.replies());
            }
        }
        Err(errand)
    }

    /// Ends every lane's thread once its call (if any) has returned.
    pub(crate) fn close(&self) {
        for lane in &self.lanes {
            lane.queue.close();
        }
    }
}

/// One lane: a thread (started with its first call) and whether a call holds it.
struct SyncLane {
    queue: Arc<ErrandQueue>,
    busy: Arc<AtomicBool>,
    started: OnceLock<()>,
}

impl SyncLane {
    fn new(spin: Duration) -> Self {
        SyncLane {
            queue: Arc::new(ErrandQueue::new(spin)),
            busy: Arc::new(AtomicBool::new(false)),
            started: OnceLock::new(),
        }
    }

    /// Takes the lane when it is free.
    fn take(&self) -> Option<LaneRelease> {
        self.busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| LaneRelease(Some(Arc::clone(&self.busy))))
    }

    /// Runs `errand` on the lane's thread, which `release` holds.
    fn run<F>(&self, errand: F, release: LaneRelease)
    where
        F: FnOnce(LaneRelease) + Send + 'static,
    {
        self.started.get_or_init(|| {
            self.queue.start_thread("buril-sync");
        });
        self.queue.push(Box::new(move || errand(release)));
    }
}

/// Frees a lane for the next call when dropped (an errand that panics still frees it).
pub(crate) struct LaneRelease(Option<Arc<AtomicBool>>);

impl LaneRelease {
    /// The release of an errand that did not take a lane: frees nothing.
    pub(crate) fn none() -> Self {
        LaneRelease(None)
    }
}

impl Drop for LaneRelease {
    fn drop(&mut self) {
        if let Some(busy) = self.0.take() {
            busy.store(false, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::hot::MAX_SPIN;
    use super::*;
    use std::sync::mpsc;

    /// Takes every lane with a call held until the returned sender sends, each confirming it
    /// runs on the returned receiver.
    fn hold_every_lane(lanes: &SyncLanes) -> (Vec<mpsc::Sender<()>>, mpsc::Receiver<()>) {
        let (running_tx, running_rx) = mpsc::channel();
        let mut releases = Vec::new();
        for _ in 0..lanes.lanes.len() {
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let running = running_tx.clone();
            let taken = lanes.try_run(move |release| {
                running.send(()).unwrap();
                release_rx.recv().unwrap();
                drop(release);
            });
            assert!(taken.is_ok(), "a free lane takes the call");
            releases.push(release_tx);
        }
        for _ in 0..lanes.lanes.len() {
            running_rx.recv().unwrap();
        }
        (releases, running_rx)
    }

    #[test]
    fn each_lane_takes_one_call_at_a_time_and_is_freed_when_its_tool_returns() {
        let lanes = SyncLanes::new(3, MAX_SPIN);
        let (releases, _running) = hold_every_lane(&lanes);
        assert!(
            lanes.try_run(|_| {}).is_err(),
            "with every lane busy the call is given back (for the pool)"
        );
        // One lane freed: the next call takes it, whichever it is.
        releases[1].send(()).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut errand = Some(move |_: LaneRelease| tx.send(()).unwrap());
        loop {
            match lanes.try_run(errand.take().unwrap()) {
                Ok(_) => break,
                // Freed when the held call's tool returns, a moment after the send.
                Err(back) => {
                    errand = Some(back);
                    std::thread::yield_now();
                }
            }
        }
        rx.recv().unwrap();
        for release in &releases {
            let _ = release.send(());
        }
        lanes.close();
    }

    /// A call that blocks its lane leaves the other lanes to the next calls: they run while it
    /// is held.
    #[test]
    fn a_call_that_blocks_holds_only_its_own_lane() {
        let lanes = SyncLanes::new(2, MAX_SPIN);
        let (held_tx, held_rx) = mpsc::channel::<()>();
        let (entered_tx, entered_rx) = mpsc::channel();
        lanes
            .try_run(move |_release| {
                entered_tx.send(()).unwrap();
                held_rx.recv().unwrap();
            })
            .unwrap_or_else(|_| panic!("a free lane takes the call"));
        entered_rx.recv().unwrap();
        for _ in 0..10 {
            let (tx, rx) = mpsc::channel();
            lanes
                .try_run(move |release| {
                    drop(release);
                    tx.send(()).unwrap();
                })
                .unwrap_or_else(|_| panic!("the other lane takes the call"));
            rx.recv().unwrap();
        }
        held_tx.send(()).unwrap();
        lanes.close();
    }

    /// A host that said not to spin, or a machine of one core: no lane, every call to the pool.
    #[test]
    fn without_spinning_or_lanes_every_call_is_given_back() {
        assert!(SyncLanes::new(2, Duration::ZERO).try_run(|_| {}).is_err());
        assert!(SyncLanes::new(0, MAX_SPIN).try_run(|_| {}).is_err());
    }
}
