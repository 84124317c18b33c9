//! The example tool families on a fresh sample project, each called as a client calls it: one
//! module per family.

#[path = "../common/mod.rs"]
mod common;

mod asset;
mod console;
mod editor;
mod gameobject;
mod scene;
mod script;
