//! Generates the C# and TypeScript of every codegen corpus file given on the command line into
//! `OUT/<n>/`, for compile_sample.sh to compile. Inputs the generator refuses are skipped.

use std::path::PathBuf;

use buril_codegen::Generator;

#[path = "codegen_input.rs"]
mod codegen_input;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let out = PathBuf::from(args.next().expect("usage: codegen_sample OUT FILE..."));
    let mut generated = 0;
    for (index, file) in args.enumerate() {
        let data = std::fs::read(&file).expect("a corpus file");
        let tool = codegen_input::tool_from(&data);
        let dir = out.join(index.to_string());
        let generator = Generator::new()
            .sources(vec![tool])
            .csharp(dir.join("csharp"))
            .typescript(dir.join("typescript"));
        match generator.write() {
            Ok(_) => generated += 1,
            Err(_) => {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
    println!("{generated}");
}
