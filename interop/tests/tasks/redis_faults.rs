//! A server whose Redis task store fails under it: Redis restarting while clients call, and
//! Redis answering slowly or not at all (a delay proxy between the server and Redis). Calls of
//! ordinary tools never touch the store and are answered throughout; a task call either works
//! or answers an error that names the store, within its deadline (the store's own timeout is
//! 5 s), never a hang; once Redis is back, tasks work again without a restart of the server.
//! (A Redis that is down when the server starts stops the server: `across`.)

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use buril_test_support::wait_until;
use serde_json::{Value, json};

use crate::common::poll;
use crate::common::redis::Redis;
use crate::common::stateless::{has_ended, try_result as rpc};
use crate::common::tools_server::HttpServer;
use crate::conformance_server;

fn serve(folder: &Path, store: &str) -> HttpServer {
    HttpServer::start_with(&conformance_server(), folder, &["--tasks", store])
}

fn ordinary(url: &str) -> Result<Value, String> {
    let answer = rpc(
        url,
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    )?;
    if answer["content"][0]["text"]
        .as_str()
        .is_some_and(|text| !text.is_empty())
    {
        Ok(answer)
    } else {
        Err(format!("not the tool's answer: {answer}"))
    }
}

/// Starts a task of `seconds` and follows it to its end: its text, or the first error.
fn task(url: &str, seconds: f64, label: &str) -> Result<String, String> {
    let created = rpc(
        url,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": seconds, "label": label}}),
    )?;
    let id = created["taskId"]
        .as_str()
        .ok_or_else(|| format!("not a task: {created}"))?
        .to_owned();
    // An error of a look ends the wait, as the call's answer.
    let ended = poll(
        &format!("{label} to end"),
        Duration::from_millis(50),
        Duration::from_secs(60),
        || match rpc(url, "tasks/get", json!({"taskId": id})) {
            Ok(task) if !has_ended(&task) => Err(task),
            answer => Ok(answer),
        },
    );
    let task = ended?;
    match task["result"]["content"][0]["text"].as_str() {
        Some(text) if task["status"] == "completed" => Ok(text.to_owned()),
        _ => Err(format!("ended as {task}")),
    }
}

/// Whether an error says that the task store is the cause.
fn names_the_store(error: &str) -> bool {
    error.contains("Redis") || error.contains("task store")
}

#[test]
fn a_redis_restarting_under_load_leaves_ordinary_calls_alone_and_loses_no_task() {
    let mut redis = Redis::start_persistent();
    let folder = tempfile::tempdir().unwrap();
    let server = serve(folder.path(), &redis.url());
    let stop = Arc::new(AtomicBool::new(false));
    let ordinary_calls = Arc::new(AtomicUsize::new(0));
    let outcomes = Arc::new(Mutex::new(Vec::<Result<String, String>>::new()));
    let mut clients = Vec::new();
    for n in 0..8 {
        let (url, stop, calls, outcomes) = (
            server.url.clone(),
            Arc::clone(&stop),
            Arc::clone(&ordinary_calls),
            Arc::clone(&outcomes),
        );
        clients.push(std::thread::spawn(move || {
            let mut round = 0;
            while !stop.load(Ordering::Relaxed) {
                if n % 2 == 0 {
                    // Every ordinary call is answered, whatever Redis does.
                    if let Err(error) = ordinary(&url) {
                        panic!("an ordinary call failed while Redis restarted: {error}");
                    }
                    calls.fetch_add(1, Ordering::Relaxed);
                } else {
                    let label = format!("c{n}r{round}");
                    let outcome = task(&url, 0.3, &label).map(|text| {
                        assert_eq!(text, format!("computed {label} in 0.3 s"));
                        text
                    });
                    outcomes.lock().unwrap().push(outcome);
                    round += 1;
                }
            }
        }));
    }
    wait_until(
        "the clients to have called an ordinary tool and ended a task",
        || ordinary_calls.load(Ordering::Relaxed) > 0 && !outcomes.lock().unwrap().is_empty(),
    );
    let before = ordinary_calls.load(Ordering::Relaxed);
    // The task calls of the four task clients that are in flight when Redis goes down end
    // first; the ones after them started once it went down.
    let after_the_fault = outcomes.lock().unwrap().len() + 4;
    redis.restart_after(Duration::from_secs(1));
    // Under load until each task client has made two more task calls, and one of them worked:
    // the store reconnected.
    poll(
        "two task calls of each client since Redis restarted, one that worked",
        Duration::from_millis(50),
        Duration::from_secs(30),
        || {
            let outcomes = outcomes.lock().unwrap();
            let since = outcomes.get(after_the_fault..).unwrap_or_default();
            if since.len() >= 8 && since.iter().any(Result::is_ok) {
                Ok(())
            } else {
                Err(format!("{} since: {since:?}", since.len()))
            }
        },
    );
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().expect("a client");
    }
    let outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    let failed: Vec<&String> = outcomes
        .iter()
        .filter_map(|outcome| outcome.as_ref().err())
        .collect();
    let calls = ordinary_calls.load(Ordering::Relaxed);
    eprintln!(
        "redis restart: {calls} ordinary calls answered ({before} before the restart); {} task \
         calls, {} failed: {failed:?}",
        outcomes.len(),
        failed.len()
    );
    assert!(calls > before, "ordinary calls went on during the restart");
    // A task call made while Redis was down fails saying so; none is lost or ends otherwise.
    for error in &failed {
        assert!(
            names_the_store(error),
            "a task call failed unclearly: {error}"
        );
    }
    assert!(outcomes.iter().any(Result::is_ok));
    // Back to normal, without restarting the server.
    assert_eq!(
        task(&server.url, 0.0, "after").as_deref(),
        Ok("computed after in 0 s")
    );
}

/// A TCP proxy in front of Redis that holds each chunk, both ways, for the delay in force
/// (changed at any time; a chunk already held goes once the new delay has passed since it came).
struct DelayProxy {
    port: u16,
    delay_ms: Arc<AtomicU64>,
}

impl DelayProxy {
    fn start(to: u16) -> DelayProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().unwrap().port();
        let delay_ms = Arc::new(AtomicU64::new(0));
        let delay = Arc::clone(&delay_ms);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(redis) = TcpStream::connect(("127.0.0.1", to)) else {
                    continue;
                };
                for (from, into) in [
                    (client.try_clone().unwrap(), redis.try_clone().unwrap()),
                    (redis, client),
                ] {
                    let delay = Arc::clone(&delay);
                    std::thread::spawn(move || pump(from, into, &delay));
                }
            }
        });
        DelayProxy { port, delay_ms }
    }

    fn set_delay(&self, delay: Duration) {
        self.delay_ms
            .store(delay.as_millis() as u64, Ordering::Relaxed);
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

fn pump(mut from: TcpStream, mut into: TcpStream, delay_ms: &AtomicU64) {
    let mut buffer = [0u8; 16 * 1024];
    while let Ok(read) = from.read(&mut buffer) {
        if read == 0 {
            break;
        }
        let came = Instant::now();
        // Holding the chunk is the slow peer under test.
        loop {
            let delay = Duration::from_millis(delay_ms.load(Ordering::Relaxed));
            let waited = came.elapsed();
            if waited >= delay {
                break;
            }
            std::thread::sleep((delay - waited).min(Duration::from_millis(5)));
        }
        if into.write_all(&buffer[..read]).is_err() {
            break;
        }
    }
    let _ = into.shutdown(Shutdown::Write);
}

#[test]
fn a_slow_or_silent_redis_leaves_ordinary_calls_alone_and_task_calls_answer_in_time() {
    let redis = Redis::start();
    let proxy = DelayProxy::start(redis.port());
    let folder = tempfile::tempdir().unwrap();
    let server = serve(folder.path(), &proxy.url());

    // Slow: 200 ms each way on every exchange with Redis. Tasks work, later.
    proxy.set_delay(Duration::from_millis(200));
    assert_eq!(
        task(&server.url, 0.0, "slowly").as_deref(),
        Ok("computed slowly in 0 s")
    );

    // Silent: nothing comes back from Redis. A task call answers an error naming the store
    // (its 5 s timeout), while ordinary calls are answered meanwhile.
    proxy.set_delay(Duration::from_secs(3_600));
    let url = server.url.clone();
    let waiting = std::thread::spawn(move || {
        rpc(
            &url,
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0, "label": "unheard"}}),
        )
    });
    for _ in 0..50 {
        ordinary(&server.url).expect("an ordinary call while Redis is silent");
    }
    assert!(
        !waiting.is_finished(),
        "the task call was answered before the ordinary calls"
    );
    let answer = waiting.join().expect("the task call");
    let error = answer.expect_err("a task call while Redis is silent fails");
    assert!(names_the_store(&error), "{error}");

    // Redis answers again: tasks work again, once the store has reconnected.
    proxy.set_delay(Duration::ZERO);
    let text = poll(
        "tasks to work again",
        Duration::from_millis(200),
        Duration::from_secs(30),
        || {
            task(&server.url, 0.0, "again").inspect_err(|error| {
                assert!(names_the_store(error), "{error}");
            })
        },
    );
    assert_eq!(text, "computed again in 0 s");
}
