//! The `script_` family: C# scripts under `Assets/`.

mod check;
pub(crate) mod csharp;
mod references;

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::project::Project;
use crate::project::paths::{self, ASSETS};
use csharp::TypeDecl;

/// What a new script is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ScriptKind {
    /// A component to put on game objects, with `Start` and `Update`.
    #[default]
    MonoBehaviour,
    /// A data asset type, creatable from the Assets menu.
    ScriptableObject,
    /// An editor window with a menu item; must live in a folder named `Editor`.
    EditorWindow,
    /// A plain C# class.
    PlainClass,
}

impl ScriptKind {
    fn template(self) -> &'static str {
        match self {
            ScriptKind::MonoBehaviour => {
                include_str!("../../templates/scripts/MonoBehaviour.cs.txt")
            }
            ScriptKind::ScriptableObject => {
                include_str!("../../templates/scripts/ScriptableObject.cs.txt")
            }
            ScriptKind::EditorWindow => include_str!("../../templates/scripts/EditorWindow.cs.txt"),
            ScriptKind::PlainClass => include_str!("../../templates/scripts/PlainClass.cs.txt"),
        }
    }

    fn default_folder(self) -> &'static str {
        match self {
            ScriptKind::EditorWindow => "Assets/Editor",
            _ => "Assets/Scripts",
        }
    }
}

/// The script text for `class` from the kind's template, inside `namespace` when given.
fn render(kind: ScriptKind, class: &str, namespace: Option<&str>) -> String {
    let text = kind.template().replace("#SCRIPTNAME#", class);
    let Some(namespace) = namespace else {
        return text;
    };
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .take_while(|l| l.starts_with("using ") || l.trim().is_empty())
        .count();
    let mut out = String::new();
    for line in &lines[..header] {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("namespace {namespace}\n{{\n"));
    for line in &lines[header..] {
        if !line.is_empty() {
            out.push_str("    ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// A script that was created.
#[derive(Debug, Serialize, JsonSchema)]
struct CreatedScript {
    /// The new file.
    path: String,
    /// The class it declares.
    class_name: String,
    /// What it is.
    kind: ScriptKind,
    /// The namespace, if any.
    namespace: Option<String>,
    /// How many lines it has.
    lines: usize,
}

/// Creates a C# script from the editor's template for its kind, in a file named after the
/// class (`Assets/Scripts/EnemySpawner.cs`). A `mono_behaviour` script's class can then be
/// added to game objects with `gameobject_add_component`.
#[buril::tool(title = "Create script")]
fn script_create(
    /// The class name, a C# identifier such as `EnemySpawner`; also the file name.
    class_name: String,
    /// The folder under `Assets/`. Default: `Assets/Scripts` (`Assets/Editor` for editor
    /// windows).
    folder: Option<String>,
    /// What the script is. Default: `mono_behaviour`.
    kind: Option<ScriptKind>,
    /// A namespace to wrap the class in, e.g. `Game.Enemies`.
    namespace: Option<String>,
    ctx: &buril::Context,
) -> Result<CreatedScript, ToolError> {
    let class_name = class_name.trim().to_owned();
    if !csharp::is_identifier(&class_name) {
        return Err(ToolError::invalid(format!(
            "`class_name` `{class_name}` is not a C# class name; use letters, digits and `_`, \
             starting with a letter, e.g. `EnemySpawner`"
        )));
    }
    if let Some(namespace) = &namespace
        && !namespace.split('.').all(csharp::is_identifier)
    {
        return Err(ToolError::invalid(format!(
            "`namespace` `{namespace}` is not a C# namespace; use dotted names such as \
             `Game.Enemies`"
        )));
    }
    let kind = kind.unwrap_or_default();
    let folder = match folder {
        Some(folder) => paths::asset(&folder, "folder")?,
        None => kind.default_folder().to_owned(),
    };
    if kind == ScriptKind::EditorWindow && !folder.split('/').any(|s| s == "Editor") {
        return Err(ToolError::invalid(format!(
            "editor scripts must be inside a folder named `Editor` (the build leaves those out); \
             `{folder}` is not: use e.g. `Assets/Editor`"
        )));
    }
    let path = format!("{folder}/{class_name}.cs");
    let project = ctx.state::<Project>()?;
    if project.file(&path)?.exists() {
        return Err(ToolError::invalid(format!(
            "`{path}` already exists; pick another class name, or read it with asset_read"
        )));
    }
    for file in csharp::sources(project, ASSETS)? {
        if csharp::declarations(&file.text)
            .iter()
            .any(|d| d.name == class_name)
        {
            return Err(ToolError::invalid(format!(
                "a type named `{class_name}` is already declared in `{}`; pick another name",
                file.path
            )));
        }
    }
    let text = render(kind, &class_name, namespace.as_deref());
    project.write(&path, text.as_bytes())?;
    Ok(CreatedScript {
        path,
        class_name,
        kind,
        namespace,
        lines: text.lines().count(),
    })
}

/// A type declared in a script.
#[derive(Debug, Serialize, JsonSchema)]
struct TypeInfo {
    /// The type's name.
    name: String,
    /// `class`, `struct`, `interface` or `enum`.
    keyword: String,
    /// The base type after `:`, if any.
    base: Option<String>,
    /// The line of the declaration.
    line: usize,
    /// Whether it can be added to game objects (it derives from `MonoBehaviour`).
    component: bool,
}

/// One script file.
#[derive(Debug, Serialize, JsonSchema)]
struct ScriptInfo {
    /// The file.
    path: String,
    /// How many lines it has.
    lines: usize,
    /// The types it declares.
    types: Vec<TypeInfo>,
}

/// The scripts found.
#[derive(Debug, Serialize, JsonSchema)]
struct ScriptListing {
    /// Every `.cs` file under the folder, sorted by path.
    scripts: Vec<ScriptInfo>,
}

/// Lists the C# scripts under a folder with the types each declares, their base types, and
/// which ones are components (derive from `MonoBehaviour`).
#[buril::tool(off_thread, read_only, idempotent, title = "List scripts")]
fn script_list(
    /// The folder to list, e.g. `Assets/Scripts`. Default: `Assets`.
    folder: Option<String>,
    ctx: &buril::Context,
) -> Result<ScriptListing, ToolError> {
    let folder = paths::asset(folder.as_deref().unwrap_or(ASSETS), "folder")?;
    let project = ctx.state::<Project>()?;
    let components = csharp::component_classes(project)?;
    let scripts = csharp::sources(project, &folder)?
        .into_iter()
        .map(|file| {
            let types = csharp::declarations(&file.text)
                .into_iter()
                .map(|decl: TypeDecl| TypeInfo {
                    component: decl.keyword == "class" && components.contains(&decl.name),
                    name: decl.name,
                    keyword: decl.keyword.to_owned(),
                    base: decl.base,
                    line: decl.line,
                })
                .collect();
            ScriptInfo {
                lines: file.text.lines().count(),
                path: file.path,
                types,
            }
        })
        .collect();
    Ok(ScriptListing { scripts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_in_a_namespace() {
        let text = render(ScriptKind::PlainClass, "Score", Some("Game.Ui"));
        assert!(
            text.starts_with("using System;\n\nnamespace Game.Ui\n{\n    public class Score\n")
        );
        assert!(text.ends_with("    }\n}\n"), "{text}");
        let decls = csharp::declarations(&text);
        assert_eq!(decls[0].name, "Score");
    }
}
