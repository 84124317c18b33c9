//! A small, case-insensitive glob: `*` (within a segment), `**` (across segments), `?`.

/// Whether `path` matches `pattern`. A pattern without `/` is matched against the last segment
/// (the file name) only, so `*.mat` finds materials in every folder.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let subject = if pattern.contains(&'/') {
        path
    } else {
        path.rsplit('/').next().unwrap_or(path)
    };
    let subject: Vec<char> = subject.to_lowercase().chars().collect();
    glob(&pattern, &subject)
}

fn glob(pattern: &[char], subject: &[char]) -> bool {
    match pattern {
        [] => subject.is_empty(),
        ['*', '*', '/', rest @ ..] => {
            // Zero or more whole segments.
            glob(rest, subject)
                || (0..subject.len())
                    .filter(|&i| subject[i] == '/')
                    .any(|i| glob(rest, &subject[i + 1..]))
        }
        ['*', '*', rest @ ..] => (0..=subject.len()).any(|i| glob(rest, &subject[i..])),
        ['*', rest @ ..] => {
            let segment_end = subject
                .iter()
                .position(|&c| c == '/')
                .unwrap_or(subject.len());
            (0..=segment_end).any(|i| glob(rest, &subject[i..]))
        }
        ['?', rest @ ..] => subject
            .first()
            .is_some_and(|&c| c != '/' && glob(rest, &subject[1..])),
        [c, rest @ ..] => subject.first() == Some(c) && glob(rest, &subject[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn file_name_patterns() {
        assert!(matches("*.mat", "Assets/Materials/Red.mat"));
        assert!(matches("red.*", "Assets/Materials/Red.mat"));
        assert!(matches("R?d.mat", "Assets/Materials/Red.mat"));
        assert!(!matches("*.mat", "Assets/Materials/Red.mat.bak"));
    }

    #[test]
    fn path_patterns() {
        assert!(matches("Assets/*/Red.mat", "Assets/Materials/Red.mat"));
        assert!(!matches("Assets/*.mat", "Assets/Materials/Red.mat"));
        assert!(matches("Assets/**/*.mat", "Assets/Materials/Red.mat"));
        assert!(matches("Assets/**/*.mat", "Assets/Red.mat"));
        assert!(matches("Assets/**", "Assets/a/b/c.cs"));
        assert!(!matches("Assets/**/*.cs", "Assets/a/b/c.mat"));
    }
}
