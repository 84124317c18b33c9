//! `gameobject_create`, which takes its whole input as one struct.

use std::collections::BTreeMap;

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::components;
use super::view::{self, ObjectInfo};
use crate::project::Project;
use crate::project::scene::{Component, GameObject, Vec3};
use crate::scene::template::component;

/// A built-in shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Primitive {
    /// No shape: only a transform.
    #[default]
    Empty,
    /// A 1 m cube with a box collider.
    Cube,
    /// A 1 m sphere with a sphere collider.
    Sphere,
    /// A 2 m capsule with a capsule collider.
    Capsule,
    /// A 2 m cylinder with a capsule collider.
    Cylinder,
    /// A 10 m plane with a mesh collider.
    Plane,
    /// A 1 m quad with a mesh collider.
    Quad,
}

impl Primitive {
    /// The mesh, renderer and collider the shape brings.
    fn components(self) -> Vec<Component> {
        let (mesh, collider) = match self {
            Primitive::Empty => return Vec::new(),
            Primitive::Cube => ("Cube", "BoxCollider"),
            Primitive::Sphere => ("Sphere", "SphereCollider"),
            Primitive::Capsule => ("Capsule", "CapsuleCollider"),
            Primitive::Cylinder => ("Cylinder", "CapsuleCollider"),
            Primitive::Plane => ("Plane", "MeshCollider"),
            Primitive::Quad => ("Quad", "MeshCollider"),
        };
        vec![
            component("MeshFilter", json!({ "mesh": mesh })),
            component("MeshRenderer", json!({ "material": "Default-Material" })),
            component(collider, json!({})),
        ]
    }
}

/// A component to add to the new object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ComponentSpec {
    /// The component type: built-in (`Rigidbody`, `Light`, ...) or a script class.
    #[serde(rename = "type")]
    kind: String,
    /// Property values by name.
    #[serde(default)]
    properties: BTreeMap<String, Value>,
}

/// What to create.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateArgs {
    /// The new object's name, e.g. `Enemy`; need not be unique.
    name: String,
    /// The open scene to create it in, by name or path. Default: the active scene.
    scene: Option<String>,
    /// The parent object's id. Default: none, a root object.
    parent: Option<u64>,
    /// A built-in shape, which brings a mesh, a renderer and a collider. Default: `empty`.
    #[serde(default)]
    primitive: Primitive,
    /// Local position in metres. Default: the origin.
    position: Option<Vec3>,
    /// Local rotation, Euler angles in degrees. Default: none.
    rotation: Option<Vec3>,
    /// Local scale. Default: 1 on each axis.
    scale: Option<Vec3>,
    /// The tag. Default: `Untagged`.
    tag: Option<String>,
    /// Whether the object starts active. Default: true.
    active: Option<bool>,
    /// More components, added after the primitive's.
    #[serde(default)]
    components: Vec<ComponentSpec>,
    /// Select the new object (the selection belongs to the active scene). Default: false.
    select: Option<bool>,
}

/// Creates a game object in an open scene: empty or a built-in shape, with an optional parent,
/// transform, tag and components. The scene is marked as having unsaved changes; call
/// `scene_save` to write it.
#[buril::tool(title = "Create game object")]
fn gameobject_create(
    buril::Input(args): buril::Input<CreateArgs>,
    ctx: &buril::Context,
) -> Result<ObjectInfo, ToolError> {
    let project = ctx.state::<Project>()?;
    let name = view::object_name(&args.name)?;
    let tag = args.tag.as_deref().map(view::tag).transpose()?;
    let mut extra = Vec::with_capacity(args.components.len());
    for spec in args.components {
        extra.push(Component {
            kind: components::resolve(project, &spec.kind)?,
            properties: spec.properties,
        });
    }
    let mut all = args.primitive.components();
    all.extend(extra);
    if let Some(kind) = components::duplicate_single(&all) {
        return Err(ToolError::invalid(format!(
            "the object would have two {kind} components, and it can have only one (the \
             `primitive` brings a MeshFilter and a MeshRenderer); remove the extra one from \
             `components`"
        )));
    }
    let mut editor = project.editor();
    let index = editor.index(args.scene.as_deref())?;
    let select = args.select == Some(true);
    if select && !editor.is_active(args.scene.as_deref())? {
        return Err(ToolError::invalid(
            "`select` works in the active scene only; call scene_set_active first, or leave \
             `select` out",
        ));
    }
    let open = &mut editor.scenes[index];
    if let Some(parent) = args.parent {
        open.object(parent)?;
    }
    let id = open.scene.allocate_id();
    let mut object = GameObject::new(id, name);
    object.parent = args.parent;
    object.active = args.active.unwrap_or(true);
    if let Some(tag) = tag {
        object.tag = tag;
    }
    object.transform.position = args.position.unwrap_or(Vec3::ZERO);
    object.transform.rotation = args.rotation.unwrap_or(Vec3::ZERO);
    object.transform.scale = args.scale.unwrap_or(Vec3::ONE);
    object.components = all;
    open.scene.objects.push(object);
    open.dirty = true;
    let info = ObjectInfo::of(open, id)?;
    if select {
        editor.selection = vec![id];
    }
    Ok(info)
}
