//! How deep a file's tokens nest, read from its text.
//!
//! syn parses recursively, so a file nested thousands deep would overflow the stack before it
//! said anything; the loader refuses such a file first. Walking proc-macro2's token trees for
//! that copied every group's tokens (a `Group`'s stream is shared, so iterating it clones each
//! token, identifiers' strings included): 3 % of a cold `opgen manifests` of 100 kinds. The
//! text of a file that lexes says the same with no copy: outside comments and literals, each
//! bracket byte is a group's delimiter and each `<` and `>` byte a punctuation token of its own
//! (`<=`, `->` and `>>` are two tokens to proc-macro2).

use super::raw_docs::{
    block_comment_end, byte_set, char_or_lifetime_end, prefixed_end, quoted_end, raw_string_prefix,
};

/// The byte offset of the first bracket or `<` in `text` nested deeper than `max`: the brackets
/// (`()`, `[]`, `{}`) around it, plus the `<` still open in the innermost of them, plus itself,
/// as proc-macro2's tokens of `text` nest. `text` must lex (its brackets balance, its literals
/// and comments end).
pub fn too_deep(text: &str, max: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    // For each bracket still open, the file itself first: its `<` still open.
    let mut open_angles = vec![0usize];
    let mut i = 0;
    loop {
        i += bytes[i..]
            .iter()
            .position(|b| NESTING_OR_LITERAL[usize::from(*b)])?;
        let b = bytes[i];
        match b {
            b'/' if matches!(at(i + 1), b'/' | b'*') => {
                // A doc comment is a `#[doc = "…"]` attribute to the lexer: a bracket at its start.
                let line = at(i + 1) == b'/';
                let doc = match (at(i + 2), at(i + 3)) {
                    (b'!', _) => true,
                    (b'/', next) if line => next != b'/',
                    (b'*', next) if !line => next != b'*' && next != b'/',
                    _ => false,
                };
                if doc && open_angles.len() + open_angles.last().copied().unwrap_or(0) > max {
                    return Some(i);
                }
                i = if line {
                    text[i..].find('\n').map_or(bytes.len(), |n| i + n)
                } else {
                    block_comment_end(bytes, i)
                };
                continue;
            }
            b'"' => {
                i = match raw_string_prefix(bytes, i) {
                    Some(prefix) => prefixed_end(text, prefix),
                    None => quoted_end(bytes, i + 1, b'"'),
                };
                continue;
            }
            b'\'' => {
                i = char_or_lifetime_end(text, i);
                continue;
            }
            b'(' | b'[' | b'{' | b'<' => {
                let brackets = open_angles.len() - 1;
                let angles = open_angles
                    .last_mut()
                    .expect("the file's entry is never popped");
                if brackets + *angles + 1 > max {
                    return Some(i);
                }
                if b == b'<' {
                    *angles += 1;
                } else {
                    open_angles.push(0);
                }
            }
            b')' | b']' | b'}' if open_angles.len() > 1 => {
                open_angles.pop();
            }
            b'>' => {
                let angles = open_angles
                    .last_mut()
                    .expect("the file's entry is never popped");
                *angles = angles.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
}

/// The bytes that may open or close a level, or start a literal other than a number or a
/// comment (`r`, `b` and `c` prefixes are found from the quote after them).
const NESTING_OR_LITERAL: [bool; 256] = byte_set(b"()[]{}<>\"'/");

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::{TokenStream, TokenTree};

    /// The offset of the first token nested deeper than `max`, from proc-macro2's tokens: the
    /// reference the text walk must agree with.
    fn from_tokens(text: &str, max: usize) -> Option<usize> {
        let tokens: TokenStream = text.parse().expect("the text lexes");
        let offset = |line: usize, column: usize| {
            let start: usize = text
                .split_inclusive('\n')
                .take(line - 1)
                .map(str::len)
                .sum();
            start
                + text[start..]
                    .chars()
                    .take(column)
                    .map(char::len_utf8)
                    .sum::<usize>()
        };
        let mut stack = vec![(tokens.into_iter(), 0usize, 0usize)];
        while let Some((iter, depth, angles)) = stack.last_mut() {
            let Some(token) = iter.next() else {
                stack.pop();
                continue;
            };
            let (depth, open) = (*depth, *angles);
            let span = match &token {
                TokenTree::Punct(p) if p.as_char() == '<' => {
                    *angles += 1;
                    p.span()
                }
                TokenTree::Punct(p) if p.as_char() == '>' => {
                    *angles = angles.saturating_sub(1);
                    continue;
                }
                TokenTree::Group(g) => {
                    stack.push((g.stream().into_iter(), depth + 1, 0));
                    g.span_open()
                }
                _ => continue,
            };
            if depth + open + 1 > max {
                let start = span.start();
                return Some(offset(start.line, start.column));
            }
        }
        None
    }

    #[test]
    fn agrees_with_the_token_trees() {
        let cases = [
            "struct A { b: Vec<Option<(u8, [u8; 2])>> }",
            "fn f() -> bool { 1 <= 2 && 3 >> 1 > 0 && a < b }",
            "const S: &str = \"(((<<<\"; const C: char = '<'; const B: u8 = b'{';",
            "const R: &str = r#\"[[[\"# ; const Q: &[u8] = br\"((\"; fn g<'a>(x: &'a u8) {}",
            "// ((((\n/* [[[ /* nested {{{ */ ]]] */ struct D<T>(Vec<T>);",
            "/// doc with <<<< and ((((\nstruct E { f: HashMap<String, Vec<Vec<u8>>> }",
            "mod m { //! inner\n fn f() { /** block doc */ let x = 1; /*** plain */ /**/ } }",
            "struct F { a: Vec<Vec<( /// doc in a tuple\n u8, )>> }",
            "match x { y => { if a < b { (c) } else { [d] } } }",
            "impl<T: Into<Vec<u8>>> From<T> for W<T> { fn from(t: T) -> Self { W(t) } }",
            "let é = ((1, 'é'), \"é<\"); let z = c\"<<\";",
        ];
        for text in cases {
            for max in 0..8 {
                assert_eq!(
                    too_deep(text, max),
                    from_tokens(text, max),
                    "{text:?} at {max}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_token_trees_on_opgens_own_sources() {
        let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut files = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for max in [3, 6, 9, 12, 15] {
                        assert_eq!(
                            too_deep(&text, max),
                            from_tokens(&text, max),
                            "{path:?} at {max}"
                        );
                    }
                    files += 1;
                }
            }
        }
        assert!(files > 100, "only {files} files read");
    }

    #[test]
    fn a_file_nested_past_the_limit_is_found_at_its_first_token_past_it() {
        let text = format!("type T = {}u8{};", "Vec<".repeat(300), ">".repeat(300));
        let first = "type T = ".len() + 4 * 256 + 3;
        assert_eq!(too_deep(&text, 256), Some(first));
        assert_eq!(&text[first..=first], "<");
        assert_eq!(too_deep(&text, 300), None);
    }
}
