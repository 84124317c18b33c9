//! A `redis-server` of a test's own, on a free loopback port (`bash scripts/test.sh` installs
//! the Debian package; without it the tests that need it fail, saying so).

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `redis-server` on a free loopback port, stopped when dropped.
pub struct Redis {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
    persistent: bool,
}

impl Redis {
    /// A Redis that keeps nothing on disk: a restart loses every key.
    pub fn start() -> Redis {
        Self::start_keeping(false)
    }

    /// A Redis that writes every change to its append-only file before it answers, as a
    /// deployment that must not lose tasks runs it: a restart, even after SIGKILL, loses nothing.
    pub fn start_persistent() -> Redis {
        Self::start_keeping(true)
    }

    fn start_keeping(persistent: bool) -> Redis {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let dir = tempfile::tempdir().unwrap();
        let child = Self::spawn(port, dir.path(), persistent);
        Redis {
            child,
            port,
            dir,
            persistent,
        }
    }

    fn spawn(port: u16, dir: &Path, persistent: bool) -> Child {
        let appendonly: &[&str] = if persistent {
            &["--appendonly", "yes", "--appendfsync", "always"]
        } else {
            &["--appendonly", "no"]
        };
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(appendonly)
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "redis-server runs: run `bash scripts/test.sh` (it installs the Debian package)",
            );
        buril_test_support::wait_until(&format!("redis-server to listen on {port}"), || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        child
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// One command through `redis-cli`.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills it (a Redis started with [`Redis::start`] loses everything) and starts it again on
    /// the same port.
    pub fn restart(&mut self) {
        self.restart_after(Duration::ZERO);
    }

    /// [`Redis::restart`], down for `down` in between.
    pub fn restart_after(&mut self, down: Duration) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The time Redis is down is the fault under test.
        std::thread::sleep(down);
        self.child = Self::spawn(self.port, self.dir.path(), self.persistent);
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
