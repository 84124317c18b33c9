//! The contents of a new scene.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::project::scene::{Component, GameObject, Scene, Vec3};

/// A Main Camera and a Directional Light, as the editor puts in a new scene.
pub fn basic() -> Scene {
    let mut camera = GameObject::new(1, "Main Camera");
    camera.tag = "MainCamera".to_owned();
    camera.transform.position = Vec3::new(0.0, 1.0, -10.0);
    camera.components = vec![
        component(
            "Camera",
            json!({"field_of_view": 60.0, "near_clip": 0.3, "far_clip": 1000.0}),
        ),
        component("AudioListener", json!({})),
    ];
    let mut light = GameObject::new(2, "Directional Light");
    light.transform.position = Vec3::new(0.0, 3.0, 0.0);
    light.transform.rotation = Vec3::new(50.0, -30.0, 0.0);
    light.components = vec![component(
        "Light",
        json!({"kind": "directional", "intensity": 1.0, "shadows": "soft"}),
    )];
    Scene {
        next_id: 3,
        objects: vec![camera, light],
    }
}

/// A scene with no objects.
pub fn empty() -> Scene {
    Scene {
        next_id: 1,
        objects: Vec::new(),
    }
}

/// A component from a JSON object of properties.
pub fn component(kind: &str, properties: Value) -> Component {
    let properties: BTreeMap<String, Value> = match properties {
        Value::Object(map) => map.into_iter().collect(),
        _ => BTreeMap::new(),
    };
    Component {
        kind: kind.to_owned(),
        properties,
    }
}
