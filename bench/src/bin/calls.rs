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
    if case == "paired/main_thread" {
        return paired_main_thread(calls);
    }
    if let Some(case) = case.strip_prefix("paired/") {
        return paired(case, calls);
    }
    if let Some(language) = case.strip_prefix("codegen-linear/") {
        return codegen_linear(language, calls);
    }
    if let Some(language) = case.strip_prefix("codegen-once/") {
        return codegen_once(language, calls);
    }
    if let Some(language) = case.strip_prefix("codegen-cold/") {
        return codegen_cold(language, calls);
    }
    if let Some(language) = case.strip_prefix("codegen/") {
        // `codegen/csharp 10000`: generate bindings for that many synthetic tools, once.
        let Some(generator) = generator(language, calls) else {
            return usage();
        };
        time_generation(&generator);
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
    let warm = call(tool, input.clone());
    black_box(warm);
    for _ in 0..calls {
        let input = input.clone();
        match variant {
            "floor" if tool == "bench_place" => drop(black_box(floor::place(black_box(input)))),
            "floor" => drop(black_box(floor::spawn(black_box(input)))),
            "buril" => drop(black_box(call(black_box(tool), black_box(input)))),
            // The call without its envelope as a `Value` (what a caller that writes bytes uses).
            "outcome" => drop(black_box(buril::Dispatcher::global().invoke(
                black_box(tool),
                black_box(input),
                buril::CallOptions::default(),
            ))),
            "rmcp" => drop(black_box(
                harness.call(black_box(tool), black_box(peer::object(input))),
            )),
            "clone" => drop(black_box(input)),
            _ => return usage(),
        }
    }
    ExitCode::SUCCESS
}

/// `paired/three_fields 300`: the floor, buril and rmcp timed in alternating blocks of
/// `BLOCK` calls, `rounds` times, the order rotating each round, so that the three see the same
/// machine (a busy machine's speed drifts over the seconds criterion spends on each in turn).
/// Each variant's turn times two blocks: one keeping its results, dropped after the clock stops
/// (criterion's `iter_batched`), and one dropping each result in the loop (what a caller pays in
/// all, the result's drop with the call). Prints each one's median time per call and the median
/// of the per-round ratios, as JSON: the kept blocks' as `floor_ns` … `buril_over_rmcp`, the
/// dropped ones' under `dropped`.
fn paired(case: &str, rounds: usize) -> ExitCode {
    const BLOCK: usize = 1_000;
    let (input, tool, floor): (_, _, fn(serde_json::Value) -> serde_json::Value) = match case {
        "three_fields" => (spawn_input(), "bench_spawn", floor::spawn),
        "nested" => (place_input(), "bench_place", floor::place),
        "invalid" => (spawn_invalid_input(), "bench_spawn", floor::spawn),
        _ => return usage(),
    };
    steady_heap();
    let harness = peer::Harness::new();
    black_box(call(tool, input.clone()));
    // Time per call, in ns, of each variant in each round: [floor, buril, rmcp], results kept
    // and results dropped.
    let mut kept: [Vec<f64>; 3] = Default::default();
    let mut dropped: [Vec<f64>; 3] = Default::default();
    let mut outputs = Vec::with_capacity(BLOCK);
    let mut results = Vec::with_capacity(BLOCK);
    for round in 0..rounds + 1 {
        for turn in 0..3 {
            let variant = (round + turn) % 3;
            let inputs: Vec<_> = (0..BLOCK).map(|_| input.clone()).collect();
            let start = std::time::Instant::now();
            match variant {
                0 => outputs.extend(inputs.into_iter().map(|i| floor(black_box(i)))),
                1 => outputs.extend(inputs.into_iter().map(|i| call(black_box(tool), i))),
                _ => results.extend(
                    inputs
                        .into_iter()
                        .map(|i| harness.call(black_box(tool), peer::object(i))),
                ),
            }
            let kept_time = start.elapsed();
            outputs.clear();
            results.clear();
            let inputs: Vec<_> = (0..BLOCK).map(|_| input.clone()).collect();
            let start = std::time::Instant::now();
            match variant {
                0 => inputs
                    .into_iter()
                    .for_each(|i| drop(black_box(floor(black_box(i))))),
                1 => inputs
                    .into_iter()
                    .for_each(|i| drop(black_box(call(black_box(tool), i)))),
                _ => inputs
                    .into_iter()
                    .for_each(|i| drop(black_box(harness.call(black_box(tool), peer::object(i))))),
            }
            let dropped_time = start.elapsed();
            // The first round warms up.
            if round > 0 {
                let per_call = |time: std::time::Duration| time.as_secs_f64() * 1e9 / BLOCK as f64;
                kept[variant].push(per_call(kept_time));
                dropped[variant].push(per_call(dropped_time));
            }
        }
    }
    let summary = |samples: &[Vec<f64>; 3]| {
        let ratio = |a: usize, b: usize| -> Vec<f64> {
            samples[a]
                .iter()
                .zip(&samples[b])
                .map(|(x, y)| x / y)
                .collect()
        };
        let (buril_floor, buril_rmcp) = (ratio(1, 0), ratio(1, 2));
        serde_json::json!({
            "floor_ns": median(&samples[0]),
            "buril_ns": median(&samples[1]),
            "rmcp_ns": median(&samples[2]),
            "buril_over_floor": median(&buril_floor),
            "buril_over_floor_p25_p75": [quantile(&buril_floor, 0.25), quantile(&buril_floor, 0.75)],
            "buril_over_rmcp": median(&buril_rmcp),
            "buril_over_rmcp_p25_p75": [quantile(&buril_rmcp, 0.25), quantile(&buril_rmcp, 0.75)],
        })
    };
    let mut line = serde_json::json!({"case": case, "rounds": rounds, "block": BLOCK});
    if let (Some(line), serde_json::Value::Object(kept)) = (line.as_object_mut(), summary(&kept)) {
        line.extend(kept);
        line.insert("dropped".into(), summary(&dropped));
    }
    println!("{line}");
    ExitCode::SUCCESS
}

/// Keeps the memory a block of results frees for the next block (unless `BENCH_HEAP=default`).
/// By default glibc gives the free top of its heap back to the kernel once it passes 128 KiB,
/// and the next block takes it back a page fault at a time: the calls of a block after one
/// that kept and freed a thousand envelopes pay those faults, by how much depending on the
/// heap's layout more than on the call (BENCHMARKS.md). A process that serves
/// calls keeps its heap at its high-water mark; so does the harness.
fn steady_heap() {
    if std::env::var("BENCH_HEAP").is_ok_and(|heap| heap == "default") {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of the allocator; no allocation is in flight.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// `paired/main_thread 300`: the same three-field tool called on the dispatcher's main thread
/// (`bench_spawn_main`, handed there and back) and on the caller's (`bench_spawn`, `off_thread`),
/// in alternating blocks of `BLOCK` calls, `rounds` times. Prints each one's median time per
/// call and the median of the per-round differences: what the hand-off to the main thread and
/// back costs a call made from another thread.
fn paired_main_thread(rounds: usize) -> ExitCode {
    const BLOCK: usize = 1_000;
    let input = spawn_input();
    steady_heap();
    black_box(call("bench_spawn", input.clone()));
    black_box(call("bench_spawn_main", input.clone()));
    // Time per call, in ns: [off_thread, main thread].
    let mut samples: [Vec<f64>; 2] = Default::default();
    let mut outputs = Vec::with_capacity(BLOCK);
    for round in 0..rounds + 1 {
        for turn in 0..2 {
            let variant = (round + turn) % 2;
            let tool = ["bench_spawn", "bench_spawn_main"][variant];
            let inputs: Vec<_> = (0..BLOCK).map(|_| input.clone()).collect();
            let start = std::time::Instant::now();
            outputs.extend(inputs.into_iter().map(|i| call(black_box(tool), i)));
            let elapsed = start.elapsed();
            outputs.clear();
            if round > 0 {
                samples[variant].push(elapsed.as_secs_f64() * 1e9 / BLOCK as f64);
            }
        }
    }
    let handoff: Vec<f64> = samples[1]
        .iter()
        .zip(&samples[0])
        .map(|(main, off)| main - off)
        .collect();
    println!(
        "{}",
        serde_json::json!({
            "case": "main_thread",
            "rounds": rounds,
            "block": BLOCK,
            "off_thread_ns": median(&samples[0]),
            "main_thread_ns": median(&samples[1]),
            "handoff_ns": median(&handoff),
            "handoff_ns_p25_p75": [quantile(&handoff, 0.25), quantile(&handoff, 0.75)],
        })
    );
    ExitCode::SUCCESS
}

fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
        .get(((sorted.len().saturating_sub(1)) as f64 * q).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// `codegen-linear/csharp 10`: generation for 1,000 tools ten times, then for 10,000 tools once,
/// `rounds` times in turn, so that both see the same machine. Each round also times a reference
/// job that is linear by construction and allocates as generation does: building the synthetic
/// sources of 1,000 and of 10,000 tools (the same code per tool) and dropping them. Its ratio is
/// what this machine gives for ten times the work and memory. See [`compare_sizes`].
fn codegen_linear(language: &str, rounds: usize) -> ExitCode {
    let (Some(small), Some(large)) = (generator(language, 1_000), generator(language, 10_000))
    else {
        return usage();
    };
    // Warm up both.
    time_generation(&small);
    time_generation(&large);
    let reference =
        |tools: usize| milliseconds(|| drop(black_box(buril_bench::synthetic::sources(tools))));
    compare_sizes(language, rounds, false, || {
        let ten: Vec<f64> = (0..10).map(|_| time_generation(&small)).collect();
        let large = time_generation(&large);
        let ten_references: Vec<f64> = (0..10).map(|_| reference(1_000)).collect();
        Some(Round {
            small: median(&ten),
            large,
            reference: Some(reference(10_000) / median(&ten_references)),
        })
    })
}

/// One round of [`compare_sizes`]: ms for 1,000 tools and for 10,000, and the reference ratio
/// measured in the same round, if any.
struct Round {
    small: f64,
    large: f64,
    reference: Option<f64>,
}

/// `codegen-cold/csharp 10`: `codegen-once` for 1,000 and for 10,000 tools, each in a fresh
/// process, in turn, `rounds` times: both pay for fresh memory, as a build script does. See
/// [`compare_sizes`].
fn codegen_cold(language: &str, rounds: usize) -> ExitCode {
    let once = |tools: usize| -> Option<f64> {
        let output = std::process::Command::new(std::env::current_exe().ok()?)
            .args([format!("codegen-once/{language}"), tools.to_string()])
            .output()
            .ok()?;
        String::from_utf8(output.stdout).ok()?.trim().parse().ok()
    };
    compare_sizes(language, rounds, true, || {
        Some(Round {
            small: once(1_000)?,
            large: once(10_000)?,
            reference: None,
        })
    })
}

/// Runs `round` `rounds` times and prints the median time of each size and the median of the
/// per-round ratios (10,000 over 1,000; 10 is linear), as JSON. With a reference, also its
/// median ratio and the median of the per-round quotients (generation's ratio over the
/// reference's: 1 is "as linear as this machine gets").
fn compare_sizes(
    language: &str,
    rounds: usize,
    cold: bool,
    mut round: impl FnMut() -> Option<Round>,
) -> ExitCode {
    let (mut small_ms, mut large_ms, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut references, mut over_reference) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let Some(Round {
            small,
            large,
            reference,
        }) = round()
        else {
            return usage();
        };
        small_ms.push(small);
        large_ms.push(large);
        ratios.push(large / small);
        if let Some(reference) = reference {
            references.push(reference);
            over_reference.push(large / small / reference);
        }
    }
    let mut report = serde_json::json!({
        "language": language,
        "rounds": rounds,
        "cold": cold,
        "ms_1000": median(&small_ms),
        "ms_10000": median(&large_ms),
        "ratio": median(&ratios),
        "ratio_p25_p75": [quantile(&ratios, 0.25), quantile(&ratios, 0.75)],
    });
    if !references.is_empty() {
        report["reference_ratio"] = median(&references).into();
        report["ratio_over_reference"] = median(&over_reference).into();
    }
    println!("{report}");
    ExitCode::SUCCESS
}

fn generator(language: &str, tools: usize) -> Option<buril_codegen::Generator> {
    let generator = buril_codegen::Generator::new().sources(buril_bench::synthetic::sources(tools));
    match language {
        "csharp" => Some(generator.csharp("/tmp/out/csharp")),
        "typescript" => Some(generator.typescript("/tmp/out/typescript")),
        _ => None,
    }
}

/// The milliseconds of one generation.
fn time_generation(generator: &buril_codegen::Generator) -> f64 {
    milliseconds(|| drop(black_box(generator.generate().expect("generation"))))
}

/// The milliseconds `work` takes.
fn milliseconds(work: impl FnOnce()) -> f64 {
    let start = std::time::Instant::now();
    work();
    start.elapsed().as_secs_f64() * 1e3
}

/// `codegen-once/csharp 10000`: one generation in this process (the sources built first, not
/// timed), its time in ms on standard output: what a build script does.
fn codegen_once(language: &str, tools: usize) -> ExitCode {
    let Some(generator) = generator(language, tools) else {
        return usage();
    };
    println!("{}", time_generation(&generator));
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
    let schema_ok = registry.linked()[0].input_schema().is_object();
    let first_schema = first.elapsed();
    let all = std::time::Instant::now();
    for &tool in registry.linked() {
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
    buril_bench::resident_kib("/proc/self/status")
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: calls (floor|buril|outcome|rmcp|clone)/(three_fields|nested|invalid) [CALLS]\n       \
         calls codegen/(csharp|typescript) [TOOLS]\n       calls startup [TOOLS]\n       \
         calls paired/(three_fields|nested|invalid) [ROUNDS]\n       \
         calls codegen-linear/(csharp|typescript) [ROUNDS]\n       \
         calls codegen-cold/(csharp|typescript) [ROUNDS]\n       \
         calls codegen-once/(csharp|typescript) [TOOLS]"
    );
    ExitCode::from(2)
}

/// Calls `name` through the process-wide dispatcher and answers with the envelope.
#[inline]
fn call(name: &str, input: serde_json::Value) -> serde_json::Value {
    buril::Dispatcher::global()
        .invoke(name, input, buril::CallOptions::default())
        .into_envelope()
}
