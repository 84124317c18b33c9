//! The overhead of a call through the process-wide dispatcher, against the floor (hand-written
//! `serde_json::from_value`, the call, `to_value` into the same envelope) and against rmcp's
//! `ToolRouter::call` on the same tool. Inputs are cloned outside the timed part.

use std::hint::black_box;

use buril_bench::{floor, peer, place_input, spawn_input, spawn_invalid_input};
use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};

/// The floor, buril and rmcp on the same tool and input, in one group; the group is returned
/// open so that a case can add measurements of its own.
fn compare<'a>(
    c: &'a mut Criterion,
    group: &str,
    tool: &'static str,
    input: &serde_json::Value,
    floor: fn(serde_json::Value) -> serde_json::Value,
    harness: &peer::Harness,
) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(group);
    group.bench_function("floor", |b| {
        b.iter_batched(
            || input.clone(),
            |input| floor(black_box(input)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("buril", |b| {
        b.iter_batched(
            || input.clone(),
            |input| call(black_box(tool), black_box(input)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("rmcp", |b| {
        b.iter_batched(
            || peer::object(input.clone()),
            |input| harness.call(black_box(tool), black_box(input)),
            BatchSize::SmallInput,
        )
    });
    group
}

fn three_fields(c: &mut Criterion) {
    let input = spawn_input();
    let harness = peer::Harness::new();
    // Warm the lazily built schemas and validators.
    assert_eq!(call("bench_spawn", input.clone())["ok"], true);
    assert_eq!(call("bench_spawn_main", input.clone())["ok"], true);
    assert_eq!(floor::spawn(input.clone())["ok"], true);
    assert!(
        harness
            .call("bench_spawn", peer::object(input.clone()))
            .is_ok()
    );

    let mut group = compare(
        c,
        "dispatch/three_fields",
        "bench_spawn",
        &input,
        floor::spawn,
        &harness,
    );
    // A tool without `off_thread` runs on the dispatcher's main thread: the same call plus a
    // hand-over to that thread and back. Reported beside the bound, not held to it.
    group.bench_function("buril_main_thread", |b| {
        b.iter_batched(
            || input.clone(),
            |input| call(black_box("bench_spawn_main"), black_box(input)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn nested(c: &mut Criterion) {
    let input = place_input();
    let harness = peer::Harness::new();
    assert_eq!(call("bench_place", input.clone())["ok"], true);
    assert_eq!(floor::place(input.clone())["ok"], true);
    assert!(
        harness
            .call("bench_place", peer::object(input.clone()))
            .is_ok()
    );

    let group = compare(
        c,
        "dispatch/nested",
        "bench_place",
        &input,
        floor::place,
        &harness,
    );
    group.finish();
}

fn invalid(c: &mut Criterion) {
    let input = spawn_invalid_input();
    let harness = peer::Harness::new();
    let envelope = call("bench_spawn", input.clone());
    assert_eq!(envelope["type"], "validation");
    assert_eq!(envelope["problems"].as_array().map(Vec::len), Some(2));
    assert_eq!(floor::spawn(input.clone())["type"], "validation");
    // rmcp answers a tool result with `isError: true`.
    let answer = harness.call("bench_spawn", peer::object(input.clone()));
    assert!(
        format!("{answer:?}").contains("is_error: Some(true)"),
        "{answer:?}"
    );

    // serde stops at the first problem; buril reports both.
    let group = compare(
        c,
        "dispatch/invalid",
        "bench_spawn",
        &input,
        floor::spawn,
        &harness,
    );
    group.finish();
}

criterion_group!(benches, three_fields, nested, invalid);
criterion_main!(benches);

/// Calls `name` through the process-wide dispatcher and answers with the envelope.
#[inline]
fn call(name: &str, input: serde_json::Value) -> serde_json::Value {
    buril::Dispatcher::global()
        .invoke(name, input, buril::CallOptions::default())
        .into_envelope()
}
