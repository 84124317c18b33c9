//! `scene_list_gameobjects`: the hierarchy of an open scene as a tree.

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use crate::project::Project;
use crate::project::scene::{GameObject, Scene};

/// One game object in the hierarchy, with its children.
#[derive(Debug, Serialize, JsonSchema)]
struct HierarchyNode {
    /// The object's id, for the `gameobject_` tools.
    id: u64,
    /// The object's name.
    name: String,
    /// Whether the object itself is active.
    active: bool,
    /// The object's tag.
    tag: String,
    /// The component types (besides the transform), when `include_components` is set.
    components: Vec<String>,
    /// The children, in order.
    children: Vec<HierarchyNode>,
    /// Children left out because of `max_depth`.
    hidden_children: usize,
}

/// The hierarchy of one scene.
#[derive(Debug, Serialize, JsonSchema)]
struct Hierarchy {
    /// The scene's name.
    scene: String,
    /// The scene file.
    path: String,
    /// Whether the scene has unsaved changes.
    dirty: bool,
    /// How many objects the scene holds in all (listed or not).
    object_count: usize,
    /// The root objects and, below them, their children.
    roots: Vec<HierarchyNode>,
}

/// What to put in the tree.
struct Options {
    include_inactive: bool,
    include_components: bool,
    max_depth: Option<u32>,
}

/// The game objects of an open scene as a tree: ids, names, active flags, tags and (on
/// request) component types. Use the ids with the `gameobject_` tools.
#[buril::tool(
    read_only,
    idempotent,
    aliases = ["scene_get_hierarchy"],
    title = "Scene hierarchy"
)]
fn scene_list_gameobjects(
    /// The open scene, by name or path. Default: the active scene.
    scene: Option<String>,
    /// List inactive objects (and their children) too. Default: true.
    include_inactive: Option<bool>,
    /// List each object's component types. Default: false.
    include_components: Option<bool>,
    /// How many levels below the roots to list (0: roots only). Default: all.
    max_depth: Option<u32>,
    ctx: &buril::Context,
) -> Result<Hierarchy, ToolError> {
    let project = ctx.state::<Project>()?;
    let editor = project.editor();
    let open = editor.scene(scene.as_deref())?;
    let options = Options {
        include_inactive: include_inactive.unwrap_or(true),
        include_components: include_components.unwrap_or(false),
        max_depth,
    };
    let roots = open
        .scene
        .roots()
        .filter(|o| options.include_inactive || o.active)
        .map(|o| node(&open.scene, o, 0, &options))
        .collect();
    Ok(Hierarchy {
        scene: open.name().to_owned(),
        path: open.path.clone(),
        dirty: open.dirty,
        object_count: open.scene.objects.len(),
        roots,
    })
}

fn node(scene: &Scene, object: &GameObject, depth: u32, options: &Options) -> HierarchyNode {
    let children: Vec<&GameObject> = scene
        .children(object.id)
        .filter(|c| options.include_inactive || c.active)
        .collect();
    let expand = options.max_depth.is_none_or(|max| depth < max);
    HierarchyNode {
        id: object.id,
        name: object.name.clone(),
        active: object.active,
        tag: object.tag.clone(),
        components: if options.include_components {
            object.component_types()
        } else {
            Vec::new()
        },
        hidden_children: if expand { 0 } else { children.len() },
        children: if expand {
            children
                .into_iter()
                .map(|c| node(scene, c, depth + 1, options))
                .collect()
        } else {
            Vec::new()
        },
    }
}
