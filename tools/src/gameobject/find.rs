//! `gameobject_find`: game objects by name, tag, component or active state.

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::project::Project;
use crate::project::editor::OpenScene;
use crate::project::glob;
use crate::project::scene::GameObject;

/// How `name` is compared with each object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum NameMatch {
    /// The name is exactly `name` (case matters).
    Exact,
    /// The name contains `name`, ignoring case.
    #[default]
    Contains,
    /// `name` is a glob (`*`, `?`) matched against the name, or against the hierarchy path
    /// when it contains `/` (`Player/*`).
    Glob,
    /// `name` is the whole hierarchy path, e.g. `Player/Weapon`.
    Path,
}

/// One object found.
#[derive(Debug, Serialize, JsonSchema)]
struct FoundObject {
    /// The scene holding it.
    scene: String,
    /// Its id.
    id: u64,
    /// Its name.
    name: String,
    /// Its hierarchy path.
    path: String,
    /// Whether it and all its ancestors are active.
    active_in_hierarchy: bool,
    /// Its tag.
    tag: String,
    /// Its component types.
    components: Vec<String>,
}

/// What a search found.
#[derive(Debug, Serialize, JsonSchema)]
struct FindResult {
    /// How many objects matched in all.
    total_found: usize,
    /// The matches, in scene and hierarchy order, at most `max_results`.
    results: Vec<FoundObject>,
    /// Whether matches were left out because of `max_results`.
    truncated: bool,
}

/// The filters of one search.
struct Filter {
    name: Option<String>,
    mode: NameMatch,
    tag: Option<String>,
    component: Option<String>,
    include_inactive: bool,
}

impl Filter {
    fn accepts(&self, open: &OpenScene, object: &GameObject) -> bool {
        let scene = &open.scene;
        if !self.include_inactive && !scene.active_in_hierarchy(object.id) {
            return false;
        }
        if self.tag.as_ref().is_some_and(|tag| &object.tag != tag) {
            return false;
        }
        if let Some(kind) = &self.component
            && !object
                .components
                .iter()
                .any(|c| c.kind.eq_ignore_ascii_case(kind))
        {
            return false;
        }
        let Some(name) = &self.name else {
            return true;
        };
        match self.mode {
            NameMatch::Exact => &object.name == name,
            NameMatch::Contains => object.name.to_lowercase().contains(&name.to_lowercase()),
            NameMatch::Glob => glob::matches(name, &scene.path_of(object.id)),
            NameMatch::Path => &scene.path_of(object.id) == name,
        }
    }
}

/// What to look for; every filter given must match.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FindArgs {
    /// The name to look for, compared as `match_mode` says. Default: any name.
    name: Option<String>,
    /// How `name` is compared. Default: `contains`.
    match_mode: Option<NameMatch>,
    /// Only objects with this tag, e.g. `Player`.
    tag: Option<String>,
    /// Only objects with a component of this type, e.g. `Camera`.
    component: Option<String>,
    /// Find inactive objects too. Default: false.
    include_inactive: Option<bool>,
    /// Search this open scene only, by name or path. Default: every open scene.
    scene: Option<String>,
    /// At most this many results (1 to 500). Default: 50.
    max_results: Option<u32>,
}

/// Finds game objects in the open scenes by name, tag, component type and active state; every
/// filter given must match. Returns ids for the other `gameobject_` tools.
#[buril::tool(read_only, idempotent, title = "Find game objects")]
fn gameobject_find(
    buril::Input(args): buril::Input<FindArgs>,
    ctx: &buril::Context,
) -> Result<FindResult, ToolError> {
    let FindArgs {
        name,
        match_mode,
        tag,
        component,
        include_inactive,
        scene,
        max_results,
    } = args;
    let project = ctx.state::<Project>()?;
    let editor = project.editor();
    let scenes: Vec<&OpenScene> = match scene.as_deref() {
        Some(key) => vec![editor.scene(Some(key))?],
        None => {
            editor.index(None)?;
            editor.scenes.iter().collect()
        }
    };
    let filter = Filter {
        name,
        mode: match_mode.unwrap_or_default(),
        tag,
        component,
        include_inactive: include_inactive.unwrap_or(false),
    };
    let max = usize::try_from(max_results.unwrap_or(50).clamp(1, 500)).unwrap_or(500);
    let mut results = Vec::new();
    let mut total_found = 0;
    for open in scenes {
        for object in open.scene.objects.iter() {
            if !filter.accepts(open, object) {
                continue;
            }
            total_found += 1;
            if results.len() < max {
                results.push(FoundObject {
                    scene: open.name().to_owned(),
                    id: object.id,
                    name: object.name.clone(),
                    path: open.scene.path_of(object.id),
                    active_in_hierarchy: open.scene.active_in_hierarchy(object.id),
                    tag: object.tag.clone(),
                    components: object.component_types(),
                });
            }
        }
    }
    Ok(FindResult {
        total_found,
        truncated: total_found > results.len(),
        results,
    })
}
