//! Lookup and dispatch with 10 tools and with 10,000 (synthetic) tools.
//!
//! Each iteration takes the next of 1,000 name strings (the same count at both sizes, so that
//! the caller's side is equally warm):
//! - `get/N`, `dispatch/N`: the names of up to 1,000 different tools spread over the registry
//!   (all 10 tools, or 1,000 of the 10,000), so a large registry pays the cache misses of
//!   touching many tools, each with its own schema validator;
//! - `get_same_tools/N`, `dispatch_same_tools/N`: the names of the same 10 tools at both sizes:
//!   only the size of the registry differs.

use std::hint::black_box;

use buril::Dispatcher;
use buril_bench::synthetic;
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;

const SIZES: [usize; 2] = [10, 10_000];
const NAMES: usize = 1_000;

fn lookup(c: &mut Criterion) {
    for (group_name, distinct) in [("lookup/get", NAMES), ("lookup/get_same_tools", 10)] {
        let mut group = c.benchmark_group(group_name);
        for n in SIZES {
            let registry = synthetic::registry(n);
            let names = synthetic::spread_names(n, distinct, NAMES);
            let mut next = 0usize;
            group.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter(|| {
                    next = (next + 1) % names.len();
                    registry.get(black_box(names[next].as_str()))
                })
            });
        }
        group.finish();
    }
}

fn dispatch(c: &mut Criterion) {
    for (group_name, distinct) in [
        ("lookup/dispatch", NAMES),
        ("lookup/dispatch_same_tools", 10),
    ] {
        let mut group = c.benchmark_group(group_name);
        for n in SIZES {
            let registry = synthetic::registry(n);
            let names = synthetic::spread_names(n, distinct, NAMES);
            let dispatcher = Dispatcher::builder().registry(registry).build();
            let input = json!({"text": "hello"});
            for name in &names {
                assert_eq!(
                    dispatcher
                        .invoke(name, input.clone(), buril::CallOptions::default())
                        .into_envelope()["ok"],
                    true
                );
            }
            let mut next = 0usize;
            group.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter_batched(
                    || {
                        next = (next + 1) % names.len();
                        (names[next].as_str(), input.clone())
                    },
                    |(name, input)| {
                        dispatcher
                            .invoke(
                                black_box(name),
                                black_box(input),
                                buril::CallOptions::default(),
                            )
                            .into_envelope()
                    },
                    BatchSize::SmallInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, lookup, dispatch);
criterion_main!(benches);
