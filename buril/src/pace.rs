//! Pace: which sync `off_thread` tools run in their async caller's task.
//!
//! A sync tool called from async code (the MCP server, `invoke_async`) goes to a thread of the
//! blocking pool, so that a tool that blocks never stalls the caller's runtime: two thread
//! wake-ups a call, most of the cost of a quick tool's call. Most tools are quick, and say
//! nothing (`inline` is an author's promise few make). So each tool's pace is learned: every
//! run away from the caller is timed, and a tool whose last [`FIRST_PROOF`] runs each returned
//! within [`QUICK`] runs in its caller's task from then on, as an `inline` tool does, while its
//! calls stay that quick. A run in place longer than [`SLOW`], or [`SLOW_RUNS`] in a row longer
//! than [`QUICK`], send the tool's calls away again (one run a little slow, which a preemption
//! of the caller's thread can make, does not), and the tool must then show twice as many quick
//! runs in a row before it runs in place again (at most [`MAX_PROOF`]). So a tool that blocks
//! now and then stalls its caller's task for one call, and ever more rarely.
//!
//! A run in place cannot be interrupted: its deadline is checked when it returns (and
//! `Context::is_cancelled` turns true once it has passed, for a tool that looks). So a call
//! whose deadline is nearer than [`FAR`] never runs in place; a quick tool's call with a far
//! deadline (the MCP server gives every call one, 60 s by default) does, and a tool that
//! suddenly hangs without looking at its context answers that call's timeout when it returns
//! rather than at the deadline, once. A tool whose author says it may block
//! (`#[tool(off_thread, blocking)]`) never runs in place, and no call does when the dispatcher
//! is built with `learn_pace(false)`. A tool's pace is its own, in its descriptor, shared by
//! every dispatcher of the process.
//!
//! What a run in place cannot do that a run on the pool can: block on a Tokio runtime
//! (`Handle::block_on`, a runtime of its own, `reqwest::blocking`, `blocking_recv`), which Tokio
//! refuses, with a panic, on a thread that drives async tasks. A tool that does so in place
//! fails that call (its panic names the cause and the fix, `blocking`), and is never run in
//! place again ([`Pace::never`]).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

/// The longest run that counts as quick: about what an async task may take between two awaits
/// without stalling the tasks that share its worker.
pub(crate) const QUICK: Duration = Duration::from_micros(100);

/// A run in place this long sends the tool's calls away at once.
pub(crate) const SLOW: Duration = Duration::from_millis(1);

/// Runs in place in a row longer than [`QUICK`] (none longer than [`SLOW`]) that send the tool's
/// calls away.
pub(crate) const SLOW_RUNS: u32 = 3;

/// The nearest deadline a quick tool's call may have and still run in place: ten thousand
/// times [`QUICK`].
pub(crate) const FAR: Duration = Duration::from_secs(1);

/// Quick runs in a row a tool shows away from its caller before it first runs in place.
pub(crate) const FIRST_PROOF: u32 = 8;

/// The most quick runs in a row asked of a tool that was slow in place before (reached after
/// 13 slow runs in place).
pub(crate) const MAX_PROOF: u32 = 1 << 16;

/// The proof of a tool that must never run in place.
const NEVER: u32 = u32::MAX;

/// What is known of one tool's pace. Relaxed atomics: it is a placement hint, and a race
/// between two calls costs at most one call in the wrong place.
pub(crate) struct Pace {
    /// Quick runs in a row away from the caller.
    quick_runs: AtomicU32,
    /// How many quick runs in a row make the tool run in place.
    proof: AtomicU32,
    /// Runs in place in a row longer than [`QUICK`].
    slow_runs: AtomicU32,
    in_place: AtomicBool,
}

impl Pace {
    pub(crate) const fn new() -> Self {
        Pace {
            quick_runs: AtomicU32::new(0),
            proof: AtomicU32::new(FIRST_PROOF),
            slow_runs: AtomicU32::new(0),
            in_place: AtomicBool::new(false),
        }
    }

    /// Whether the tool's calls run in their caller's task now.
    #[inline]
    pub(crate) fn runs_in_place(&self) -> bool {
        self.in_place.load(Ordering::Relaxed)
    }

    /// A run away from the caller (the blocking pool, the sync lane) took `took`.
    #[inline]
    pub(crate) fn ran_away(&self, took: Duration) {
        if took > QUICK {
            self.quick_runs.store(0, Ordering::Relaxed);
            return;
        }
        let runs = self
            .quick_runs
            .fetch_add(1, Ordering::Relaxed)
            .saturating_add(1);
        let proof = self.proof.load(Ordering::Relaxed);
        if runs >= proof && proof != NEVER {
            self.in_place.store(true, Ordering::Relaxed);
        }
    }

    /// A run in the caller's task took `took`: one longer than [`SLOW`], or the [`SLOW_RUNS`]th
    /// in a row longer than [`QUICK`], sends the next calls away again, and twice as many quick
    /// runs are asked before the next run in place.
    #[inline]
    pub(crate) fn ran_in_place(&self, took: Duration) {
        if took <= QUICK {
            // Read first: a quick run writes nothing (the line stays shared between threads).
            if self.slow_runs.load(Ordering::Relaxed) != 0 {
                self.slow_runs.store(0, Ordering::Relaxed);
            }
            return;
        }
        if took <= SLOW && self.slow_runs.fetch_add(1, Ordering::Relaxed) + 1 < SLOW_RUNS {
            return;
        }
        self.in_place.store(false, Ordering::Relaxed);
        self.quick_runs.store(0, Ordering::Relaxed);
        self.slow_runs.store(0, Ordering::Relaxed);
        let proof = self.proof.load(Ordering::Relaxed);
        if proof != NEVER {
            self.proof
                .store(proof.saturating_mul(2).min(MAX_PROOF), Ordering::Relaxed);
        }
    }

    /// The tool did what only a thread of the pool may do (block on a Tokio runtime): its
    /// calls never run in place again.
    pub(crate) fn never(&self) {
        self.proof.store(NEVER, Ordering::Relaxed);
        self.in_place.store(false, Ordering::Relaxed);
    }

    /// Quick runs asked before the next run in place (for tests and diagnostics).
    #[cfg(test)]
    pub(crate) fn proof(&self) -> u32 {
        self.proof.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: Duration = Duration::from_micros(5);
    const LATE: Duration = Duration::from_millis(2);
    const A_LITTLE_SLOW: Duration = Duration::from_micros(300);

    /// Shows `pace` `runs` quick runs away, checking that only the last makes it run in place.
    fn promotes_after(pace: &Pace, runs: u32) {
        for _ in 1..runs {
            pace.ran_away(FAST);
            assert!(!pace.runs_in_place());
        }
        pace.ran_away(FAST);
        assert!(pace.runs_in_place());
    }

    fn promoted() -> Pace {
        let pace = Pace::new();
        promotes_after(&pace, FIRST_PROOF);
        pace
    }

    #[test]
    fn a_tool_runs_in_place_after_its_first_quick_runs_away() {
        promoted();
    }

    #[test]
    fn a_slow_run_away_starts_the_count_again() {
        let pace = Pace::new();
        for _ in 1..FIRST_PROOF {
            pace.ran_away(FAST);
        }
        pace.ran_away(LATE);
        promotes_after(&pace, FIRST_PROOF);
    }

    #[test]
    fn a_slow_run_in_place_sends_calls_away_and_doubles_the_proof() {
        let pace = promoted();
        pace.ran_in_place(FAST);
        assert!(pace.runs_in_place());
        pace.ran_in_place(LATE);
        assert!(!pace.runs_in_place());
        assert_eq!(pace.proof(), 2 * FIRST_PROOF);
        promotes_after(&pace, 2 * FIRST_PROOF);
    }

    #[test]
    fn runs_in_place_a_little_slow_send_calls_away_only_when_they_come_in_a_row() {
        let pace = promoted();
        for _ in 0..10 {
            for _ in 1..SLOW_RUNS {
                pace.ran_in_place(A_LITTLE_SLOW);
            }
            pace.ran_in_place(FAST);
            assert!(pace.runs_in_place());
        }
        for _ in 1..SLOW_RUNS {
            pace.ran_in_place(A_LITTLE_SLOW);
        }
        assert!(pace.runs_in_place());
        pace.ran_in_place(A_LITTLE_SLOW);
        assert!(!pace.runs_in_place());
        assert_eq!(pace.proof(), 2 * FIRST_PROOF);
    }

    #[test]
    fn a_tool_that_must_never_run_in_place_never_does() {
        let pace = promoted();
        pace.never();
        assert!(!pace.runs_in_place());
        for _ in 0..(4 * MAX_PROOF) {
            pace.ran_away(FAST);
        }
        assert!(!pace.runs_in_place());
        // A slow run in place finishing after (a race) leaves it so.
        pace.ran_in_place(LATE);
        assert_eq!(pace.proof(), NEVER);
    }

    #[test]
    fn the_proof_stops_growing_at_its_most() {
        let pace = Pace::new();
        for _ in 0..40 {
            pace.ran_in_place(LATE);
        }
        assert_eq!(pace.proof(), MAX_PROOF);
        assert_eq!(FIRST_PROOF << 13, MAX_PROOF);
    }

    #[test]
    fn a_run_exactly_as_long_as_quick_counts_as_quick() {
        let pace = Pace::new();
        for _ in 0..FIRST_PROOF {
            pace.ran_away(QUICK);
        }
        assert!(pace.runs_in_place());
        pace.ran_in_place(QUICK);
        assert!(pace.runs_in_place());
    }
}
