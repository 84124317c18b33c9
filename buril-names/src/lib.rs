//! buril's naming rule for tools: `<family>_<verb>[_<noun>...]`, lowercase snake case, at most
//! 64 characters. The `#[buril::tool]` attribute checks it at compile time; buril checks the
//! names of tools provided at run time (an external MCP server's, mapped to the rule) with the
//! same functions.

/// The longest name OpenAI and Anthropic accept.
pub const MAX_LEN: usize = 64;

/// The rule, as shown in messages.
pub const RULE: &str = "a tool name is lowercase snake case `<family>_<verb>[_<noun>...]` (`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)";

/// Whether `name` matches `^[a-z][a-z0-9]*(_[a-z0-9]+)+$`.
pub fn is_valid_shape(name: &str) -> bool {
    let mut segments = name.split('_');
    let Some(first) = segments.next() else {
        return false;
    };
    let first_ok = first.starts_with(|c: char| c.is_ascii_lowercase()) && is_segment(first);
    let mut rest = 0;
    for segment in segments {
        if !is_segment(segment) {
            return false;
        }
        rest += 1;
    }
    first_ok && rest >= 1
}

fn is_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// What is wrong with `name` as a tool name (`what` says whose name it is, e.g. "tool name"),
/// with a suggested fix, or `None` when it is fine.
pub fn check_name(name: &str, what: &str, family: Option<&str>) -> Option<String> {
    if name.len() > MAX_LEN {
        return Some(format!(
            "{what} `{name}` is {} characters long; the limit is {MAX_LEN} (OpenAI and Anthropic \
             reject longer names, and MCP clients prefix them further): shorten it",
            name.len()
        ));
    }
    if is_valid_shape(name) {
        return None;
    }
    let snake = to_snake_case(name);
    let suggestion = if is_valid_shape(&snake) {
        Some(snake.clone())
    } else if !snake.is_empty() && snake.starts_with(|c: char| c.is_ascii_lowercase()) {
        // One segment: the family is missing.
        family.map(|family| format!("{family}_{snake}"))
    } else {
        None
    };
    let problem = if name.is_empty() {
        "is empty".to_owned()
    } else if !snake.contains('_') && snake == name {
        "has no family prefix (one segment only)".to_owned()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        "starts with a digit".to_owned()
    } else if name.starts_with('_') || name.ends_with('_') || name.contains("__") {
        "has an empty segment (leading, trailing or doubled `_`)".to_owned()
    } else {
        "is not lowercase snake case".to_owned()
    };
    let fix = match suggestion {
        Some(fixed) => format!("; rename it `{fixed}`"),
        None if !snake.is_empty() && !snake.contains('_') => {
            format!("; prefix the family, e.g. `<family>_{snake}`")
        }
        None => String::new(),
    };
    Some(format!("{what} `{name}` {problem}: {RULE}{fix}"))
}

/// Whether `family` is a valid family: one or more lowercase snake case segments.
pub fn is_valid_family(family: &str) -> bool {
    !family.is_empty()
        && family.starts_with(|c: char| c.is_ascii_lowercase())
        && family.split('_').all(is_segment)
}

/// `SceneOpen` -> `scene_open`, `sceneOpen` -> `scene_open`, `scene-open` -> `scene_open`.
pub fn to_snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    let collapsed: Vec<&str> = out.split('_').filter(|s| !s.is_empty()).collect();
    collapsed.join("_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(is_valid_shape("scene_open"));
        assert!(is_valid_shape("agent_team_handoff"));
        assert!(is_valid_shape("asset_import_fbx2"));
        assert!(!is_valid_shape("scene"));
        assert!(!is_valid_shape("Scene_open"));
        assert!(!is_valid_shape("scene__open"));
        assert!(!is_valid_shape("_scene_open"));
        assert!(!is_valid_shape("scene_open_"));
        assert!(!is_valid_shape("2scene_open"));
        assert!(!is_valid_shape("scene-open"));
    }

    #[test]
    fn snake_case() {
        assert_eq!(to_snake_case("SceneOpen"), "scene_open");
        assert_eq!(to_snake_case("sceneOpen"), "scene_open");
        assert_eq!(to_snake_case("scene-open"), "scene_open");
        assert_eq!(to_snake_case("HTTPGet"), "http_get");
        assert_eq!(to_snake_case("scene__open_"), "scene_open");
    }

    #[test]
    fn messages_suggest_fixes() {
        let message = check_name("SceneOpen", "tool name", None).unwrap();
        assert!(message.contains("rename it `scene_open`"), "{message}");
        let message = check_name("open", "tool name", Some("scene")).unwrap();
        assert!(message.contains("rename it `scene_open`"), "{message}");
        assert!(check_name("scene_open", "tool name", None).is_none());
        let long = format!("scene_{}", "a".repeat(60));
        assert!(
            check_name(&long, "tool name", None)
                .unwrap()
                .contains("limit is 64")
        );
    }
}
