//! Tasks across processes and servers, with real clients and a real Redis: the SDK clients
//! following the fixture server's task tools, a detached call followed from later processes,
//! replicas sharing a `redis-server` (`across`); Redis restarting, slow and silent under a
//! server (`redis_faults`); three replicas behind HAProxy while one is killed and another
//! stopped (`replicas`); a task tool of another server through the hub (`hub_tasks`). The
//! servers are `examples/conformance`'s `conformance-server`.

mod common;

#[path = "tasks/across.rs"]
mod across;
#[path = "tasks/hub_tasks.rs"]
mod hub_tasks;
#[path = "tasks/redis_faults.rs"]
mod redis_faults;
#[path = "tasks/replicas.rs"]
mod replicas;

use std::path::PathBuf;

/// The conformance suite's fixture server, `examples/conformance`'s `conformance-server`
/// (its task tools: `slow_compute`, `confirm_delete`, `background_count`, `failing_job`).
fn conformance_server() -> PathBuf {
    buril_test_support::bin::cargo_bin("buril-conformance-server", "conformance-server")
}
