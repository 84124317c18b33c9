//! Threads that stay awake between calls: the queue the host's main thread runs, and the queue
//! of each sync lane (`lane.rs`), a thread a sync tool's call takes when it is free.
//!
//! Handing a call to another thread costs little when that thread is awake and a great deal when
//! it sleeps: waking a sleeping thread is a system call on one side and a trip through the
//! scheduler on the other, several microseconds each way (on the virtual machines buril is
//! measured on, a hand-off and back cost 10 to 16 µs, against about 2 µs between threads that
//! watch). So a thread that runs calls watches its queue for a while after its last errand before
//! it sleeps, and a caller waiting for an answer watches for it before it sleeps.
//!
//! How long is learnt, per place ([`Spin`]), from how long its waits took, watching and
//! sleeping together: a wait that ended within twice the longest window (200 µs, [`MAX_SPIN`],
//! unless the place says otherwise) doubles the next window, since watching would have seen its
//! end (a wait slept through is longer by the wake-ups it paid, which can double a short one:
//! judged by the window alone, a place that once slept would go on sleeping for calls that
//! watching would catch); a longer one halves it. Calls that come back to back keep the window
//! long; calls that come seconds apart and slow tools keep it short, so that nobody burns a
//! core for nothing. A watcher gives up its CPU between looks
//! (`sched_yield`): where client, transport and main thread outnumber the cores, as on two, the
//! thread it waits for (or the client) runs on that CPU meanwhile, and the CPU does not go idle,
//! which on a virtual machine makes the next wake-up the dearest part of a call. A watch that
//! finds itself preempted for long (another thread kept its CPU for a quarter of a millisecond:
//! the machine is crowded) drops the window to the least and holds it there for 20 ms, twice as
//! long at each preemption that follows the last one closely, up to a second: a passing hiccup
//! costs little, a crowded machine soon stops the watching altogether. On one core nobody
//! watches, nor where the host said not to
//! ([`DispatcherBuilder::spin`](crate::DispatcherBuilder::spin)).
//!
//! A caller watches for its answer only when its errand found the queue empty and its thread
//! idle: behind other errands the answer is a while away, and callers of a busy queue that
//! watched would hold the threads their own next calls need.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

/// An errand for a hot thread.
pub(crate) type Errand = Box<dyn FnOnce() + Send + 'static>;

/// The longest a caller watches for an answer, and a hot thread for its next errand, unless
/// told otherwise.
pub(crate) const MAX_SPIN: Duration = Duration::from_micros(200);

/// The shortest window a place learns down to, in ns (it still catches an answer already on
/// its way).
const MIN_SPIN_NS: u32 = 500;

/// Whether this process may run on two cores or more: only then can a thread that watches see
/// the other side make progress.
pub(crate) fn cores_to_watch_on() -> bool {
    static MANY: OnceLock<bool> = OnceLock::new();
    *MANY.get_or_init(|| thread::available_parallelism().is_ok_and(|cores| cores.get() > 1))
}

/// How long to watch at one place of hand-off, learnt from how long its waits took.
pub(crate) struct Spin {
    /// The longest window, in ns.
    max_ns: u32,
    window_ns: AtomicU32,
    /// Until when (in ns since [`epoch`]) the window stays at the least, after a preemption.
    hold_until: AtomicU64,
    /// How long the last preemption held it, in ns.
    held_ns: AtomicU64,
}

/// The instant [`Spin`]'s holds count from.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// How long a preemption holds a place's window at the least, at first and at most, in ns.
const HOLD_NS: (u64, u64) = (20_000_000, 1_000_000_000);

/// How a watch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watched {
    Seen,
    TimedOut,
    Preempted,
}

/// A wait, begun with [`Spin::watch`] and ended with [`Wait::over`].
pub(crate) struct Wait<'a> {
    spin: &'a Spin,
    started: Instant,
}

impl Wait<'_> {
    /// The wait is over (seen, or slept through): learns from how long it took.
    pub(crate) fn over(self) {
        self.spin.learn(self.started, self.started.elapsed());
    }
}

impl Spin {
    /// A place whose waits are worth watching through when they end within `max`.
    pub(crate) const fn new(max: Duration) -> Self {
        let max_ns = max.as_nanos() as u32;
        Spin {
            max_ns,
            window_ns: AtomicU32::new(max_ns),
            hold_until: AtomicU64::new(0),
            held_ns: AtomicU64::new(0),
        }
    }

    /// Begins a wait: watches `done` without sleeping for as long as this place has learnt to.
    /// End it with [`Wait::over`] once the wait is over, whether watching saw it or not.
    pub(crate) fn watch(&self, done: impl FnMut() -> bool) -> Wait<'_> {
        let started = Instant::now();
        let window = self.window_ns.load(Ordering::Relaxed);
        if self.max_ns > 0
            && cores_to_watch_on()
            && watch(Duration::from_nanos(window.into()), done) == Watched::Preempted
        {
            self.preempted();
        }
        Wait {
            spin: self,
            started,
        }
    }

    /// Holds the window at the least: longer when the last hold ended only just before.
    fn preempted(&self) {
        let now = u64::try_from(epoch().elapsed().as_nanos()).unwrap_or(u64::MAX);
        let (held, until) = (
            self.held_ns.load(Ordering::Relaxed),
            self.hold_until.load(Ordering::Relaxed),
        );
        let hold = if now < until.saturating_add(held.saturating_mul(3)) {
            held.saturating_mul(2).clamp(HOLD_NS.0, HOLD_NS.1)
        } else {
            HOLD_NS.0
        };
        self.held_ns.store(hold, Ordering::Relaxed);
        self.hold_until
            .store(now.saturating_add(hold), Ordering::Relaxed);
        self.window_ns.store(MIN_SPIN_NS, Ordering::Relaxed);
    }

    fn learn(&self, started: Instant, waited: Duration) {
        let window = self.window_ns.load(Ordering::Relaxed);
        let next = if waited.as_nanos() > 2 * u128::from(self.max_ns) {
            (window / 2).max(MIN_SPIN_NS)
        } else if started.duration_since(epoch()).as_nanos()
            >= u128::from(self.hold_until.load(Ordering::Relaxed))
        {
            window.saturating_mul(2).min(self.max_ns)
        } else {
            window
        };
        if next != window {
            self.window_ns.store(next, Ordering::Relaxed);
        }
    }
}

/// Watches `done` for at most `window` without sleeping, giving up the CPU between looks to any
/// thread that wants it. A watch that finds a long gap between its looks (another thread kept
/// the CPU: it was preempted) ends at once.
fn watch(window: Duration, mut done: impl FnMut() -> bool) -> Watched {
    /// A gap between two looks that only a crowded CPU explains: a thread that took the CPU at
    /// a yield and gave it back as it slept (a client reading its answer, the thread this one
    /// waits for) takes microseconds; the scheduler's slices are milliseconds long.
    const PREEMPTED: Duration = Duration::from_micros(250);
    if done() {
        return Watched::Seen;
    }
    let start = Instant::now();
    let mut last = start;
    loop {
        std::thread::yield_now();
        if done() {
            return Watched::Seen;
        }
        let now = Instant::now();
        if now - last >= PREEMPTED {
            return Watched::Preempted;
        }
        if now - start >= window {
            return Watched::TimedOut;
        }
        last = now;
    }
}

/// Errands run one at a time, in order, by whoever takes them: a hot thread of its own
/// ([`run_hot`](Self::run_hot)) or a host that pumps them.
pub(crate) struct ErrandQueue {
    state: Mutex<QueueState>,
    ready: Condvar,
    /// How many errands are queued or running, read without the lock by callers and by the
    /// thread watching the queue (which runs none while it watches: for it, any is queued).
    outstanding: AtomicUsize,
    /// How long the thread running the queue watches it before it sleeps.
    spin: Spin,
    /// How long a caller watches for the answer of an errand it queued.
    replies: Spin,
}

/// Where a caller watches for the answer of an errand it queued on a hot thread.
#[derive(Clone, Copy)]
pub(crate) struct Replies<'a> {
    spin: &'a Spin,
}

impl<'a> Replies<'a> {
    /// Begins the wait for the answer: see [`Spin::watch`].
    pub(crate) fn watch(self, done: impl FnMut() -> bool) -> Wait<'a> {
        self.spin.watch(done)
    }
}

#[derive(Default)]
struct QueueState {
    errands: VecDeque<Errand>,
    closed: bool,
    /// The thread running the queue sleeps on `ready`: a new errand must wake it.
    sleeping: bool,
}

impl ErrandQueue {
    /// A queue whose thread watches for its next errand, and whose callers watch for their
    /// answers, for at most `spin` (zero: nobody watches, everybody sleeps).
    pub(crate) fn new(spin: Duration) -> Self {
        ErrandQueue {
            state: Mutex::new(QueueState::default()),
            ready: Condvar::new(),
            outstanding: AtomicUsize::new(0),
            spin: Spin::new(spin),
            replies: Spin::new(spin),
        }
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where a caller watches for the answer of an errand it queued.
    pub(crate) fn replies(&self) -> Replies<'_> {
        Replies {
            spin: &self.replies,
        }
    }

    /// Queues `errand`; wakes the thread running the queue only when it sleeps. Answers whether
    /// the errand found the queue empty and its thread idle (its caller's answer is then worth
    /// watching for: see the module's documentation).
    pub(crate) fn push(&self, errand: Errand) -> bool {
        let mut state = self.lock();
        state.errands.push_back(errand);
        let alone = self.outstanding.fetch_add(1, Ordering::Release) == 0;
        let sleeping = state.sleeping;
        drop(state);
        if sleeping {
            self.ready.notify_one();
        }
        alone
    }

    /// Runs `errand`, taken from the queue.
    fn run(&self, errand: Errand) {
        /// Counts the errand out even when it unwinds.
        struct Ran<'a>(&'a AtomicUsize);
        impl Drop for Ran<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        let _ran = Ran(&self.outstanding);
        errand();
    }

    /// Runs every queued errand on the calling thread, errands queued meanwhile too; answers
    /// how many.
    pub(crate) fn run_queued(&self) -> usize {
        let mut count = 0;
        loop {
            // Taken in a statement of its own: the lock is not held while the errand runs (it
            // may queue another).
            let Some(errand) = self.lock().errands.pop_front() else {
                return count;
            };
            self.run(errand);
            count += 1;
        }
    }

    /// How many errands are queued.
    pub(crate) fn len(&self) -> usize {
        self.lock().errands.len()
    }

    /// Stops [`run_hot`](Self::run_hot) once the queue is empty.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// Runs errands until the queue is closed and empty, watching the queue for a while after each
    /// before sleeping.
    pub(crate) fn run_hot(&self) {
        loop {
            let wait = self
                .spin
                .watch(|| self.outstanding.load(Ordering::Acquire) > 0);
            let errand = {
                let mut state = self.lock();
                loop {
                    if let Some(errand) = state.errands.pop_front() {
                        break errand;
                    }
                    if state.closed {
                        return;
                    }
                    state.sleeping = true;
                    state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
                    state.sleeping = false;
                }
            };
            wait.over();
            self.run(errand);
        }
    }

    /// Starts a thread named `name` running this queue; answers its id.
    pub(crate) fn start_thread(self: &Arc<Self>, name: &str) -> ThreadId {
        let queue = Arc::clone(self);
        thread::Builder::new()
            .name(name.into())
            .spawn(move || queue.run_hot())
            .unwrap_or_else(|e| panic!("the thread `{name}` could not be started: {e}"))
            .thread()
            .id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn window(spin: &Spin) -> u32 {
        spin.window_ns.load(Ordering::Relaxed)
    }

    #[test]
    fn a_place_learns_to_watch_long_for_quick_answers_and_briefly_for_slow_ones() {
        let spin = Spin::new(Duration::from_micros(50));
        assert_eq!(window(&spin), 50_000);
        // Slow answers (or calls seconds apart): halved down to the least.
        for _ in 0..10 {
            spin.learn(Instant::now(), Duration::from_millis(3));
        }
        assert_eq!(window(&spin), MIN_SPIN_NS);
        // Quick answers again: doubled back up to the longest.
        spin.learn(Instant::now(), Duration::from_micros(3));
        assert_eq!(window(&spin), 2 * MIN_SPIN_NS);
        for _ in 0..10 {
            spin.learn(Instant::now(), Duration::from_micros(3));
        }
        assert_eq!(window(&spin), 50_000);
    }

    /// A wait slept through is longer by its wake-ups: one that ended within twice the longest
    /// window still counts as one watching would have seen, so that a place that slept once
    /// does not go on sleeping for calls that come as close as they did while it watched.
    #[test]
    fn a_wait_within_twice_the_longest_window_still_grows_it() {
        let spin = Spin::new(Duration::from_micros(50));
        for _ in 0..10 {
            spin.learn(Instant::now(), Duration::from_millis(3));
        }
        assert_eq!(window(&spin), MIN_SPIN_NS);
        for _ in 0..10 {
            spin.learn(Instant::now(), Duration::from_micros(90));
        }
        assert_eq!(window(&spin), 50_000);
        spin.learn(Instant::now(), Duration::from_micros(101));
        assert_eq!(window(&spin), 25_000);
    }

    /// Only a caller whose errand found the queue empty and its thread idle is told to watch
    /// for its answer; one queued behind another, or while another runs, is not.
    #[test]
    fn a_caller_watches_only_when_its_errand_found_the_queue_idle() {
        let queue = Arc::new(ErrandQueue::new(MAX_SPIN));
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        queue.start_thread("buril-test-alone");
        let first = queue.push(Box::new(move || {
            started_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        }));
        assert!(first, "an idle queue: the caller watches");
        started_rx.recv().unwrap();
        let done = done_tx.clone();
        assert!(
            !queue.push(Box::new(move || done.send(()).unwrap())),
            "behind a running errand: the caller sleeps"
        );
        let done = done_tx.clone();
        assert!(
            !queue.push(Box::new(move || done.send(()).unwrap())),
            "behind a queued errand: the caller sleeps"
        );
        release_tx.send(()).unwrap();
        done_rx.recv().unwrap();
        done_rx.recv().unwrap();
        // Every errand ran: the next finds the queue idle again.
        let deadline = Instant::now() + Duration::from_secs(5);
        while queue.outstanding.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
            thread::yield_now();
        }
        assert!(queue.push(Box::new(move || done_tx.send(()).unwrap())));
        done_rx.recv().unwrap();
        queue.close();
    }

    /// An errand run by a host that pumps the queue may queue another (a main-thread tool
    /// calling one from async code): the queue is not locked while it runs.
    #[test]
    fn an_errand_pumped_may_queue_another() {
        let queue = Arc::new(ErrandQueue::new(Duration::ZERO));
        let inner = Arc::clone(&queue);
        queue.push(Box::new(move || {
            inner.push(Box::new(|| {}));
        }));
        assert_eq!(queue.run_queued(), 2);
    }

    /// An errand that panics is counted out all the same: the queue is idle after it.
    #[test]
    fn an_errand_that_panics_leaves_the_queue_idle() {
        let queue = ErrandQueue::new(Duration::ZERO);
        queue.push(Box::new(|| panic!("the tool failed")));
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| queue.run_queued()));
        assert!(ran.is_err());
        assert_eq!(queue.outstanding.load(Ordering::Relaxed), 0);
        assert!(queue.push(Box::new(|| {})));
        assert_eq!(queue.run_queued(), 1);
    }

    #[test]
    fn a_preemption_holds_the_window_at_the_least_longer_each_time_it_comes_again() {
        let spin = Spin::new(Duration::from_micros(50));
        spin.preempted();
        assert_eq!(window(&spin), MIN_SPIN_NS);
        assert_eq!(spin.held_ns.load(Ordering::Relaxed), HOLD_NS.0);
        // Quick answers within the hold teach nothing.
        spin.learn(Instant::now(), Duration::from_micros(3));
        assert_eq!(window(&spin), MIN_SPIN_NS);
        // Another preemption soon after: held twice as long.
        spin.preempted();
        assert_eq!(spin.held_ns.load(Ordering::Relaxed), 2 * HOLD_NS.0);
        for _ in 0..10 {
            spin.preempted();
        }
        assert_eq!(spin.held_ns.load(Ordering::Relaxed), HOLD_NS.1);
        // After the hold, quick answers grow the window again.
        let after = Instant::now() + Duration::from_secs(2);
        spin.learn(after, Duration::from_micros(3));
        assert_eq!(window(&spin), 2 * MIN_SPIN_NS);
    }

    #[test]
    fn a_watch_sees_what_is_already_done_and_gives_up_after_its_window() {
        assert_eq!(watch(Duration::ZERO, || true), Watched::Seen);
        let started = Instant::now();
        match watch(Duration::from_micros(200), || false) {
            // Nothing to see: the whole window passes.
            Watched::TimedOut => assert!(started.elapsed() >= Duration::from_micros(200)),
            // On a crowded machine the watch may be preempted first, and says so.
            Watched::Preempted => {}
            Watched::Seen => panic!("nothing was there to see"),
        }
    }

    #[test]
    fn a_hot_thread_runs_its_errands_in_order_then_stops_when_closed() {
        let queue = Arc::new(ErrandQueue::new(MAX_SPIN));
        let (tx, rx) = mpsc::channel();
        let thread = queue.start_thread("buril-test-hot");
        for i in 0..100 {
            let tx = tx.clone();
            queue.push(Box::new(move || {
                tx.send((i, thread::current().id())).unwrap();
            }));
        }
        let ran: Vec<_> = (0..100).map(|_| rx.recv().unwrap()).collect();
        assert_eq!(
            ran.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            (0..100).collect::<Vec<_>>()
        );
        assert!(
            ran.iter().all(|(_, id)| *id == thread),
            "one thread runs them all"
        );
        // An errand queued while the thread sleeps wakes it.
        std::thread::sleep(Duration::from_millis(20));
        let tx2 = tx.clone();
        queue.push(Box::new(move || {
            tx2.send((100, thread::current().id())).unwrap()
        }));
        assert_eq!(rx.recv().unwrap().0, 100);
        queue.close();
        drop(tx);
        // Closed and empty: the thread ends and drops nothing it was given.
        assert!(rx.recv().is_err());
    }

    /// A host that said not to spin: a watch looks once and gives up, whatever it waits for.
    #[test]
    fn without_spinning_nobody_watches() {
        let spin = Spin::new(Duration::ZERO);
        let mut looks = 0;
        spin.watch(|| {
            looks += 1;
            false
        })
        .over();
        assert_eq!(looks, 0);
    }
}
