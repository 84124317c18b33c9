//! Code generation for 1,000 and 10,000 tools, to C# and to TypeScript, in memory
//! (`Generator::generate`: normalisation into the IR, then the writer; no disk writes).

use buril_bench::synthetic;
use buril_codegen::Generator;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn codegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("codegen");
    group.sample_size(10);
    for n in [1_000usize, 10_000] {
        let sources = synthetic::sources(n);
        let csharp = Generator::new()
            .sources(sources.clone())
            .csharp("/tmp/out/csharp");
        let typescript = Generator::new()
            .sources(sources.clone())
            .typescript("/tmp/out/typescript");
        assert!(!csharp.generate().expect("C#").is_empty());
        assert!(!typescript.generate().expect("TypeScript").is_empty());
        group.bench_function(BenchmarkId::new("csharp", n), |b| {
            b.iter(|| csharp.generate().expect("C#").len())
        });
        group.bench_function(BenchmarkId::new("typescript", n), |b| {
            b.iter(|| typescript.generate().expect("TypeScript").len())
        });
    }
    group.finish();
}

criterion_group!(benches, codegen);
criterion_main!(benches);
