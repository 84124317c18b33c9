//! The generator without a compiler: the builder and the `codegen` subcommand (what is
//! written, checked and removed), and the IR of the example tools and of the zoo of edge cases.

#[path = "../common/mod.rs"]
mod common;

mod generator;
mod ir_tools;
