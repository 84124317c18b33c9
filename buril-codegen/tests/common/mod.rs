//! Shared by the codegen tests.

#![allow(dead_code)]

pub mod every_tool;
pub mod pipes;
pub mod samples;
pub mod tools_server;
pub mod zoo;
