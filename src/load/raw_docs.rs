//! Doc comments lexed as raw strings.
//!
//! proc-macro2's lexer turns `/// text` into `#[doc = "text"]`, escaping the text into a string
//! literal, and syn unescapes that literal again (`Lit::new`, to find a suffix), as does every
//! reader of the doc after it: on an API's sources, with a doc comment on nearly every field, a
//! sixth of a cold `opgen manifests` (callgrind of flux source-controller's API: 15 M of 117 M
//! instructions). Written as `#[doc = r"text"]` in the text the lexer reads, the same attribute
//! costs a copy. Only line doc comments are rewritten: they run to the end of their line, so
//! every token keeps its line, and every token after a comment its column too.
//!
//! Outer doc lines right under one another become one attribute whose raw string runs over
//! their lines, the `///` of each line after the first kept in it ([`merged_doc_lines`] reads
//! them back): an attribute costs the lexer, syn and the readers of docs the same whether it
//! holds one line or ten, and the Go doc comments of an imported API are most of its text
//! (gateway-api's `apis/v1`: 5,324 doc lines; loading 85 M instructions of a 220 M run, 38 M
//! with the lines merged).

/// `text` with each `///` and `//!` doc comment written as the `#[doc = r"…"]` (`#![doc = …]`)
/// attribute it stands for, consecutive `///` lines as one; `None` when `text` has none, or a carriage return (which a raw string
/// would keep and the lexer drops).
pub fn with_raw_doc_attributes(text: &str) -> Option<String> {
    if text.contains('\r') {
        return None;
    }
    let comments = doc_line_comments(text);
    if comments.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + comments.len() * 12);
    let mut done = 0;
    let line_end = |from: usize| {
        memchr::memchr(b'\n', &text.as_bytes()[from..]).map_or(text.len(), |i| from + i)
    };
    let mut comments = comments.into_iter().peekable();
    while let Some((start, inner)) = comments.next() {
        // Outer doc lines one right under the other (nothing but indentation between them)
        // make one attribute: its raw string runs over their lines, `///` and all.
        let mut end = line_end(start + 3);
        if !inner {
            while let Some(&(next, false)) = comments.peek()
                && text[end..next]
                    .bytes()
                    .all(|b| b == b'\n' || b == b' ' || b == b'\t')
                && text[end..next].bytes().filter(|b| *b == b'\n').count() == 1
            {
                comments.next();
                end = line_end(next + 3);
            }
        }
        let body = &text[start + 3..end];
        out.push_str(&text[done..start]);
        out.push_str(if inner { "#![doc=r" } else { "#[doc=r" });
        let hashes = hashes_needed(body);
        out.extend(std::iter::repeat_n('#', hashes));
        out.push('"');
        out.push_str(body);
        out.push('"');
        out.extend(std::iter::repeat_n('#', hashes));
        out.push(']');
        done = end;
    }
    out.push_str(&text[done..]);
    Some(out)
}

/// The lines of `text`, the value of `lit`, when it holds `///` lines the loader wrote as one
/// attribute ([`with_raw_doc_attributes`]: a raw string running over the lines, each after
/// the first still starting with its `///`), each without its comment syntax; None for any other doc.
pub fn merged_doc_lines<'t>(
    lit: &syn::LitStr,
    text: &'t str,
) -> Option<impl Iterator<Item = &'t str>> {
    let (first, rest) = text.split_once('\n')?;
    let continued = |l: &'t str| l.trim_start_matches([' ', '\t']).strip_prefix("///");
    if !rest.split('\n').all(|l| continued(l).is_some())
        || !lit.token().to_string().starts_with('r')
    {
        return None;
    }
    Some(std::iter::once(first).chain(rest.split('\n').filter_map(continued)))
}

/// How many `#` a raw string holding `body` needs: one more than the longest run after a `"`.
fn hashes_needed(body: &str) -> usize {
    memchr::memchr_iter(b'"', body.as_bytes())
        .map(|at| body[at + 1..].bytes().take_while(|b| *b == b'#').count() + 1)
        .max()
        .unwrap_or(0)
}

/// The byte offset of each line doc comment in `text` (`///` but not `////`, or `//!`) and
/// whether it is an inner one: Rust's lexical grammar walked as far as it decides where
/// comments are, i.e. through strings, raw strings, char literals against lifetimes, and nested
/// block comments.
fn doc_line_comments(text: &str) -> Vec<(usize, bool)> {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // Words, numbers and punctuation cannot hide a comment; only quotes and comments can.
        i = next_bracket_literal_or_comment(bytes, i);
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'/' if at(i + 1) == b'/' => {
                match (at(i + 2), at(i + 3)) {
                    (b'/', next) if next != b'/' => found.push((i, false)),
                    (b'!', _) => found.push((i, true)),
                    _ => {}
                }
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'/' if at(i + 1) == b'*' => i = block_comment_end(bytes, i),
            b'"' => {
                i = match raw_string_prefix(bytes, i) {
                    Some(prefix) => prefixed_end(text, prefix),
                    None => quoted_end(bytes, i + 1, b'"'),
                }
            }
            b'\'' => i = char_or_lifetime_end(text, i),
            _ => i += 1,
        }
    }
    found
}

/// The bytes that may start a bracket, a literal other than a number, or a comment. (`r`, `b`
/// and `c` prefixes are found from the quote after them, by [`raw_string_prefix`].)
const STARTS_BRACKET_OR_LITERAL: [bool; 256] = byte_set(b"()[]{}\"'/");

/// A table of `bytes`, for a scan that stops at any of them.
pub(super) const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

/// The first byte from `i` on that may start a bracket, a literal other than a number, or a
/// comment (the end of `bytes` if none does): words and punctuation skipped unread.
pub(super) fn next_bracket_literal_or_comment(bytes: &[u8], i: usize) -> usize {
    let i = i.min(bytes.len());
    i + bytes[i..]
        .iter()
        .position(|b| STARTS_BRACKET_OR_LITERAL[usize::from(*b)])
        .unwrap_or(bytes.len() - i)
}

/// Whether `b` may be part of an identifier, a keyword or a number (a byte of a multi-byte
/// char counts: outside strings and comments, such chars are identifiers').
pub(super) fn is_word_byte(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80
}

/// Where the raw string whose opening quote is at `quote` starts (its `r`, `br` or `cr`), if
/// the quote opens one: `r`, then as many `#` as the string needs, right before it, not part of
/// a longer word.
pub(super) fn raw_string_prefix(bytes: &[u8], quote: usize) -> Option<usize> {
    let hashes = bytes[..quote]
        .iter()
        .rev()
        .take_while(|b| **b == b'#')
        .count();
    let r = quote.checked_sub(hashes + 1)?;
    if bytes[r] != b'r' {
        return None;
    }
    let start = match r.checked_sub(1).map(|p| bytes[p]) {
        Some(b'b' | b'c') => r - 1,
        _ => r,
    };
    match start.checked_sub(1).map(|p| bytes[p]) {
        Some(before) if is_word_byte(before) => None,
        _ => Some(start),
    }
}

/// After the block comment starting at `start`, nested ones inside it included.
pub(super) fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let (mut depth, mut i) = (0usize, start);
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// After the `quote` closing the literal whose contents start at `i`, backslash escapes skipped.
pub(super) fn quoted_end(bytes: &[u8], mut i: usize, quote: u8) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// After the char literal (`'x'`, `'\n'`) or the lifetime or label (`'a`) at `start`: a char
/// literal has its closing quote right after one char, or starts with an escape.
pub(super) fn char_or_lifetime_end(text: &str, start: usize) -> usize {
    let rest = &text[start + 1..];
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (Some('\\'), _) => quoted_end(text.as_bytes(), start + 1, b'\''),
        (Some(c), Some('\'')) => start + 1 + c.len_utf8() + 1,
        _ => start + 1,
    }
}

/// After the token at `start`, which begins with `r`, `b` or `c`: a raw string (`r"…"`,
/// `br#"…"#`, `cr"…"`), a byte or C string (`b"…"`, `c"…"`), a byte char (`b'x'`), or else a
/// word (an identifier, a keyword, a raw identifier `r#name`).
pub(super) fn prefixed_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let mut i = start;
    if matches!(at(i), b'b' | b'c') && at(i + 1) == b'r' {
        i += 1;
    }
    if at(i) == b'r' {
        let hashes = bytes[i + 1..].iter().take_while(|b| **b == b'#').count();
        if at(i + 1 + hashes) == b'"' {
            // The first `"` followed by as many `#` (the loader's doc attributes end each line).
            let closes = |q: usize| {
                bytes
                    .get(q + 1..q + 1 + hashes)
                    .is_some_and(|h| h.iter().all(|b| *b == b'#'))
            };
            return memchr::memchr_iter(b'"', &bytes[i + 2 + hashes..])
                .map(|n| i + 2 + hashes + n)
                .find(|q| closes(*q))
                .map_or(bytes.len(), |q| q + 1 + hashes);
        }
        if i == start && hashes == 1 {
            return word_end(text, start + 2);
        }
        return word_end(text, start);
    }
    match (at(start), at(start + 1)) {
        (b'b' | b'c', b'"') => quoted_end(bytes, start + 2, b'"'),
        (b'b', b'\'') => quoted_end(bytes, start + 2, b'\''),
        _ => word_end(text, start),
    }
}

/// After the identifier, keyword or number starting at `start`, its first byte taken as it is
/// (so that what no word has moves on too). A byte of a multi-byte char counts as a word's:
/// outside strings and comments, such chars are identifiers' (or the file does not lex).
pub(super) fn word_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    start
        + 1
        + bytes[start + 1..]
            .iter()
            .take_while(|b| is_word_byte(**b))
            .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::str_attr;
    use proc_macro2::{TokenStream, TokenTree};
    use quote::ToTokens;

    /// The file's tokens as text, every string literal written as its value (so that `"a"` and
    /// `r"a"` are one), spans left out.
    fn normalized(tokens: TokenStream) -> String {
        let mut out = String::new();
        for token in tokens {
            match token {
                TokenTree::Group(g) if doc_lines(&g).is_some() => {
                    let lines = doc_lines(&g).unwrap();
                    let attributes: Vec<String> = lines
                        .iter()
                        .map(|l| format!("Bracket(doc = {l:?} )"))
                        .collect();
                    // The `#` before the group is out already: one per further line.
                    out.push_str(&attributes.join(" # "));
                }
                TokenTree::Group(g) => {
                    out.push_str(&format!("{:?}(", g.delimiter()));
                    out.push_str(&normalized(g.stream()));
                    out.push(')');
                }
                TokenTree::Literal(l) => match syn::parse_str::<syn::LitStr>(&l.to_string()) {
                    Ok(s) => out.push_str(&format!("{:?}", s.value())),
                    Err(_) => out.push_str(&l.to_string()),
                },
                other => out.push_str(&other.to_string()),
            }
            out.push(' ');
        }
        out
    }

    /// Every item's, field's and variant's doc lines, a merged attribute's read back with
    /// [`merged_doc_lines`]: what the model is given.
    fn docs(file: &syn::File) -> Vec<Vec<String>> {
        struct Docs(Vec<Vec<String>>);
        impl Docs {
            fn read(&mut self, attrs: &[syn::Attribute]) {
                let mut lines = Vec::new();
                for lit in attrs.iter().filter_map(|a| str_attr(&a.meta, "doc")) {
                    lines.extend(lines_of(lit));
                }
                self.0.push(lines);
            }
        }
        impl<'ast> syn::visit::Visit<'ast> for Docs {
            fn visit_item(&mut self, i: &'ast syn::Item) {
                if let syn::Item::Struct(syn::ItemStruct { attrs, .. })
                | syn::Item::Enum(syn::ItemEnum { attrs, .. })
                | syn::Item::Const(syn::ItemConst { attrs, .. })
                | syn::Item::Type(syn::ItemType { attrs, .. })
                | syn::Item::Fn(syn::ItemFn { attrs, .. }) = i
                {
                    self.read(attrs);
                }
                syn::visit::visit_item(self, i);
            }
            fn visit_field(&mut self, f: &'ast syn::Field) {
                self.read(&f.attrs);
                syn::visit::visit_field(self, f);
            }
            fn visit_variant(&mut self, v: &'ast syn::Variant) {
                self.read(&v.attrs);
                syn::visit::visit_variant(self, v);
            }
        }
        let mut docs = Docs(Vec::new());
        docs.read(&file.attrs);
        syn::visit::Visit::visit_file(&mut docs, file);
        docs.0
    }

    /// The lines of a `[doc = …]` group, as separate attributes would hold them.
    fn doc_lines(g: &proc_macro2::Group) -> Option<Vec<String>> {
        let attr: syn::Meta = syn::parse2(g.stream()).ok()?;
        str_attr(&attr, "doc").map(lines_of)
    }

    /// A doc literal's lines as separate attributes would hold them.
    fn lines_of(lit: &syn::LitStr) -> Vec<String> {
        let text = lit.value();
        let merged = merged_doc_lines(lit, &text).map(|lines| lines.map(String::from).collect());
        merged.unwrap_or_else(|| vec![text])
    }

    /// `text` parses to the same file either way, every token on the same line, and its docs
    /// read the same.
    fn same_file(text: &str) {
        let original = syn::parse_file(text).unwrap();
        let Some(rewritten) = with_raw_doc_attributes(text) else {
            return;
        };
        let parsed = syn::parse_file(&rewritten)
            .unwrap_or_else(|e| panic!("{e} in\n{rewritten}\nfrom\n{text}"));
        assert_eq!(
            normalized(original.to_token_stream()),
            normalized(parsed.to_token_stream()),
            "\n{rewritten}"
        );
        assert_eq!(docs(&original), docs(&parsed), "\n{rewritten}");
        assert_eq!(text.lines().count(), rewritten.lines().count());
    }

    #[test]
    fn doc_comments_become_raw_attributes() {
        let text = "//! Crate docs with \"quotes\"#.\n/// A type.\n///\n/// Says \"hi\"## and \\n.\npub struct A { /// The field.\n    pub f: u8 }\n";
        assert_eq!(
            with_raw_doc_attributes(text).unwrap(),
            "#![doc=r##\" Crate docs with \"quotes\"#.\"##]\n#[doc=r###\" A type.\n///\n/// Says \"hi\"## and \\n.\"###]\npub struct A { #[doc=r\" The field.\"]\n    pub f: u8 }\n"
        );
        same_file(text);
    }

    #[test]
    fn what_only_looks_like_a_doc_comment_stays() {
        for text in [
            "//// a plain comment\nstruct A;\n",
            "/* /// in a block /* nested */ /// */ struct A;\n",
            "const S: &str = \"/// in a string \\\" /// \";\n",
            "const S: &str = r#\"/// raw \" /// \"#;\nconst B: &[u8] = br\"///\";\n",
            "const C: char = '\"'; /// doc after a quote char\nstruct A;\n",
            "const C: char = '\\''; const D: u8 = b'\"';\n/// doc\nstruct A;\n",
            "fn f<'a>(x: &'a str) -> &'a str { x } /// doc\nstruct B;\n",
            "fn r#match() {} const S: &str = c\"///\"; /// doc\nstruct C;\n",
            "const N: u32 = 0x1F_u32; // plain\n/// doc\nstruct D;\n",
            "/** block docs stay */ struct E;\n/// é ü\nstruct F;\n",
        ] {
            same_file(text);
        }
        assert_eq!(with_raw_doc_attributes("//// plain\nstruct A;\n"), None);
        assert_eq!(
            with_raw_doc_attributes("/// doc\r\nstruct A;\r\n"),
            None,
            "a carriage return stays with the lexer"
        );
    }

    /// Every Rust file of this repository, fixtures and examples included.
    #[test]
    fn every_rust_file_here_parses_the_same() {
        let mut checked = 0;
        for (_, text) in super::super::repository_rust_files() {
            if syn::parse_file(&text).is_ok() {
                same_file(&text);
                checked += 1;
            }
        }
        assert!(checked > 500, "only {checked} files");
    }
}
