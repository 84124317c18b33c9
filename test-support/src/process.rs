//! Waiting for a child process to end, without leaving it running when it does not.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::process::{Child, ExitStatus};

/// Waits, at most [`WAIT`](crate::WAIT), for `child` to end: how it ended. When it does not
/// end in time, kills it (so that no test leaves it running) and panics naming `what`.
pub fn wait_for_exit(child: &mut Child, what: &str) -> ExitStatus {
    let mut status = None;
    let waited = catch_unwind(AssertUnwindSafe(|| {
        crate::wait_until(what, || {
            status = child.try_wait().expect("the child can be waited for");
            status.is_some()
        })
    }));
    if let Err(panic) = waited {
        let _ = child.kill();
        let _ = child.wait();
        resume_unwind(panic);
    }
    status.expect("the child ended")
}
