//! Schema normalisation and the C#, TypeScript and skills writers, over arbitrary names,
//! descriptions and schemas: they answer files or an error, never a panic. (Whether the files
//! compile is checked on a sample, outside the loop: compile_sample.sh.)

#![no_main]

use buril_codegen::Generator;
use libfuzzer_sys::fuzz_target;

#[path = "../src/codegen_input.rs"]
mod codegen_input;

fuzz_target!(|data: &[u8]| {
    let tool = codegen_input::tool_from(data);
    let generator = Generator::new()
        .sources(vec![tool])
        .out_dir("/nonexistent/out");
    if let Ok(files) = generator.generate() {
        assert!(!files.is_empty());
    }
});
