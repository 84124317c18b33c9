//! A trace write killed mid-way (SIGKILL of the writing process) leaves the previous file
//! intact: the test runs its own binary again as the writer, and kills it while it writes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use buril_team::trace::{write_atomic, write_atomic_with};
use buril_test_support::wait_until;

const WRITER: &str = "BURIL_KILLED_WRITE_TARGET";

/// The writer's half, as the test binary names it.
const WRITER_HALF: &str = "killed_write::writer_half";

/// What the writer writes before its slow part.
const HEAD: &[u8] = b"{\"version\": 1, \"new\": ";

/// The writer's half: runs only in the child process, writing slowly until it is killed.
#[test]
fn writer_half() {
    let Some(path) = std::env::var_os(WRITER).map(PathBuf::from) else {
        return;
    };
    let _ = write_atomic_with(&path, |file| {
        file.write_all(HEAD)?;
        file.flush()?;
        // Tell the parent the write is under way, then never finish (bounded: 60 s). The pause
        // between bytes is what is tested: a write that is slow, and still going when the
        // process is killed.
        std::fs::write(path.with_extension("started"), b"")?;
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            file.write_all(b"1")?;
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    });
}

#[test]
fn a_trace_write_killed_mid_way_leaves_the_previous_file_intact() {
    if std::env::var_os(WRITER).is_some() {
        return;
    }
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("run.trace.json");
    let previous = b"{\"version\": 1, \"old\": true}\n";
    write_atomic(&path, previous).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", WRITER_HALF, "--nocapture", "--test-threads=1"])
        .env(WRITER, &path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = path.with_extension("started");
    wait_until("the writer to start its write", || started.exists());
    // Killed mid-way: once the temporary file holds bytes past the head.
    wait_until("the writer to write past the head", || {
        temporary_bytes(dir.path()) > HEAD.len() as u64
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), previous);
    // Only the writer's temporary file may be left over, never a partial trace at `path`.
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "run.trace.json" && name != "run.trace.started")
        .collect();
    assert!(
        leftovers.iter().all(|name| name.ends_with(".tmp")),
        "{leftovers:?}"
    );
}

/// The size of the writer's temporary file in `dir` (0 while there is none).
fn temporary_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
        .filter_map(|entry| entry.metadata().ok())
        .map(|metadata| metadata.len())
        .max()
        .unwrap_or(0)
}
