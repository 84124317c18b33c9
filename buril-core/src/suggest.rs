//! "Did you mean …?" for tool and property names.

/// The closest candidates to `name`, best first: names within a small edit distance, or names
/// containing it.
pub fn similar<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let distance = strsim::levenshtein(name, candidate);
            let close = (distance <= limit && distance < name.len())
                || (name.len() >= 3 && (candidate.contains(name) || name.contains(candidate)));
            close.then_some((distance, candidate))
        })
        .collect();
    scored.sort();
    scored.into_iter().map(|(_, candidate)| candidate).collect()
}

/// The single closest candidate, if any is close.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    similar(name, candidates).into_iter().next()
}

/// The one wording of "no such tool": `no tool is named `x``, then the names the caller may
/// have meant (only tools that caller may call), or where to look.
pub fn unknown_tool<S: AsRef<str>>(name: &str, suggestions: &[S]) -> String {
    let mut message = format!("no tool is named `{name}`");
    match suggestions {
        [] => message.push_str("; list the tools to see what exists"),
        [one] => message.push_str(&format!("; did you mean `{}`?", one.as_ref())),
        many => {
            let names: Vec<String> = many.iter().map(|s| format!("`{}`", s.as_ref())).collect();
            message.push_str(&format!("; did you mean one of {}?", names.join(", ")));
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_and_substrings() {
        let names = ["scene_open", "scene_save", "asset_list"];
        assert_eq!(similar("scene_opn", names), vec!["scene_open"]);
        assert_eq!(nearest("open", names), Some("scene_open"));
        assert!(similar("zzzzzzzz", names).is_empty());
    }

    #[test]
    fn words_an_unknown_tool_once() {
        let none: [&str; 0] = [];
        assert_eq!(
            unknown_tool("x", &none),
            "no tool is named `x`; list the tools to see what exists"
        );
        assert_eq!(
            unknown_tool("scene_opn", &["scene_open"]),
            "no tool is named `scene_opn`; did you mean `scene_open`?"
        );
        assert_eq!(
            unknown_tool("scene", &["scene_open", "scene_save"]),
            "no tool is named `scene`; did you mean one of `scene_open`, `scene_save`?"
        );
    }
}
