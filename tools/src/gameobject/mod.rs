//! The `gameobject_` family: the game objects of the open scenes.
//!
//! Every change stays in memory and marks its scene dirty until `scene_save` writes it.

mod components;
mod create;
mod find;
mod transform;
mod view;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::Project;
use view::ObjectInfo;

/// Everything about one game object: name, hierarchy path, parent and children, active flags,
/// tag, layer, transform and components with their properties.
#[buril::tool(read_only, idempotent, title = "Get game object")]
fn gameobject_get(
    /// The game object's id (`gameobject_find` and `scene_list_gameobjects` give them).
    id: u64,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<ObjectInfo, ToolError> {
    let project = ctx.state::<Project>()?;
    let editor = project.editor();
    ObjectInfo::of(editor.scene(scene.as_deref())?, id)
}

/// One object that was destroyed.
#[derive(Debug, Serialize, JsonSchema)]
struct DestroyedObject {
    /// Its id (never reused).
    id: u64,
    /// Its name.
    name: String,
}

/// The result of destroying an object.
#[derive(Debug, Serialize, JsonSchema)]
struct Destroyed {
    /// The scene it was in.
    scene: String,
    /// The object and its descendants, parents first.
    destroyed: Vec<DestroyedObject>,
}

/// Destroys a game object and all its children, and drops them from the selection.
#[buril::tool(destructive, idempotent = false, title = "Destroy game object")]
fn gameobject_destroy(
    /// The game object's id.
    id: u64,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<Destroyed, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    open.object(id)?;
    let removed = open.scene.remove_subtree(id);
    open.dirty = true;
    let scene_name = open.name().to_owned();
    editor.prune_selection();
    Ok(Destroyed {
        scene: scene_name,
        destroyed: removed
            .into_iter()
            .map(|o| DestroyedObject {
                id: o.id,
                name: o.name,
            })
            .collect(),
    })
}

/// The result of renaming an object.
#[derive(Debug, Serialize, JsonSchema)]
struct Renamed {
    /// The object's id.
    id: u64,
    /// The name before.
    old_name: String,
    /// The name now.
    name: String,
    /// The hierarchy path now.
    path: String,
}

/// Renames a game object. Names need not be unique; they cannot contain `/`.
#[buril::tool(idempotent, title = "Rename game object")]
fn gameobject_rename(
    /// The game object's id.
    id: u64,
    /// The new name.
    name: String,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<Renamed, ToolError> {
    let name = view::object_name(&name)?;
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    let object = open.object_mut(id)?;
    let old_name = std::mem::replace(&mut object.name, name.clone());
    Ok(Renamed {
        id,
        old_name,
        name,
        path: open.scene.path_of(id),
    })
}

/// An object's active state after a change.
#[derive(Debug, Serialize, JsonSchema)]
struct ActiveChanged {
    /// The object's id.
    id: u64,
    /// The object's name.
    name: String,
    /// Whether the object itself is active now.
    active: bool,
    /// Whether it is active in the hierarchy (an inactive ancestor keeps it inactive).
    active_in_hierarchy: bool,
}

/// Activates or deactivates a game object. Its children keep their own flags but are inactive
/// in the hierarchy while it is inactive.
#[buril::tool(idempotent, title = "Set game object active")]
fn gameobject_set_active(
    /// The game object's id.
    id: u64,
    /// true to activate, false to deactivate.
    active: bool,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<ActiveChanged, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    let object = open.object_mut(id)?;
    object.active = active;
    let name = object.name.clone();
    Ok(ActiveChanged {
        id,
        name,
        active,
        active_in_hierarchy: open.scene.active_in_hierarchy(id),
    })
}

/// The result of reparenting an object.
#[derive(Debug, Serialize, JsonSchema)]
struct Reparented {
    /// The object's id.
    id: u64,
    /// The object's name.
    name: String,
    /// The parent before; null for a root object.
    old_parent: Option<u64>,
    /// The parent now; null for a root object.
    parent: Option<u64>,
    /// The hierarchy path now.
    path: String,
}

/// Moves a game object under another parent (as its last child), or to the root when `parent`
/// is left out. The local transform is kept, so the object moves with its new parent. An
/// object cannot move under itself or one of its descendants.
#[buril::tool(title = "Set parent")]
fn gameobject_set_parent(
    /// The game object's id.
    id: u64,
    /// The new parent's id. Default: none, making the object a root object.
    parent: Option<u64>,
    /// The open scene holding both objects, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<Reparented, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    let name = open.object(id)?.name.clone();
    if let Some(parent) = parent {
        let parent_name = &open.object(parent)?.name;
        if open.scene.subtree(id).contains(&parent) {
            return Err(ToolError::invalid(format!(
                "cannot move `{name}` (id {id}) under `{parent_name}` (id {parent}): an object \
                 cannot be its own parent or the child of its own descendant"
            )));
        }
    }
    let position = open
        .scene
        .objects
        .iter()
        .position(|o| o.id == id)
        .ok_or_else(|| open.missing(id))?;
    let mut object = open.scene.objects.remove(position);
    let old_parent = std::mem::replace(&mut object.parent, parent);
    open.scene.objects.push(object);
    open.dirty = true;
    Ok(Reparented {
        id,
        name,
        old_parent,
        parent,
        path: open.scene.path_of(id),
    })
}
