//! Case conversion for type and member names.

/// `scene_open` -> `SceneOpen`; `main camera` -> `MainCamera`; `HTTPGet` stays `HTTPGet`.
pub fn pascal_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_pascal_case(&mut out, text);
    out
}

/// Appends [`pascal_case`] of `text` to `out`.
pub(crate) fn push_pascal_case(out: &mut String, text: &str) {
    let start = out.len();
    let mut upper = true;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        } else {
            upper = true;
        }
    }
    if out[start..].starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(start, '_');
    }
}

/// `scene_open` -> `sceneOpen`.
pub fn camel_case(text: &str) -> String {
    let pascal = pascal_case(text);
    let mut chars = pascal.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(pascal_case("scene_open"), "SceneOpen");
        assert_eq!(pascal_case("agent_team_handoff"), "AgentTeamHandoff");
        assert_eq!(pascal_case("main camera"), "MainCamera");
        assert_eq!(pascal_case("3d"), "_3d");
        assert_eq!(camel_case("scene_open"), "sceneOpen");
        assert_eq!(camel_case("Vec3"), "vec3");
        let mut appended = String::from("Owner");
        push_pascal_case(&mut appended, "3d_view");
        assert_eq!(appended, "Owner_3dView");
    }
}
