//! What the benchmarks measure, in one place: the same work done three ways.
//!
//! - **buril**: `#[buril::tool]` functions called through the process-wide dispatcher (lookup, policy,
//!   validation, deserialization, the call, the envelope).
//! - **floor** ([`floor`]): the least any dispatcher must do: `serde_json::from_value` into the
//!   argument struct, the call, `serde_json::to_value` into the same envelope.
//! - **the floor server** ([`floor_server`]): the floor behind the least a server can do over
//!   stdio or HTTP (read, parse, call, serialize, write), for the MCP benchmarks.
//! - **peer** ([`peer`]): the same tools written with rmcp's `#[tool_router]`, `#[tool]` and
//!   `Parameters<T>`, called through rmcp's `ToolRouter::call` in-process.
//!
//! [`synthetic`] builds registries and codegen inputs of any size (10,000 tools) without
//! compiling 10,000 functions.

#![allow(missing_docs)]

pub mod floor;
pub mod floor_server;
pub mod peer;
pub mod synthetic;
pub mod work;

use work::{Placed, Placement, Spawned};

/// Spawns an object named `name` at `x`, optionally tagged: the three-field tool.
#[buril::tool(off_thread)]
fn bench_spawn(
    /// The object's name.
    name: String,
    /// Position along x, in metres.
    x: f64,
    /// An optional tag.
    tag: Option<String>,
) -> Spawned {
    work::spawn(name, x, tag)
}

/// The same tool, `inline`: it never blocks, so from async code (the MCP server) it runs on the
/// calling task instead of a thread of the blocking pool, as rmcp runs its sync tools.
#[buril::tool(off_thread, inline)]
fn bench_spawn_inline(
    /// The object's name.
    name: String,
    /// Position along x, in metres.
    x: f64,
    /// An optional tag.
    tag: Option<String>,
) -> Spawned {
    work::spawn(name, x, tag)
}

/// The same tool on the host's main thread (the default for tools that do not say
/// `off_thread`): every call is handed to the dispatcher's main thread and waited for.
#[buril::tool]
fn bench_spawn_main(
    /// The object's name.
    name: String,
    /// Position along x, in metres.
    x: f64,
    /// An optional tag.
    tag: Option<String>,
) -> Spawned {
    work::spawn(name, x, tag)
}

/// Waits `ms` milliseconds, then answers them: a call that stays in flight (the memory
/// benchmark's).
#[buril::tool(off_thread)]
async fn bench_hold(
    /// Milliseconds to wait before answering.
    ms: u64,
) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    ms
}

/// Places an object into a scene: a nested input (a struct holding a struct and a list).
#[buril::tool(off_thread)]
fn bench_place(
    /// The scene to place the object in.
    scene: String,
    /// What to place, and where.
    object: Placement,
) -> Placed {
    work::place(scene, object)
}

/// The input the three-field benchmarks send.
pub fn spawn_input() -> serde_json::Value {
    serde_json::json!({"name": "crate_01", "x": 12.5, "tag": "props"})
}

/// An input that fails validation twice: a number for a string, a string for a number.
pub fn spawn_invalid_input() -> serde_json::Value {
    serde_json::json!({"name": 3, "x": "far", "tag": "props"})
}

/// The input the nested benchmarks send.
pub fn place_input() -> serde_json::Value {
    serde_json::json!({
        "scene": "Assets/Scenes/Main.scene",
        "object": {
            "name": "lamp_post",
            "transform": {
                "position": {"x": 1.0, "y": 0.0, "z": -4.5},
                "rotation": {"x": 0.0, "y": 90.0, "z": 0.0},
                "scale": 1.0
            },
            "tags": ["lighting", "street", "static"],
            "layer": "props"
        }
    })
}

/// The resident set (`VmRSS`) a `/proc/<pid>/status` file gives, in KiB (0 where there is none:
/// not Linux, or the process is gone).
pub fn resident_kib(status_path: &str) -> u64 {
    std::fs::read_to_string(status_path)
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
