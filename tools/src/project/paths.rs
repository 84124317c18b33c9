//! Project-relative paths as tools receive them: checked, normalized, never leaving the project.

use buril::ToolError;

/// The folder every asset lives under.
pub const ASSETS: &str = "Assets";

/// Normalizes a project-relative path: forward slashes, no empty or `.` segments. Rejects
/// absolute paths and any `..` segment, so a path can never leave the project folder. `what`
/// names the parameter in messages.
pub fn normalize(input: &str, what: &str) -> Result<String, ToolError> {
    let text = input.trim().replace('\\', "/");
    if text.is_empty() {
        return Err(ToolError::invalid(format!(
            "`{what}` is empty; give a path relative to the project folder, such as \
             `Assets/Scenes/Main.scene`"
        )));
    }
    let has_drive = text
        .split('/')
        .next()
        .is_some_and(|first| first.len() == 2 && first.ends_with(':'));
    if text.starts_with('/') || has_drive {
        return Err(ToolError::invalid(format!(
            "`{what}` `{input}` is an absolute path; give a path relative to the project folder, \
             such as `Assets/Scenes/Main.scene`"
        )));
    }
    let mut segments = Vec::new();
    for segment in text.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                return Err(ToolError::invalid(format!(
                    "`{what}` `{input}` leaves the project folder (`..` is not allowed); paths are \
                     relative to the project folder, such as `Assets/Materials/Red.mat`"
                )));
            }
            other => segments.push(other),
        }
    }
    if segments.is_empty() {
        return Err(ToolError::invalid(format!(
            "`{what}` `{input}` names the project folder itself; name something inside it, such \
             as `Assets`"
        )));
    }
    Ok(segments.join("/"))
}

/// Normalizes a path that must lie under `Assets/` (or be `Assets` itself).
pub fn asset(input: &str, what: &str) -> Result<String, ToolError> {
    let path = normalize(input, what)?;
    if path == ASSETS || path.starts_with("Assets/") {
        Ok(path)
    } else {
        Err(ToolError::invalid(format!(
            "`{what}` `{input}` is outside `Assets/`; asset paths start with `Assets/`, e.g. \
             `Assets/Materials/Red.mat`"
        )))
    }
}

/// Normalizes an asset path that must end in `extension` (without the dot).
pub fn asset_with_extension(input: &str, what: &str, extension: &str) -> Result<String, ToolError> {
    let path = asset(input, what)?;
    if extension_of(&path) == Some(extension) {
        Ok(path)
    } else {
        Err(ToolError::invalid(format!(
            "`{what}` `{input}` must end in `.{extension}`, e.g. `{}`",
            example(extension)
        )))
    }
}

/// The file name: the last segment.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The file name without its extension.
pub fn stem(path: &str) -> &str {
    let name = file_name(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// The extension, without the dot.
pub fn extension_of(path: &str) -> Option<&str> {
    let name = file_name(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => Some(&name[dot + 1..]),
        _ => None,
    }
}

/// Whether `path` is `folder` or lies inside it.
pub fn is_within(path: &str, folder: &str) -> bool {
    path == folder
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn example(extension: &str) -> String {
    match extension {
        "scene" => "Assets/Scenes/Level2.scene".to_owned(),
        "mat" => "Assets/Materials/Blue.mat".to_owned(),
        "cs" => "Assets/Scripts/Enemy.cs".to_owned(),
        other => format!("Assets/Example.{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_separators_and_dots() {
        assert_eq!(
            normalize("Assets\\Scenes/./Main.scene", "path").unwrap(),
            "Assets/Scenes/Main.scene"
        );
        assert_eq!(normalize(" Assets// ", "path").unwrap(), "Assets");
    }

    #[test]
    fn rejects_escapes() {
        for bad in [
            "../x",
            "Assets/../../etc",
            "/etc/passwd",
            "C:/Windows",
            "",
            ".",
        ] {
            let error = normalize(bad, "path").unwrap_err();
            assert_eq!(error.kind(), buril::ErrorKind::Validation, "{bad}");
        }
    }

    #[test]
    fn assets_only() {
        assert!(asset("Assets/Materials/Red.mat", "path").is_ok());
        assert!(asset("Library/console.jsonl", "path").is_err());
        assert!(asset("AssetsX/a", "path").is_err());
        assert!(asset_with_extension("Assets/Main.scene", "path", "scene").is_ok());
        assert!(asset_with_extension("Assets/Main", "path", "scene").is_err());
    }

    #[test]
    fn pieces() {
        assert_eq!(stem("Assets/Scenes/Main.scene"), "Main");
        assert_eq!(extension_of("Assets/Scenes/Main.scene"), Some("scene"));
        assert_eq!(extension_of("Assets/.hidden"), None);
        assert!(is_within("Assets/Scenes/Main.scene", "Assets/Scenes"));
        assert!(!is_within("Assets/ScenesOld/Main.scene", "Assets/Scenes"));
    }
}
