//! The scene file format: game objects with ids, a parent, a transform and components.
//!
//! A scene is a JSON file (`*.scene`) holding a flat list of game objects. The hierarchy is
//! given by each object's `parent` id; siblings keep the order of the list.

use std::collections::{BTreeMap, HashSet};

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A vector of three numbers: a position in metres, Euler angles in degrees, or a scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Vec3 {
    /// The x component (right).
    pub x: f64,
    /// The y component (up).
    pub y: f64,
    /// The z component (forward).
    pub z: f64,
}

impl Vec3 {
    /// `(0, 0, 0)`.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);
    /// `(1, 1, 1)`.
    pub const ONE: Vec3 = Vec3::new(1.0, 1.0, 1.0);

    /// A vector from its components.
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }
}

/// Where a game object is, relative to its parent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Transform {
    /// Local position, in metres.
    pub position: Vec3,
    /// Local rotation as Euler angles, in degrees.
    pub rotation: Vec3,
    /// Local scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            position: Vec3::ZERO,
            rotation: Vec3::ZERO,
            scale: Vec3::ONE,
        }
    }
}

/// A component attached to a game object: its type and its serialized properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Component {
    /// The component type, e.g. `Camera`, `Rigidbody` or a script class such as `Rotator`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The component's properties by name.
    #[serde(default)]
    pub properties: BTreeMap<String, Value>,
}

/// One game object of a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameObject {
    /// Unique within the scene; never reused.
    pub id: u64,
    /// The display name; need not be unique.
    pub name: String,
    /// The parent's id; `None` for a root object.
    #[serde(default)]
    pub parent: Option<u64>,
    /// Whether the object itself is active.
    #[serde(default = "active_default")]
    pub active: bool,
    /// The tag, `Untagged` by default.
    #[serde(default = "tag_default")]
    pub tag: String,
    /// The layer number, 0 to 31.
    #[serde(default)]
    pub layer: u32,
    /// The local transform.
    #[serde(default)]
    pub transform: Transform,
    /// The components besides the transform, in order.
    #[serde(default)]
    pub components: Vec<Component>,
}

fn active_default() -> bool {
    true
}

/// The tag of an object that has none.
pub const UNTAGGED: &str = "Untagged";

fn tag_default() -> String {
    UNTAGGED.to_owned()
}

impl GameObject {
    /// A new active, untagged object with the default transform and no components.
    pub fn new(id: u64, name: impl Into<String>) -> Self {
        GameObject {
            id,
            name: name.into(),
            parent: None,
            active: true,
            tag: tag_default(),
            layer: 0,
            transform: Transform::default(),
            components: Vec::new(),
        }
    }

    /// The component type names, in order.
    pub fn component_types(&self) -> Vec<String> {
        self.components.iter().map(|c| c.kind.clone()).collect()
    }
}

/// The contents of a scene file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Scene {
    /// The id the next new object gets.
    #[serde(default)]
    pub next_id: u64,
    /// Every object, parents and children alike; siblings keep this order.
    #[serde(default)]
    pub objects: Vec<GameObject>,
}

impl Scene {
    /// Parses and checks a scene file's text: ids unique, parents present, no cycles.
    pub fn parse(text: &str, path: &str) -> Result<Scene, ToolError> {
        let mut scene: Scene = serde_json::from_str(text).map_err(|error| {
            ToolError::runtime(format!(
                "the scene file `{path}` is not a valid scene: {error}"
            ))
        })?;
        let mut ids = HashSet::new();
        for object in &scene.objects {
            if !ids.insert(object.id) {
                return Err(ToolError::runtime(format!(
                    "the scene file `{path}` is corrupt: the id {} is used twice",
                    object.id
                )));
            }
        }
        for object in &scene.objects {
            if let Some(parent) = object.parent
                && !ids.contains(&parent)
            {
                return Err(ToolError::runtime(format!(
                    "the scene file `{path}` is corrupt: `{}` (id {}) has the parent id {parent}, \
                     which does not exist",
                    object.name, object.id
                )));
            }
            if scene.ancestors(object.id).contains(&object.id) {
                return Err(ToolError::runtime(format!(
                    "the scene file `{path}` is corrupt: `{}` (id {}) is its own ancestor",
                    object.name, object.id
                )));
            }
        }
        let max = scene.objects.iter().map(|o| o.id).max().unwrap_or(0);
        scene.next_id = scene.next_id.max(max + 1);
        Ok(scene)
    }

    /// The scene file's text.
    pub fn to_json(&self) -> Result<String, ToolError> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }

    /// The object with `id`.
    pub fn get(&self, id: u64) -> Option<&GameObject> {
        self.objects.iter().find(|o| o.id == id)
    }

    /// A fresh id.
    pub fn allocate_id(&mut self) -> u64 {
        let max = self.objects.iter().map(|o| o.id).max().unwrap_or(0);
        let id = self.next_id.max(max + 1);
        self.next_id = id + 1;
        id
    }

    /// The root objects, in order.
    pub fn roots(&self) -> impl Iterator<Item = &GameObject> {
        self.objects.iter().filter(|o| o.parent.is_none())
    }

    /// The direct children of `id`, in order.
    pub fn children(&self, id: u64) -> impl Iterator<Item = &GameObject> {
        self.objects.iter().filter(move |o| o.parent == Some(id))
    }

    /// The ids of the parent, grandparent, ... of `id` (stops at a cycle).
    pub fn ancestors(&self, id: u64) -> Vec<u64> {
        let mut chain = Vec::new();
        let mut current = self.get(id).and_then(|o| o.parent);
        while let Some(parent) = current {
            if chain.contains(&parent) {
                chain.push(parent);
                break;
            }
            chain.push(parent);
            current = self.get(parent).and_then(|o| o.parent);
        }
        chain
    }

    /// `id` and everything below it, parents before children.
    pub fn subtree(&self, id: u64) -> Vec<u64> {
        let mut out = vec![id];
        let mut next = 0;
        while next < out.len() {
            let current = out[next];
            out.extend(self.children(current).map(|c| c.id));
            next += 1;
        }
        out
    }

    /// The hierarchy path, e.g. `Player/Weapon`.
    pub fn path_of(&self, id: u64) -> String {
        let mut names: Vec<&str> = self
            .ancestors(id)
            .iter()
            .rev()
            .filter_map(|a| self.get(*a).map(|o| o.name.as_str()))
            .collect();
        if let Some(object) = self.get(id) {
            names.push(&object.name);
        }
        names.join("/")
    }

    /// Whether `id` and all its ancestors are active.
    pub fn active_in_hierarchy(&self, id: u64) -> bool {
        self.get(id).is_some_and(|o| o.active)
            && self
                .ancestors(id)
                .iter()
                .all(|a| self.get(*a).is_some_and(|o| o.active))
    }

    /// Removes `id` and its descendants; returns the removed objects, parents first.
    pub fn remove_subtree(&mut self, id: u64) -> Vec<GameObject> {
        let ids = self.subtree(id);
        let mut removed: Vec<GameObject> = Vec::with_capacity(ids.len());
        self.objects.retain(|o| {
            if ids.contains(&o.id) {
                removed.push(o.clone());
                false
            } else {
                true
            }
        });
        removed.sort_by_key(|o| ids.iter().position(|i| *i == o.id));
        removed
    }

    /// Replaces every string property equal to `from`, or lying under the folder `from`, with
    /// the same path under `to`. Returns how many properties changed.
    pub fn rewrite_references(&mut self, from: &str, to: &str) -> usize {
        let mut changed = 0;
        for object in &mut self.objects {
            for component in &mut object.components {
                for value in component.properties.values_mut() {
                    changed += rewrite_value(value, from, to);
                }
            }
        }
        changed
    }

    /// Whether any string property names `path` or something under it.
    pub fn references(&self, path: &str) -> bool {
        self.objects.iter().any(|o| {
            o.components
                .iter()
                .any(|c| c.properties.values().any(|v| mentions(v, path)))
        })
    }
}

fn rewrite_value(value: &mut Value, from: &str, to: &str) -> usize {
    match value {
        Value::String(text) => {
            if text == from {
                *text = to.to_owned();
                1
            } else if let Some(rest) = text.strip_prefix(from).filter(|r| r.starts_with('/')) {
                *text = format!("{to}{rest}");
                1
            } else {
                0
            }
        }
        Value::Array(items) => items.iter_mut().map(|v| rewrite_value(v, from, to)).sum(),
        Value::Object(map) => map.values_mut().map(|v| rewrite_value(v, from, to)).sum(),
        _ => 0,
    }
}

fn mentions(value: &Value, path: &str) -> bool {
    match value {
        Value::String(text) => super::paths::is_within(text, path),
        Value::Array(items) => items.iter().any(|v| mentions(v, path)),
        Value::Object(map) => map.values().any(|v| mentions(v, path)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Scene {
        let mut scene = Scene::default();
        let mut root = GameObject::new(1, "Player");
        root.components.push(Component {
            kind: "MeshRenderer".into(),
            properties: [(
                "material".to_owned(),
                Value::from("Assets/Materials/Red.mat"),
            )]
            .into_iter()
            .collect(),
        });
        let mut child = GameObject::new(2, "Weapon");
        child.parent = Some(1);
        let mut grandchild = GameObject::new(3, "Tip");
        grandchild.parent = Some(2);
        grandchild.active = true;
        scene.objects = vec![root, child, grandchild];
        scene.next_id = 4;
        scene
    }

    #[test]
    fn hierarchy_queries() {
        let scene = sample();
        assert_eq!(scene.path_of(3), "Player/Weapon/Tip");
        assert_eq!(scene.subtree(1), vec![1, 2, 3]);
        assert_eq!(scene.ancestors(3), vec![2, 1]);
    }

    #[test]
    fn inactive_parent_hides_children() {
        let mut scene = sample();
        scene.objects[1].active = false;
        assert!(!scene.active_in_hierarchy(3));
        assert!(scene.active_in_hierarchy(1));
    }

    #[test]
    fn rewrites_references_under_a_folder() {
        let mut scene = sample();
        assert!(scene.references("Assets/Materials"));
        assert_eq!(
            scene.rewrite_references("Assets/Materials", "Assets/Art"),
            1
        );
        let material = &scene.get(1).unwrap().components[0].properties["material"];
        assert_eq!(material, "Assets/Art/Red.mat");
    }

    #[test]
    fn rejects_corrupt_files() {
        let text = r#"{"objects":[{"id":1,"name":"A","parent":2}]}"#;
        assert!(Scene::parse(text, "x.scene").is_err());
        let text = r#"{"objects":[{"id":1,"name":"A"},{"id":1,"name":"B"}]}"#;
        assert!(Scene::parse(text, "x.scene").is_err());
        let text = r#"{"objects":[{"id":1,"name":"A","parent":2},{"id":2,"name":"B","parent":1}]}"#;
        assert!(Scene::parse(text, "x.scene").is_err());
        let scene = Scene::parse(r#"{"objects":[{"id":7,"name":"A"}]}"#, "x.scene").unwrap();
        assert_eq!(scene.next_id, 8);
    }
}
