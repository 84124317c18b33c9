//! Memory given back to the system after a burst of clients. glibc's allocator keeps what a
//! program frees in its arenas for the next allocations; after a thousand sessions end, the
//! process keeps their memory (and a second burst fragments it further). So once connections or
//! sessions have ended and a quarter of a second passes with no other ending, the allocator is asked to
//! return its free pages (`malloc_trim`), on a thread of its own that sleeps while nothing ends.
//! Linux with glibc only: elsewhere [`ended`] does nothing.

/// Says that something holding memory (a connection, a session) has ended. Cheap: two atomic
/// operations, and a wake-up of the trimming thread only for the first ending after a trim.
pub(crate) fn ended() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::ended();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::thread::Thread;
    use std::time::Duration;

    /// How long nothing must end before the memory is given back.
    const QUIET: Duration = Duration::from_millis(250);

    static ENDINGS: AtomicU64 = AtomicU64::new(0);
    static PENDING: AtomicBool = AtomicBool::new(false);
    static TRIMMER: OnceLock<Option<Thread>> = OnceLock::new();

    pub(super) fn ended() {
        ENDINGS.fetch_add(1, Ordering::Relaxed);
        if !PENDING.swap(true, Ordering::AcqRel)
            && let Some(thread) = TRIMMER.get_or_init(start)
        {
            thread.unpark();
        }
    }

    fn start() -> Option<Thread> {
        let spawned = std::thread::Builder::new()
            .name("buril-trim".into())
            .spawn(trim_after_bursts);
        spawned.ok().map(|handle| handle.thread().clone())
    }

    fn trim_after_bursts() {
        loop {
            while !PENDING.load(Ordering::Acquire) {
                std::thread::park();
            }
            // Wait for a quiet second.
            loop {
                let before = ENDINGS.load(Ordering::Relaxed);
                std::thread::sleep(QUIET);
                if ENDINGS.load(Ordering::Relaxed) == before {
                    break;
                }
            }
            // An ending from here on asks for the next trim.
            PENDING.store(false, Ordering::Release);
            // SAFETY: `malloc_trim` takes a byte count and only releases free memory of the
            // allocator's own; it is safe to call at any time from any thread.
            unsafe {
                libc::malloc_trim(0);
            }
        }
    }
}
