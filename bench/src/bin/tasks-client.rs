//! Tasks started and finished per second through one or more `serve --http` replicas sharing a
//! task store (`scripts/bench.sh tasks` starts `redis-server` and the replicas of the fixture
//! server, `conformance-server`):
//!
//! ```text
//! tasks-client TASKS THREADS URL [URL...]
//! ```
//!
//! Each of THREADS client threads takes the next task number, starts `slow_compute` (no sleep)
//! as a task through one replica (round robin) and polls `tasks/get` through the next one until
//! it ends, checking that its result is its own. Prints one JSON line: tasks, threads,
//! replicas, seconds, tasks per second, and the p50/p99 of a task's time from start to seen
//! ended. Every request is a 2026-07-28 stateless one on a fresh connection (the same for any
//! number of replicas).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

// The tasks tests' client: stateless requests, a connection each.
#[allow(dead_code)]
#[path = "../../../interop/tests/common/stateless.rs"]
mod stateless;

fn post(url: &str, method: &str, params: Value) -> Value {
    stateless::rpc_as(url, method, params, true)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(tasks), Some(threads)) = (
        args.first().and_then(|n| n.parse::<usize>().ok()),
        args.get(1).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: tasks-client TASKS THREADS URL [URL...]");
        std::process::exit(2);
    };
    let urls: Arc<Vec<String>> = Arc::new(args[2..].to_vec());
    assert!(!urls.is_empty(), "give at least one replica's URL");
    let next = Arc::new(AtomicUsize::new(0));
    let times = Arc::new(Mutex::new(Vec::with_capacity(tasks)));
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (urls, next, times) = (Arc::clone(&urls), Arc::clone(&next), Arc::clone(&times));
            std::thread::spawn(move || {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= tasks {
                        return;
                    }
                    let begun = Instant::now();
                    let label = format!("n{n}");
                    let created = post(
                        &urls[n % urls.len()],
                        "tools/call",
                        json!({"name": "slow_compute", "arguments": {"seconds": 0, "label": label}}),
                    );
                    let id = created["result"]["taskId"]
                        .as_str()
                        .unwrap_or_else(|| panic!("no task: {created}"))
                        .to_owned();
                    let follow = &urls[(n + 1) % urls.len()];
                    loop {
                        let task = post(follow, "tasks/get", json!({"taskId": id}));
                        match task["result"]["status"].as_str() {
                            Some("completed") => {
                                let text = task["result"]["result"]["content"][0]["text"]
                                    .as_str()
                                    .unwrap_or("");
                                assert_eq!(text, format!("computed {label} in 0 s"));
                                break;
                            }
                            Some("working") => std::thread::sleep(Duration::from_millis(1)),
                            other => panic!("task {id} ended {other:?}: {task}"),
                        }
                    }
                    times.lock().unwrap().push(begun.elapsed());
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("a client thread");
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut times = std::mem::take(&mut *times.lock().unwrap());
    times.sort();
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{}",
        json!({
            "tasks": tasks,
            "threads": threads,
            "replicas": urls.len(),
            "seconds": seconds,
            "tasks_per_second": tasks as f64 / seconds,
            "p50_ms": at(0.5),
            "p99_ms": at(0.99),
        })
    );
}
