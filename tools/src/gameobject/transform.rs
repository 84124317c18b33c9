//! `gameobject_set_transform`: position, rotation and scale.

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::Project;
use crate::project::scene::{Transform, Vec3};

/// A transform before and after a change.
#[derive(Debug, Serialize, JsonSchema)]
struct TransformChanged {
    /// The scene holding the object.
    scene: String,
    /// The object's id.
    id: u64,
    /// The object's name.
    name: String,
    /// The local transform before the change.
    before: Transform,
    /// The local transform now.
    after: Transform,
}

/// Sets a game object's local position, rotation and/or scale (relative to its parent); the
/// parts not given keep their values. Formerly `gameobject_set_position`, which still works.
#[buril::tool(
    idempotent,
    aliases = ["gameobject_set_position"],
    title = "Set transform"
)]
fn gameobject_set_transform(
    /// The game object's id.
    id: u64,
    /// The local position in metres, e.g. `{"x": 0, "y": 1, "z": 5}`.
    position: Option<Vec3>,
    /// The local rotation, Euler angles in degrees.
    rotation: Option<Vec3>,
    /// The local scale.
    scale: Option<Vec3>,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<TransformChanged, ToolError> {
    if position.is_none() && rotation.is_none() && scale.is_none() {
        return Err(ToolError::invalid(
            "nothing to change: give at least one of `position`, `rotation` and `scale`",
        ));
    }
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    let scene_name = open.name().to_owned();
    let object = open.object_mut(id)?;
    let before = object.transform;
    let transform = &mut object.transform;
    transform.position = position.unwrap_or(transform.position);
    transform.rotation = rotation.unwrap_or(transform.rotation);
    transform.scale = scale.unwrap_or(transform.scale);
    Ok(TransformChanged {
        scene: scene_name,
        id,
        name: object.name.clone(),
        before,
        after: object.transform,
    })
}
