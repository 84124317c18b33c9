//! Registry start-up with 10,000 tools. `buril::registry()` runs `Registry::new` over
//! the linker section once; this times `Registry::new` over 10,000 descriptors (the
//! descriptors themselves are statics in a real binary, built once here). Schemas are built
//! lazily, per tool, on first use: `first_schema` times that for one tool, and `all_schemas`
//! for every tool (what listing every tool costs once).

use std::hint::black_box;

use buril::Registry;
use buril_bench::synthetic;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

fn startup(c: &mut Criterion) {
    let mut group = c.benchmark_group("startup");
    group.sample_size(20);
    let descriptors = synthetic::descriptors(10_000);
    group.bench_function("registry_new/10000", |b| {
        b.iter_batched(
            || descriptors.clone(),
            |descriptors| Registry::new(black_box(descriptors)).map(|r| r.len()),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("registry_new/10", |b| {
        b.iter_batched(
            || descriptors[..10].to_vec(),
            |descriptors| Registry::new(black_box(descriptors)).map(|r| r.len()),
            BatchSize::SmallInput,
        )
    });
    // Fresh descriptors per iteration, so that every schema is built from scratch.
    group.bench_function("first_schema", |b| {
        b.iter_batched(
            || synthetic::descriptors(1),
            |descriptors| black_box(descriptors[0].input_schema().is_object()),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);
