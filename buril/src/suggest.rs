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
}
