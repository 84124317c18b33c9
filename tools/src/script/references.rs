//! `script_find_references`: where a type or member name is used, in code and in scenes.

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

use super::csharp;
use crate::project::Project;
use crate::project::paths::{self, ASSETS};
use crate::project::scene::Scene;

/// One use of the symbol in code.
#[derive(Debug, Serialize, JsonSchema)]
struct CodeReference {
    /// The script.
    path: String,
    /// The line, from 1.
    line: usize,
    /// The column, from 1.
    column: usize,
    /// The line's text, trimmed.
    text: String,
}

/// A declaration of the symbol as a type.
#[derive(Debug, Serialize, JsonSchema)]
struct Declaration {
    /// The script.
    path: String,
    /// The line, from 1.
    line: usize,
}

/// A game object that carries the symbol as a component.
#[derive(Debug, Serialize, JsonSchema)]
struct ComponentUse {
    /// The scene or prefab file.
    asset: String,
    /// The object's id in that file.
    object_id: u64,
    /// The object's hierarchy path.
    object_path: String,
}

/// Where a symbol is used.
#[derive(Debug, Serialize, JsonSchema)]
struct References {
    /// The symbol searched for.
    symbol: String,
    /// Where it is declared as a type.
    declarations: Vec<Declaration>,
    /// Its uses in code, outside comments and strings, at most `max_results`.
    code: Vec<CodeReference>,
    /// How many uses in code there are in all.
    code_total: usize,
    /// Game objects in scenes and prefabs with it as a component (open scenes as edited).
    components: Vec<ComponentUse>,
}

/// Finds where a C# symbol (a class, method or field name) is used: every whole-word
/// occurrence in the project's scripts, ignoring comments and strings, and every game object
/// in a scene or prefab that has it as a component. Open scenes are searched as edited.
#[buril::tool(off_thread, read_only, idempotent, title = "Find references")]
fn script_find_references(
    /// The name to look for, e.g. `PlayerController` or `jumpHeight`.
    symbol: String,
    /// Also search scenes and prefabs for components of this type. Default: true.
    include_assets: Option<bool>,
    /// At most this many code references (1 to 1000). Default: 200.
    max_results: Option<u32>,
    ctx: &buril::Context,
) -> Result<References, ToolError> {
    let symbol = symbol.trim().to_owned();
    if !csharp::is_identifier(&symbol) {
        return Err(ToolError::invalid(format!(
            "`symbol` `{symbol}` is not a C# name; give one identifier such as `PlayerController`"
        )));
    }
    let max = usize::try_from(max_results.unwrap_or(200).clamp(1, 1000)).unwrap_or(1000);
    let project = ctx.state::<Project>()?;
    let mut declarations = Vec::new();
    let mut code = Vec::new();
    let mut code_total = 0;
    for file in csharp::sources(project, ASSETS)? {
        ctx.check_cancelled()?;
        for decl in csharp::declarations(&file.text) {
            if decl.name == symbol {
                declarations.push(Declaration {
                    path: file.path.clone(),
                    line: decl.line,
                });
            }
        }
        let stripped = csharp::code_only(&file.text);
        let lines: Vec<&str> = file.text.lines().collect();
        let tokens = csharp::tokens(&stripped);
        for (i, token) in tokens.iter().enumerate() {
            let declares =
                i > 0 && ["class", "struct", "interface", "enum"].contains(&tokens[i - 1].text);
            if token.text != symbol || declares {
                continue;
            }
            code_total += 1;
            if code.len() < max {
                code.push(CodeReference {
                    path: file.path.clone(),
                    line: token.line,
                    column: token.column,
                    text: lines
                        .get(token.line - 1)
                        .map(|l| l.trim().to_owned())
                        .unwrap_or_default(),
                });
            }
        }
    }
    let components = if include_assets.unwrap_or(true) {
        component_uses(project, &symbol, ctx)?
    } else {
        Vec::new()
    };
    Ok(References {
        symbol,
        declarations,
        code,
        code_total,
        components,
    })
}

/// Objects in scenes and prefabs with a component of type `symbol`.
fn component_uses(
    project: &Project,
    symbol: &str,
    ctx: &buril::Context,
) -> Result<Vec<ComponentUse>, ToolError> {
    let mut out = Vec::new();
    for entry in project.walk(ASSETS, true)? {
        let kind = paths::extension_of(&entry.path);
        if entry.is_dir || !matches!(kind, Some("scene" | "prefab")) {
            continue;
        }
        ctx.check_cancelled()?;
        let open = project
            .editor()
            .by_path(&entry.path)
            .map(|o| o.scene.clone());
        let scene = match open {
            Some(scene) => scene,
            None => match project.load_scene(&entry.path) {
                Ok(scene) => scene,
                Err(_) => continue,
            },
        };
        out.extend(uses_in(&scene, &entry.path, symbol));
    }
    Ok(out)
}

fn uses_in(scene: &Scene, asset: &str, symbol: &str) -> Vec<ComponentUse> {
    scene
        .objects
        .iter()
        .filter(|o| o.components.iter().any(|c| c.kind == symbol))
        .map(|o| ComponentUse {
            asset: asset.to_owned(),
            object_id: o.id,
            object_path: scene.path_of(o.id),
        })
        .collect()
}
