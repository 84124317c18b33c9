//! Runs one benchmarked call many times, for instruction counts under callgrind, which are
//! stable where timings on a busy machine are not:
//!
//! ```text
//! valgrind --tool=callgrind target/release/calls buril/three_fields 10000
//! ```
//!
//! `scripts/bench.sh` runs each case twice (with 1,000 and 11,000 calls) and divides the
//! difference by 10,000: the instructions of one call, without the start-up.

use std::hint::black_box;
use std::process::ExitCode;

use buril_bench::{floor, peer, place_input, spawn_input, spawn_invalid_input};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_default();
    let calls: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    if case == "startup" {
        return startup(calls);
    }
    if let Some(language) = case.strip_prefix("codegen/") {
        // `codegen/csharp 10000`: generate bindings for that many synthetic tools, once.
        let sources = buril_bench::synthetic::sources(calls);
        let generator = buril_codegen::Generator::new().sources(sources);
        let generator = match language {
            "csharp" => generator.csharp("/tmp/out/csharp"),
            "typescript" => generator.typescript("/tmp/out/typescript"),
            _ => return usage(),
        };
        let files = generator.generate().expect("generation");
        black_box(files);
        return ExitCode::SUCCESS;
    }
    let harness = peer::Harness::new();
    let (input, tool) = match case.split_once('/').map_or(case.as_str(), |(_, t)| t) {
        "three_fields" => (spawn_input(), "bench_spawn"),
        "nested" => (place_input(), "bench_place"),
        "invalid" => (spawn_invalid_input(), "bench_spawn"),
        _ => return usage(),
    };
    let variant = case.split_once('/').map_or("", |(v, _)| v);
    // Warm up: the lazily built schemas and validators.
    let warm = buril::call(tool, input.clone());
    black_box(warm);
    for _ in 0..calls {
        let input = input.clone();
        match variant {
            "floor" if tool == "bench_place" => drop(black_box(floor::place(black_box(input)))),
            "floor" => drop(black_box(floor::spawn(black_box(input)))),
            "buril" => drop(black_box(buril::call(black_box(tool), black_box(input)))),
            "rmcp" => drop(black_box(
                harness.call(black_box(tool), black_box(peer::object(input))),
            )),
            "clone" => drop(black_box(input)),
            _ => return usage(),
        }
    }
    ExitCode::SUCCESS
}

/// `startup 10000`: builds the registry of that many tools once, as the first `registry()`
/// call does, and prints its time and the memory it took (resident set growth).
fn startup(tools: usize) -> ExitCode {
    let descriptors = buril_bench::synthetic::descriptors(tools);
    let before = resident_kib();
    let start = std::time::Instant::now();
    let registry = buril::Registry::new(descriptors).expect("unique names");
    let elapsed = start.elapsed();
    let after = resident_kib();
    let first = std::time::Instant::now();
    let schema_ok = registry.tools()[0].input_schema().is_object();
    let first_schema = first.elapsed();
    let all = std::time::Instant::now();
    for tool in registry.iter() {
        black_box(tool.input_schema());
    }
    let all_schemas = all.elapsed();
    let with_schemas = resident_kib();
    println!(
        "{}",
        serde_json::json!({
            "tools": registry.len(),
            "registry_ms": elapsed.as_secs_f64() * 1e3,
            "registry_kib": after.saturating_sub(before),
            "descriptor_bytes": std::mem::size_of::<buril::ToolDescriptor>(),
            "first_schema_us": first_schema.as_secs_f64() * 1e6,
            "all_schemas_ms": all_schemas.as_secs_f64() * 1e3,
            "all_schemas_kib": with_schemas.saturating_sub(after),
            "ok": schema_ok,
        })
    );
    ExitCode::SUCCESS
}

/// The resident set size, in KiB (Linux; 0 elsewhere).
fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: calls (floor|buril|rmcp|clone)/(three_fields|nested|invalid) [CALLS]\n       \
         calls codegen/(csharp|typescript) [TOOLS]\n       calls startup [TOOLS]"
    );
    ExitCode::from(2)
}
