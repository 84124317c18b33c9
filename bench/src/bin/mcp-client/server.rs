//! The server under test as a child process, and the newline-delimited JSON-RPC spoken with it.

use std::io::{BufRead, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// `mcp-server`, beside this binary, or the one `BENCH_MCP_SERVER` names (the cost benchmark
/// measures an older commit's server with today's client).
pub(crate) fn server_binary() -> std::path::PathBuf {
    match std::env::var_os("BENCH_MCP_SERVER") {
        Some(path) if !path.is_empty() => path.into(),
        _ => std::env::current_exe()
            .expect("this binary's path")
            .with_file_name("mcp-server"),
    }
}

/// `mcp-server KIND`, under `taskset -c CPUS` when `BENCH_SERVER_CPUS` says so (the script runs
/// the client on the other CPUs, so that where the scheduler puts the server varies less).
pub(crate) fn server_command(kind: &str) -> Command {
    match std::env::var("BENCH_SERVER_CPUS") {
        Ok(cpus) if !cpus.is_empty() => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpus).arg(server_binary()).arg(kind);
            command
        }
        _ => {
            let mut command = Command::new(server_binary());
            command.arg(kind);
            command
        }
    }
}

/// `mcp-server KIND` started with its standard input and output piped to this process (its
/// errors to this one's).
pub(crate) fn start_server(kind: &str) -> Child {
    server_command(kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start mcp-server")
}

/// An HTTP server of the bench (`mcp-server KIND`, which prints its URL first): the process,
/// its authority (`127.0.0.1:PORT`) and its endpoint's path.
pub(crate) fn start_http_server(kind: &str) -> (Child, String, String) {
    let mut child = start_server(kind);
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("the server's URL");
    let rest = url.trim().strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_at(rest.find('/').expect("a path"));
    (child, authority.to_owned(), path.to_owned())
}

/// The runtime the HTTP clients run on: two workers, as the server has.
pub(crate) fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The environment variable `name` as a number, or `default`.
pub(crate) fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The `q` quantile of `sorted` latencies (nearest rank), in microseconds.
pub(crate) fn quantile_us(sorted: &[Duration], q: f64) -> f64 {
    micros(sorted[((sorted.len() - 1) as f64 * q).round() as usize])
}

pub(crate) fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The CPU time, user and system, of the children this process has waited for (here, the
/// server: `taskset` execs it).
#[cfg(unix)]
pub(crate) fn children_cpu() -> Option<Duration> {
    // SAFETY: `getrusage` writes the struct it is given, which is plain data.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        if libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) != 0 {
            return None;
        }
        usage
    };
    let of = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.try_into().unwrap_or(0))
            + Duration::from_micros(t.tv_usec.try_into().unwrap_or(0))
    };
    Some(of(usage.ru_utime) + of(usage.ru_stime))
}

#[cfg(not(unix))]
pub(crate) fn children_cpu() -> Option<Duration> {
    None
}

/// The resident set of process `pid`, in KiB (Linux; 0 elsewhere).
pub(crate) fn resident_kib(pid: u32) -> u64 {
    buril_bench::resident_kib(&format!("/proc/{pid}/status"))
}

/// Writes `message` to the server as one line (unflushed).
pub(crate) fn send(input: &mut dyn Write, message: &Value) {
    let mut line = serde_json::to_vec(message).expect("json");
    line.push(b'\n');
    input.write_all(&line).expect("write to the server");
}

/// The server's next answer: the next message with an id, notifications (logging, list
/// changes) skipped.
pub(crate) fn read_answer(output: &mut impl BufRead) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let n = output.read_line(&mut line).expect("read from the server");
        assert!(n > 0, "the server closed its output");
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
        if message.get("id").is_some() {
            return message;
        }
    }
}
