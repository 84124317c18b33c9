//! Waiting for what only an async look can tell (a task read from a store, an answer over the
//! network), for async tests.

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

/// How often [`until`] looks: each look may cost a round trip.
const EVERY: Duration = Duration::from_millis(10);

/// Looks with `look` every 10 ms until what it answers satisfies `done`, at most
/// [`WAIT`](crate::WAIT): the answer that did. Panics naming `what`, with the last answer, when
/// none does in time.
pub async fn until<T: Debug, F: Future<Output = T>>(
    what: &str,
    mut look: impl FnMut() -> F,
    done: impl Fn(&T) -> bool,
) -> T {
    let until = tokio::time::Instant::now() + crate::WAIT;
    loop {
        let seen = look().await;
        if done(&seen) {
            return seen;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "waited {:?} for {what}; last seen: {seen:?}",
            crate::WAIT
        );
        tokio::time::sleep(EVERY).await;
    }
}
