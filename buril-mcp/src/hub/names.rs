//! An external server's tool names as this binary serves them: its prefix, then the name in
//! buril's rule (lowercase snake case), the original kept for forwarding.

/// The name `original` (a tool of the server whose tools take `prefix`) has here, or why it
/// cannot have one.
///
/// `get-sum` is `everything_get_sum`, `longRunningOperation` `everything_long_running_operation`,
/// `HTTPGet` `everything_http_get`; characters that are not ASCII letters or digits separate
/// words. A name left with nothing (all of it punctuation or other scripts), or longer than 64
/// characters once prefixed, cannot be mapped.
pub(crate) fn map(prefix: &str, original: &str) -> Result<String, String> {
    let words = buril_names::to_snake_case(original);
    if words.is_empty() {
        return Err(format!(
            "the tool `{original}` has no ASCII letters or digits to make a name of"
        ));
    }
    let name = format!("{prefix}{words}");
    match buril_names::check_name(&name, "its name here", None) {
        None => Ok(name),
        Some(problem) => Err(format!("the tool `{original}` cannot be served: {problem}")),
    }
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn names_are_mapped_to_the_rule() {
        assert_eq!(map("everything_", "get-sum").unwrap(), "everything_get_sum");
        assert_eq!(
            map("everything_", "longRunningOperation").unwrap(),
            "everything_long_running_operation"
        );
        assert_eq!(
            map("memory_", "create_entities").unwrap(),
            "memory_create_entities"
        );
        assert_eq!(map("x_", "HTTPGet").unwrap(), "x_http_get");
        assert_eq!(map("", "scene_open").unwrap(), "scene_open");
        assert_eq!(map("dcc_", "Keyframe.Run!").unwrap(), "dcc_keyframe_run");
    }

    #[test]
    fn names_that_cannot_be_mapped_say_why() {
        let error = map("x_", "日本語").unwrap_err();
        assert!(error.contains("no ASCII letters"), "{error}");
        let error = map("", "open").unwrap_err();
        assert!(error.contains("one segment"), "{error}");
        let error = map("x_", &"a".repeat(70)).unwrap_err();
        assert!(error.contains("limit is 64"), "{error}");
        assert_eq!(map("x_", "2fa").unwrap(), "x_2fa");
    }
}
