//! Components: which types exist, and the tools that add and remove them.

use std::collections::BTreeMap;

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::project::Project;
use crate::project::scene::Component;
use crate::script::csharp;

/// The engine's own component types.
pub const BUILTIN: &[&str] = &[
    "Animator",
    "AudioListener",
    "AudioSource",
    "BoxCollider",
    "Camera",
    "CapsuleCollider",
    "CharacterController",
    "Light",
    "LineRenderer",
    "MeshCollider",
    "MeshFilter",
    "MeshRenderer",
    "ParticleSystem",
    "Rigidbody",
    "SphereCollider",
    "SpriteRenderer",
    "TrailRenderer",
];

/// Built-in types an object can have only one of.
const SINGLE: &[&str] = &[
    "Animator",
    "AudioListener",
    "Camera",
    "CharacterController",
    "Light",
    "MeshFilter",
    "MeshRenderer",
    "Rigidbody",
    "SpriteRenderer",
];

/// The canonical spelling of a component type: a built-in type or a `MonoBehaviour` script
/// class of the project, matched without regard to case.
pub fn resolve(project: &Project, kind: &str) -> Result<String, ToolError> {
    let kind = kind.trim();
    if kind.eq_ignore_ascii_case("Transform") {
        return Err(ToolError::invalid(
            "every game object has a Transform already; change it with gameobject_set_transform",
        ));
    }
    if let Some(builtin) = BUILTIN.iter().find(|b| b.eq_ignore_ascii_case(kind)) {
        return Ok((*builtin).to_owned());
    }
    let scripts = csharp::component_classes(project)?;
    if let Some(script) = scripts.iter().find(|s| s.eq_ignore_ascii_case(kind)) {
        return Ok(script.clone());
    }
    let scripts = if scripts.is_empty() {
        "none".to_owned()
    } else {
        scripts.join(", ")
    };
    Err(ToolError::invalid(format!(
        "unknown component type `{kind}`; built-in types are {}; the project's scripts are \
         {scripts}. Create a script with script_create to add a new type",
        BUILTIN.join(", ")
    )))
}

/// The first type of which `components` holds more than one although only one is allowed.
pub fn duplicate_single(components: &[Component]) -> Option<&str> {
    SINGLE
        .iter()
        .copied()
        .find(|single| components.iter().filter(|c| c.kind == *single).count() > 1)
}

/// The components of an object after a change.
#[derive(Debug, Serialize, JsonSchema)]
struct ComponentsChanged {
    /// The scene holding the object.
    scene: String,
    /// The object's id.
    id: u64,
    /// The object's name.
    name: String,
    /// The component type added or removed.
    component: String,
    /// The object's component types now, in order.
    components: Vec<String>,
}

/// Adds a component to a game object: a built-in type (`Rigidbody`, `BoxCollider`, `Light`,
/// ...) or a `MonoBehaviour` script of the project (`script_list` shows them), with optional
/// property values. Types an object can hold only once are refused when already present.
#[buril::tool(title = "Add component")]
fn gameobject_add_component(
    /// The game object's id.
    id: u64,
    /// The component type, e.g. `Rigidbody` or `Rotator`.
    component_type: String,
    /// Property values by name, e.g. `{"mass": 2.0}`. Default: none.
    properties: Option<BTreeMap<String, Value>>,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<ComponentsChanged, ToolError> {
    let project = ctx.state::<Project>()?;
    let kind = resolve(project, &component_type)?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    let scene_name = open.name().to_owned();
    let object = open.object(id)?;
    if SINGLE.contains(&kind.as_str()) && object.components.iter().any(|c| c.kind == kind) {
        return Err(ToolError::invalid(format!(
            "`{}` (id {id}) already has a {kind}, and an object can have only one; remove it \
             with gameobject_remove_component first",
            object.name
        )));
    }
    let object = open.object_mut(id)?;
    object.components.push(Component {
        kind: kind.clone(),
        properties: properties.unwrap_or_default(),
    });
    Ok(ComponentsChanged {
        scene: scene_name,
        id,
        name: object.name.clone(),
        component: kind,
        components: object.component_types(),
    })
}

/// Removes a component from a game object: the first one of the given type, or the one at
/// `index` among the components of that type.
#[buril::tool(destructive, title = "Remove component")]
fn gameobject_remove_component(
    /// The game object's id.
    id: u64,
    /// The component type to remove, e.g. `Rigidbody`.
    component_type: String,
    /// Which of several components of that type, counting from 0. Default: 0.
    index: Option<u32>,
    /// The open scene holding the object, by name or path. Default: the active scene.
    scene: Option<String>,
    ctx: &buril::Context,
) -> Result<ComponentsChanged, ToolError> {
    let project = ctx.state::<Project>()?;
    let mut editor = project.editor();
    let open = editor.scene_mut(scene.as_deref())?;
    let scene_name = open.name().to_owned();
    let object = open.object(id)?;
    let wanted = component_type.trim();
    let nth = usize::try_from(index.unwrap_or(0)).unwrap_or(usize::MAX);
    let Some(position) = object
        .components
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind.eq_ignore_ascii_case(wanted))
        .nth(nth)
        .map(|(i, _)| i)
    else {
        let have = object.component_types();
        return Err(ToolError::invalid(format!(
            "`{}` (id {id}) has no {wanted} component{}; its components are: {}",
            object.name,
            if nth > 0 {
                format!(" at index {nth}")
            } else {
                String::new()
            },
            if have.is_empty() {
                "none besides its Transform".to_owned()
            } else {
                have.join(", ")
            }
        )));
    };
    let object = open.object_mut(id)?;
    let removed = object.components.remove(position);
    Ok(ComponentsChanged {
        scene: scene_name,
        id,
        name: object.name.clone(),
        component: removed.kind,
        components: object.component_types(),
    })
}
