//! The work every variant does: the argument and result types and the tool bodies, shared so
//! that only the dispatch differs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The three-field input, as one struct (the floor and rmcp's `Parameters<T>` take this).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SpawnArgs {
    /// The object's name.
    pub name: String,
    /// Position along x, in metres.
    pub x: f64,
    /// An optional tag.
    pub tag: Option<String>,
}

/// How long to hold a call (the memory benchmark's calls in flight).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct HoldArgs {
    /// Milliseconds to wait before answering.
    pub ms: u64,
}

/// What holding answers (buril's answer to the same tool: its `u64` as `result`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Held {
    /// The milliseconds waited.
    pub result: u64,
}

/// What spawning answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Spawned {
    pub name: String,
    pub x: f64,
    pub tagged: bool,
}

pub fn spawn(name: String, x: f64, tag: Option<String>) -> Spawned {
    Spawned {
        name,
        x: x * 2.0,
        tagged: tag.is_some(),
    }
}

/// A point or rotation.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Where an object is.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Transform {
    pub position: Vec3,
    pub rotation: Vec3,
    pub scale: f64,
}

/// The layer an object is drawn on.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    Default,
    Props,
    Ui,
}

/// What to place.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Placement {
    /// The object's name.
    pub name: String,
    /// Where it goes.
    pub transform: Transform,
    /// Labels.
    pub tags: Vec<String>,
    /// The layer.
    pub layer: Layer,
}

/// The nested input, as one struct.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PlaceArgs {
    /// The scene to place the object in.
    pub scene: String,
    /// What to place, and where.
    pub object: Placement,
}

/// What placing answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Placed {
    pub scene: String,
    pub name: String,
    pub distance: f64,
    pub tags: usize,
}

pub fn place(scene: String, object: Placement) -> Placed {
    let p = &object.transform.position;
    Placed {
        scene,
        distance: (p.x * p.x + p.y * p.y + p.z * p.z).sqrt() * object.transform.scale,
        tags: object.tags.len(),
        name: object.name,
    }
}
