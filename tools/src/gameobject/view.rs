//! How a game object is shown to the caller, and checks shared by the `gameobject_` tools.

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::editor::OpenScene;
use crate::project::scene::{Component, Transform};

/// Everything about one game object.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ObjectInfo {
    /// The scene holding the object.
    pub scene: String,
    /// The object's id.
    pub id: u64,
    /// The object's name.
    pub name: String,
    /// The hierarchy path, e.g. `Player/Weapon`.
    pub path: String,
    /// The parent's id; null for a root object.
    pub parent: Option<u64>,
    /// Whether the object itself is active.
    pub active: bool,
    /// Whether the object and all its ancestors are active.
    pub active_in_hierarchy: bool,
    /// The tag.
    pub tag: String,
    /// The layer number.
    pub layer: u32,
    /// The local transform.
    pub transform: Transform,
    /// The components besides the transform, in order.
    pub components: Vec<Component>,
    /// The ids of the direct children, in order.
    pub children: Vec<u64>,
}

impl ObjectInfo {
    /// The object `id` of `open`.
    pub fn of(open: &OpenScene, id: u64) -> Result<Self, ToolError> {
        let object = open.object(id)?;
        let scene = &open.scene;
        Ok(ObjectInfo {
            scene: open.name().to_owned(),
            id,
            name: object.name.clone(),
            path: scene.path_of(id),
            parent: object.parent,
            active: object.active,
            active_in_hierarchy: scene.active_in_hierarchy(id),
            tag: object.tag.clone(),
            layer: object.layer,
            transform: object.transform,
            components: object.components.clone(),
            children: scene.children(id).map(|c| c.id).collect(),
        })
    }
}

/// A checked object name: not blank, and without `/` (which separates hierarchy paths).
pub fn object_name(name: &str) -> Result<String, ToolError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ToolError::invalid(
            "`name` is blank; give the object a name",
        ));
    }
    if name.contains('/') {
        return Err(ToolError::invalid(format!(
            "`name` `{name}` contains `/`, which separates hierarchy paths; use another character"
        )));
    }
    Ok(name.to_owned())
}

/// A checked tag: not blank, no spaces at either end.
pub fn tag(tag: &str) -> Result<String, ToolError> {
    let tag = tag.trim();
    if tag.is_empty() {
        return Err(ToolError::invalid(
            "`tag` is blank; leave it out for `Untagged`",
        ));
    }
    Ok(tag.to_owned())
}
