//! Agent teams over the example tools: scripted and OpenAI-compatible models, views of linked
//! and provided tools, runs followed from other processes through a shared task store,
//! recorded traces and their replay, and a trace write killed mid-way. (A run's spans are
//! `spans.rs`, in a binary of its own: its subscriber is the process's global one.)

#[path = "../common/mod.rs"]
mod common;

mod killed_write;
mod openai;
mod provided_views;
mod replay;
mod replicas;
mod scripted;
