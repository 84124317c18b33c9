//! The `tools` binary's commands, run as processes: `list`, `describe`, `call` and `replay`,
//! `serve` over stdio and HTTP (its flags, its audit lines, its stop at a signal, a full disk,
//! hostile input), and a handoff detached from the process that started it.

#[path = "../common/mod.rs"]
mod common;
mod harness;

mod cli;
mod detached;
mod full_disk;
mod hostile;
mod http_flags;
mod serve_logs;
mod stop;
