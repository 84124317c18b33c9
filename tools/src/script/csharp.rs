//! Just enough C# reading for the `script_` tools: blanking comments and strings, tokens, and
//! type declarations with their base type.

use std::collections::BTreeSet;

use buril::ToolError;

use crate::project::Project;
use crate::project::paths::{self, ASSETS};

/// The C# keywords, which cannot name a class.
pub const KEYWORDS: &[&str] = &[
    "abstract",
    "as",
    "base",
    "bool",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "checked",
    "class",
    "const",
    "continue",
    "decimal",
    "default",
    "delegate",
    "do",
    "double",
    "else",
    "enum",
    "event",
    "explicit",
    "extern",
    "false",
    "finally",
    "fixed",
    "float",
    "for",
    "foreach",
    "goto",
    "if",
    "implicit",
    "in",
    "int",
    "interface",
    "internal",
    "is",
    "lock",
    "long",
    "namespace",
    "new",
    "null",
    "object",
    "operator",
    "out",
    "override",
    "params",
    "private",
    "protected",
    "public",
    "readonly",
    "ref",
    "return",
    "sbyte",
    "sealed",
    "short",
    "sizeof",
    "stackalloc",
    "static",
    "string",
    "struct",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "uint",
    "ulong",
    "unchecked",
    "unsafe",
    "ushort",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// Whether `name` can name a C# type: an identifier that is not a keyword.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// The source with comments, string literals and character literals replaced by spaces. Line
/// breaks stay, so lines and columns keep their numbers.
pub fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            out.push_str("  ");
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                out.push(blank(chars[i]));
                i += 1;
            }
            if i < chars.len() {
                out.push_str("  ");
                i += 2;
            }
        } else if c == '@' && next == Some('"') {
            out.push_str("  ");
            i += 2;
            while i < chars.len() {
                if chars[i] == '"' && chars.get(i + 1) == Some(&'"') {
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '"' {
                    out.push(' ');
                    i += 1;
                    break;
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == '"' || c == '\'' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    out.push(' ');
                    i += 1;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
            if i < chars.len() && chars[i] == c {
                out.push(' ');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// A word or punctuation mark of code, with where it starts (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// The token's text: an identifier, a number or one punctuation character.
    pub text: &'a str,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
}

/// The tokens of `code` (see [`code_only`]).
pub fn tokens(code: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut column = 1;
    let mut iter = code.char_indices().peekable();
    while let Some((start, c)) = iter.next() {
        let (token_line, token_column) = (line, column);
        if c == '\n' {
            line += 1;
            column = 1;
            continue;
        }
        column += 1;
        if c.is_whitespace() {
            continue;
        }
        let mut end = start + c.len_utf8();
        if c.is_alphanumeric() || c == '_' || c == '@' {
            while let Some(&(i, n)) = iter.peek() {
                if n.is_alphanumeric() || n == '_' {
                    end = i + n.len_utf8();
                    column += 1;
                    iter.next();
                } else {
                    break;
                }
            }
        }
        out.push(Token {
            text: &code[start..end],
            line: token_line,
            column: token_column,
        });
    }
    out
}

/// A type declared in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDecl {
    /// `class`, `struct`, `interface` or `enum`.
    pub keyword: &'static str,
    /// The type's name.
    pub name: String,
    /// The first type after `:`, without namespace, e.g. `MonoBehaviour`.
    pub base: Option<String>,
    /// The line of the declaration, from 1.
    pub line: usize,
}

/// The types declared in `source`.
pub fn declarations(source: &str) -> Vec<TypeDecl> {
    let code = code_only(source);
    let tokens = tokens(&code);
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Some(keyword) = ["class", "struct", "interface", "enum"]
            .into_iter()
            .find(|k| *k == token.text)
        else {
            continue;
        };
        let Some(name) = tokens.get(i + 1).filter(|t| is_identifier(t.text)) else {
            continue;
        };
        let mut j = skip_generics(&tokens, i + 2);
        let mut base = None;
        if tokens.get(j).is_some_and(|t| t.text == ":") {
            j += 1;
            let mut last = None;
            while let Some(t) = tokens.get(j) {
                if is_identifier(t.text) {
                    last = Some(t.text);
                    j += 1;
                    if tokens.get(j).is_some_and(|t| t.text == ".") {
                        j += 1;
                        continue;
                    }
                }
                break;
            }
            base = last.map(str::to_owned);
        }
        out.push(TypeDecl {
            keyword,
            name: name.text.to_owned(),
            base,
            line: token.line,
        });
    }
    out
}

fn skip_generics(tokens: &[Token<'_>], mut at: usize) -> usize {
    if tokens.get(at).is_none_or(|t| t.text != "<") {
        return at;
    }
    let mut depth = 0;
    while let Some(t) = tokens.get(at) {
        at += 1;
        match t.text {
            "<" => depth += 1,
            ">" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    at
}

/// One C# file of the project.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The file, relative to the project folder.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// Every `.cs` file under the project-relative `folder`, sorted by path.
pub fn sources(project: &Project, folder: &str) -> Result<Vec<SourceFile>, ToolError> {
    let mut out = Vec::new();
    for entry in project.walk(folder, true)? {
        if entry.is_dir || paths::extension_of(&entry.path) != Some("cs") {
            continue;
        }
        let bytes = std::fs::read(project.file(&entry.path)?)?;
        out.push(SourceFile {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            path: entry.path,
        });
    }
    Ok(out)
}

/// The names of the classes that can be components: those deriving from `MonoBehaviour`,
/// directly or through other classes of the project. Sorted.
pub fn component_classes(project: &Project) -> Result<Vec<String>, ToolError> {
    let declared: Vec<TypeDecl> = sources(project, ASSETS)?
        .iter()
        .flat_map(|file| declarations(&file.text))
        .filter(|d| d.keyword == "class")
        .collect();
    Ok(behaviours(&declared).into_iter().collect())
}

/// The classes among `declared` that derive from `MonoBehaviour`, however indirectly.
pub fn behaviours(declared: &[TypeDecl]) -> BTreeSet<String> {
    let mut found: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = found.len();
        for decl in declared {
            if let Some(base) = &decl.base
                && (base == "MonoBehaviour" || found.contains(base))
            {
                found.insert(decl.name.clone());
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_comments_and_strings() {
        let source = "var a = \"{ // }\"; // {\n/* } */ char c = '}'; var b = @\"x\"\"}\";";
        let code = code_only(source);
        assert_eq!(code.chars().count(), source.chars().count());
        assert!(!code.contains('}'), "{code}");
        assert!(!code.contains('{'), "{code}");
        assert_eq!(code.lines().count(), 2);
    }

    #[test]
    fn finds_declarations_and_bases() {
        let source = "using UnityEngine;\n\
                      namespace Game {\n\
                      public class Player : UnityEngine.MonoBehaviour, IDamageable {}\n\
                      class Boss : Player {}\n\
                      class Box<T> : List<T> where T : class {}\n\
                      enum Kind { A }\n}";
        let decls = declarations(source);
        let names: Vec<(&str, Option<&str>)> = decls
            .iter()
            .map(|d| (d.name.as_str(), d.base.as_deref()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("Player", Some("MonoBehaviour")),
                ("Boss", Some("Player")),
                ("Box", Some("List")),
                ("Kind", None)
            ]
        );
        assert_eq!(decls[0].line, 3);
        let behaviours = behaviours(&decls);
        assert_eq!(
            behaviours.into_iter().collect::<Vec<_>>(),
            vec!["Boss", "Player"]
        );
    }

    #[test]
    fn tokens_have_positions() {
        let tokens = tokens("a\n  bc(");
        assert_eq!(tokens[1].text, "bc");
        assert_eq!((tokens[1].line, tokens[1].column), (2, 3));
        assert_eq!((tokens[2].line, tokens[2].column), (2, 5));
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("EnemySpawner"));
        assert!(is_identifier("_private2"));
        assert!(!is_identifier("2Fast"));
        assert!(!is_identifier("class"));
        assert!(!is_identifier("Enemy Spawner"));
    }
}
