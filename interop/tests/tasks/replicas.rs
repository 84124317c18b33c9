//! Three `serve --http` replicas sharing a `redis-server`, behind HAProxy (round robin, no sticky
//! sessions), with clients speaking 2026-07-28 through it. While the tasks run, one replica is
//! killed (SIGKILL) and another stopped (SIGTERM, with a drain of a second): every task ends
//! once (completed with its own result, or failed saying why: its replica stopped renewing its
//! lease, or handed it back when it stopped), every end reads the same through every replica
//! (two of them started again, as a deploy would), and no call ran twice (the store holds no
//! task a client was not told of, beyond the starts whose answers the kill cut). The clients'
//! error rate during the kills is printed.
//!
//! `BURIL_REPLICA_TASKS` sets how many tasks (300 by default; `bash scripts/bench.sh replicas`
//! runs 1,000). `bash scripts/test.sh` installs HAProxy and Redis (Debian packages); without
//! them this test fails, saying so. The load balancer and Redis listen on loopback ports of
//! their own and are stopped when the test ends.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use buril_test_support::wait_until;
use serde_json::{Value, json};

use crate::common::poll;
use crate::common::redis::Redis;
use crate::common::stateless::{has_ended, try_result as rpc};
use crate::common::tools_server::HttpServer;
use crate::conformance_server;

/// How long each task works.
const WORK_SECONDS: f64 = 3.0;
/// The tasks are started over this long, evenly.
const STARTING: Duration = Duration::from_secs(4);
/// When (from the first start) one replica is killed and another stopped.
const KILL_AT: Duration = Duration::from_millis(1_500);
const STOP_AT: Duration = Duration::from_millis(2_500);
/// Client threads.
const CLIENTS: usize = 16;

/// What a replica that stopped renewing its lease, and one that stopped before its tasks
/// ended, record as their tasks' ends.
const LAPSED: &str = "stopped renewing its lease";
const HANDED_BACK: &str = "stopped before the task ended";

fn tasks() -> usize {
    std::env::var("BURIL_REPLICA_TASKS")
        .ok()
        .map(|count| count.parse().expect("BURIL_REPLICA_TASKS is a number"))
        .unwrap_or(300)
}

/// A replica: a lease of a second (its tasks fail 6 s after it dies: the lease and the 5 s
/// allowed for clock skew), a drain of a second.
fn replica(folder: &Path, redis: &Redis, address: &str) -> HttpServer {
    HttpServer::start_on(
        &conformance_server(),
        folder,
        address,
        &["--tasks", &redis.url(), "--task-lease", "1", "--drain", "1"],
    )
}

fn port_of(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("a loopback URL: {url}"))
}

/// `haproxy` in the foreground on a free loopback port, in front of `backends`, stopped when
/// dropped.
struct HaProxy {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl HaProxy {
    fn start(backends: &[u16]) -> HaProxy {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let dir = tempfile::tempdir().unwrap();
        // Health checks every 100 ms take a replica out at its first refused connection; a
        // request that could not connect is tried again on another replica (never one that
        // was sent: a POST is not repeated). One request per server connection, so that no
        // request is sent on a connection its replica is closing. Its socket answers which
        // replicas it takes requests to.
        let socket = dir.path().join("haproxy.sock");
        let mut config = format!(
            "global\n    maxconn 8192\n    stats socket {}\n\
             defaults\n    mode http\n    timeout connect 2s\n    timeout client 60s\n    \
             timeout server 60s\n    retries 3\n    option redispatch 1\n    \
             option http-server-close\n\
             frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
             backend replicas\n    balance roundrobin\n    \
             default-server check inter 100ms fall 1 rise 1\n",
            socket.display()
        );
        for (n, backend) in backends.iter().enumerate() {
            config.push_str(&format!("    server r{n} 127.0.0.1:{backend}\n"));
        }
        let path = dir.path().join("haproxy.cfg");
        std::fs::write(&path, config).unwrap();
        let log = std::fs::File::create(dir.path().join("haproxy.log")).unwrap();
        let mut child = Command::new("haproxy")
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("haproxy runs: run `bash scripts/test.sh` (it installs the Debian package)");
        wait_until(&format!("haproxy to listen on {port}"), || {
            if let Some(status) = child.try_wait().expect("haproxy's status") {
                panic!(
                    "haproxy exited ({status}) before it listened on {port}: {}",
                    std::fs::read_to_string(dir.path().join("haproxy.log")).unwrap_or_default()
                );
            }
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        HaProxy { child, port, dir }
    }

    /// The replicas the load balancer sends requests to now (`r0`, `r1`…), as its socket's
    /// `show stat` says.
    fn up(&self) -> Vec<String> {
        let mut socket =
            UnixStream::connect(self.dir.path().join("haproxy.sock")).expect("haproxy's socket");
        socket.write_all(b"show stat\n").expect("a command");
        let mut table = String::new();
        socket
            .read_to_string(&mut table)
            .expect("haproxy's statistics");
        let mut rows = table.lines();
        let header: Vec<&str> = rows
            .next()
            .unwrap_or_default()
            .trim_start_matches("# ")
            .split(',')
            .collect();
        let column = |name: &str| header.iter().position(|c| *c == name).expect(name);
        let (proxy, server, status) = (column("pxname"), column("svname"), column("status"));
        rows.map(|row| row.split(',').collect::<Vec<_>>())
            .filter(|row| row.len() > status && row[proxy] == "replicas")
            .filter(|row| row[server].starts_with('r') && row[status] == "UP")
            .map(|row| row[server].to_owned())
            .collect()
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("haproxy.log")
    }
}

impl Drop for HaProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request's answer, or what went wrong, counted.
#[derive(Default)]
struct Errors {
    count: AtomicUsize,
    first: Mutex<Vec<String>>,
}

impl Errors {
    fn note(&self, error: String) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first.lock().unwrap();
        if first.len() < 5 {
            first.push(error);
        }
    }

    fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    fn said(&self) -> Vec<String> {
        self.first.lock().unwrap().clone()
    }
}

/// How a task ended, as any replica tells it: its status and its result or error.
fn end_of(task: &Value) -> Value {
    json!({"status": task["status"], "result": task["result"], "error": task["error"]})
}

#[test]
fn tasks_end_once_through_a_load_balancer_while_replicas_are_killed_and_stopped() {
    let total = tasks();
    let redis = Redis::start();
    let folder = tempfile::tempdir().unwrap();
    let mut replicas: Vec<HttpServer> = (0..3)
        .map(|_| replica(folder.path(), &redis, "127.0.0.1:0"))
        .collect();
    let ports: Vec<u16> = replicas.iter().map(|server| port_of(&server.url)).collect();
    let balancer = HaProxy::start(&ports);
    let url = balancer.url();

    // Clients start the tasks, evenly over STARTING, through the load balancer.
    let next = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(Mutex::new(Vec::<(usize, String)>::new()));
    let start_errors = Arc::new(Errors::default());
    let begin = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (url, next, started, errors) = (
                url.clone(),
                Arc::clone(&next),
                Arc::clone(&started),
                Arc::clone(&start_errors),
            );
            std::thread::spawn(move || {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        return;
                    }
                    let due = begin + STARTING.mul_f64(n as f64 / total as f64);
                    // The starts are spread over STARTING: the load under which the replicas
                    // fail.
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                    let call = json!({
                        "name": "slow_compute",
                        "arguments": {"seconds": WORK_SECONDS, "label": format!("t{n}")},
                    });
                    match rpc(&url, "tools/call", call) {
                        Ok(created) if created["resultType"] == "task" => {
                            let id = created["taskId"].as_str().expect("a handle").to_owned();
                            started.lock().unwrap().push((n, id));
                        }
                        Ok(other) => errors.note(format!("not a task: {other}")),
                        Err(error) => errors.note(error),
                    }
                }
            })
        })
        .collect();

    // The faults come at their times in the schedule of starts, while tasks run.
    std::thread::sleep(KILL_AT.saturating_sub(begin.elapsed()));
    replicas[0].signal("KILL");
    std::thread::sleep(STOP_AT.saturating_sub(begin.elapsed()));
    replicas[1].signal("TERM");
    for client in clients {
        client.join().expect("a client");
    }
    let started = std::mem::take(&mut *started.lock().unwrap());

    // Each task followed to its end through the load balancer.
    let poll_errors = Arc::new(Errors::default());
    let polls = Arc::new(AtomicUsize::new(0));
    let ends = Arc::new(Mutex::new(BTreeMap::<usize, (String, Value)>::new()));
    let queue = Arc::new(Mutex::new(started.clone()));
    let followers: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (url, queue, ends, errors, polls) = (
                url.clone(),
                Arc::clone(&queue),
                Arc::clone(&ends),
                Arc::clone(&poll_errors),
                Arc::clone(&polls),
            );
            std::thread::spawn(move || {
                loop {
                    let Some((n, id)) = queue.lock().unwrap().pop() else {
                        return;
                    };
                    let task = poll(
                        &format!("task t{n} ({id}) to end"),
                        Duration::from_millis(100),
                        Duration::from_secs(60),
                        || {
                            polls.fetch_add(1, Ordering::Relaxed);
                            match rpc(&url, "tasks/get", json!({"taskId": id})) {
                                Ok(task) if has_ended(&task) => Ok(task),
                                Ok(task) => Err(task.to_string()),
                                Err(error) => {
                                    errors.note(error.clone());
                                    Err(error)
                                }
                            }
                        },
                    );
                    ends.lock().unwrap().insert(n, (id, task));
                }
            })
        })
        .collect();
    for follower in followers {
        follower.join().expect("a follower");
    }
    let ends = std::mem::take(&mut *ends.lock().unwrap());
    let stopped = replicas[1].wait_for_exit(Duration::from_secs(15));
    assert!(
        stopped.success(),
        "the stopped replica exited with {stopped}"
    );

    // Every start that was answered named a task of its own, and each ended once, saying how.
    let (mut completed, mut lapsed, mut handed_back) = (0, 0, 0);
    assert_eq!(ends.len(), started.len());
    let mut handles: Vec<&String> = ends.values().map(|(id, _)| id).collect();
    handles.sort();
    handles.dedup();
    assert_eq!(
        handles.len(),
        started.len(),
        "every task has its own handle"
    );
    for (n, (id, task)) in &ends {
        match task["status"].as_str() {
            Some("completed") => {
                assert_eq!(
                    task["result"]["content"][0]["text"],
                    format!("computed t{n} in 3 s"),
                    "{id}: {task}"
                );
                completed += 1;
            }
            Some("failed") => {
                let message = task["error"]["message"].as_str().unwrap_or("");
                if message.contains(LAPSED) {
                    lapsed += 1;
                } else if message.contains(HANDED_BACK) {
                    handed_back += 1;
                } else {
                    panic!("t{n} ({id}) failed without a reason: {task}");
                }
                assert!(task.get("result").is_none(), "{task}");
            }
            _ => panic!("t{n} ({id}) ended as {task}"),
        }
    }

    // No call ran twice: the store holds the answered tasks and at most one more per start
    // whose answer was cut.
    let stored: usize = redis
        .cli(&["SCARD", "buril:tasks"])
        .parse()
        .expect("a count");
    assert!(
        stored >= started.len() && stored <= started.len() + start_errors.count(),
        "{stored} tasks stored for {} started and {} starts unanswered",
        started.len(),
        start_errors.count()
    );

    // A deploy brings the two replicas back on their ports: every end reads the same through
    // each replica, and through the load balancer.
    drop(replicas.remove(0));
    drop(replicas.remove(0));
    for port in &ports[..2] {
        replicas.push(replica(folder.path(), &redis, &format!("127.0.0.1:{port}")));
    }
    for server in &replicas {
        for (n, (id, task)) in ends.iter().step_by(7) {
            let read = rpc(&server.url, "tasks/get", json!({"taskId": id}))
                .unwrap_or_else(|error| panic!("t{n} through {}: {error}", server.url));
            assert_eq!(end_of(&read), end_of(task), "t{n} through {}", server.url);
        }
    }
    // The load balancer takes the replicas back at their first health check.
    poll(
        "the load balancer to take every replica back",
        Duration::from_millis(20),
        Duration::from_secs(10),
        || match balancer.up() {
            up if up.len() == 3 => Ok(()),
            up => Err(up),
        },
    );
    for (n, (id, task)) in &ends {
        let read = rpc(&url, "tasks/get", json!({"taskId": id}))
            .unwrap_or_else(|error| panic!("t{n} through the load balancer: {error}"));
        assert_eq!(end_of(&read), end_of(task), "t{n}");
    }

    let rate = |errors: usize, of: usize| 100.0 * errors as f64 / of.max(1) as f64;
    eprintln!(
        "replicas: {total} tasks started through HAProxy over {STARTING:?}; replica 0 killed at \
         {KILL_AT:?}, replica 1 stopped at {STOP_AT:?}\n\
         replicas: starts unanswered {} of {total} ({:.2}%){:?}\n\
         replicas: polls failed {} of {} ({:.2}%){:?}\n\
         replicas: ended completed {completed}, failed (lease lapsed) {lapsed}, failed (handed \
         back) {handed_back}; {stored} tasks in the store",
        start_errors.count(),
        rate(start_errors.count(), total),
        start_errors.said(),
        poll_errors.count(),
        polls.load(Ordering::Relaxed),
        rate(poll_errors.count(), polls.load(Ordering::Relaxed)),
        poll_errors.said(),
    );
    // The kill cuts the requests its replica was answering, a few at most; the stop none.
    assert!(
        start_errors.count() <= total / 20,
        "{} of {total} starts unanswered: {:?}; haproxy said {}",
        start_errors.count(),
        start_errors.said(),
        std::fs::read_to_string(balancer.log()).unwrap_or_default()
    );
    // The killed replica's tasks failed when their lease lapsed, the stopped one's were handed
    // back, the third's completed.
    assert!(
        completed > 0 && lapsed > 0 && handed_back > 0,
        "completed {completed}, lapsed {lapsed}, handed back {handed_back}"
    );
}
