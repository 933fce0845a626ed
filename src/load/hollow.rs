//! Function bodies and test modules blanked out of a file's text before it is lexed and parsed.
//!
//! Nothing the manifests need is inside a function body or a `#[cfg(test)]` module (the model
//! ignores test fixtures, as controller-gen ignores `_test.go` files), yet lexing and parsing
//! them was a third of a one-kind `opgen manifests`: the controller's bodies and its test
//! module. Each such `{ … }` keeps its braces and line breaks and has every other character
//! replaced by a space, so every token left keeps its line and column, an item keeps its
//! body's lines, and the marker stage still reports a marker written inside a body. What syn no
//! longer sees is returned as lines to skip: multi-line literals in the bodies (their lines
//! are not comments) and the test modules' insides. The compiler, not opgen, reports syntax
//! errors inside a body.
//!
//! The walk reads Rust's lexical grammar as far as it decides where tokens are (the helpers of
//! [`super::raw_docs`]) and tracks items the way syn would: a function's body is the first
//! `{ … }` after `fn name` outside generics, the items of an `impl`, a trait or a module are in
//! the first `{ … }` after its keyword. Should it misread a file, the blanked text fails to
//! parse and the loader parses the text as written.

use super::LineRanges;
use super::raw_docs::{
    block_comment_end, char_or_lifetime_end, is_word_byte, next_bracket_literal_or_comment,
    prefixed_end, quoted_end, raw_string_prefix, word_end,
};

/// `text` with its item-level function bodies (those of free functions, inherent and trait
/// impls, traits and inline modules) and the insides of its `#[cfg(test)] mod … { … }` blanked,
/// and the line ranges whose text syn then no longer sees but that are not comments; `None`
/// when there is nothing to blank. A text without the words a function or a test module needs
/// (`fn`, `cfg`), as many API files are, is not walked.
pub fn blank(text: &str) -> Option<(String, LineRanges)> {
    if !text.contains("fn") && !text.contains("cfg") {
        return None;
    }
    let mut walk = Walk {
        text,
        blanked: Vec::new(),
        skipped: Vec::new(),
    };
    walk.run();
    if walk.blanked.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (start, end) in walk.blanked {
        out.push_str(&text[done..start]);
        out.extend(
            text[start..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        done = end;
    }
    out.push_str(&text[done..]);
    Some((out, walk.skipped))
}

/// One token, as far as the walk needs to know it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Token<'a> {
    Word(&'a str),
    Punct(u8),
    Open(u8),
    Close,
    /// A literal that is not a word (strings, chars, raw strings): (start, end) in bytes.
    Literal(usize, usize),
}

/// Where the walk of a sequence of items is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum State {
    /// Between items, or in an item whose braces are left alone (struct, enum, macro, …).
    Item,
    /// Right after `fn`: a name makes it a function (else a pointer type, `fn(u8)`).
    Fn,
    /// After `fn name`: its body is the first `{ … }` outside generics, unless a `;` ends it.
    Signature { angles: usize },
    /// After `impl`, `trait` or `mod`: its items are in the first `{ … }` outside generics.
    Container { angles: usize, module: bool },
}

/// What the tokens of an open group are.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Group {
    /// A sequence of items: the file, or the inside of an `impl`, a trait or a module.
    Items {
        state: State,
        /// Whether the attributes of the item being read include `#[cfg(test)]`.
        test_cfg: bool,
        /// Where the attribute being read (`[…]` after `#`) starts, if one is.
        attribute: Option<usize>,
        after_pound: bool,
    },
    /// An attribute of an item sequence: `#[…]`.
    Attribute,
    /// Anything else that is not blanked: a struct's fields, a parenthesis, a macro's tokens.
    Other,
    /// A function body (blanked), or a group inside one; `start` is the body's `{`.
    Body { start: usize },
    /// A test module's inside (blanked).
    TestModule { start: usize },
}

struct Walk<'a> {
    text: &'a str,
    /// Byte ranges to blank, in order.
    blanked: Vec<(usize, usize)>,
    skipped: LineRanges,
}

impl<'a> Walk<'a> {
    fn run(&mut self) {
        let items = Group::Items {
            state: State::Item,
            test_cfg: false,
            attribute: None,
            after_pound: false,
        };
        let mut stack = vec![items];
        let mut i = 0;
        while let Some((token, start, end)) =
            self.next_token(i, !matches!(stack.last(), Some(Group::Items { .. })))
        {
            i = end;
            let group = stack.last_mut().expect("the file's group is never closed");
            match token {
                Token::Open(delimiter) => {
                    let inner = match group {
                        Group::Body { start } => Group::Body { start: *start },
                        Group::TestModule { start } => Group::TestModule { start: *start },
                        Group::Items { .. } => self.opened(group, delimiter, start),
                        Group::Attribute | Group::Other => Group::Other,
                    };
                    stack.push(inner);
                }
                Token::Close => {
                    let closed = stack.pop().expect("a group is open");
                    let Some(parent) = stack.last_mut() else {
                        return; // unbalanced: the lexer reports it
                    };
                    match (closed, parent) {
                        (Group::Body { start: open }, Group::Items { .. }) => {
                            self.blanked.push((open + 1, start));
                        }
                        (Group::TestModule { start: open }, Group::Items { .. }) => {
                            self.blanked.push((open + 1, start));
                            let (first, last) = (self.line_of(open), self.line_of(start));
                            if last > first {
                                self.skipped.push((first + 1, last));
                            }
                        }
                        (
                            Group::Attribute,
                            Group::Items {
                                attribute,
                                test_cfg,
                                ..
                            },
                        ) => {
                            if let Some(open) = attribute.take() {
                                let inside = self.text[open + 1..start].chars();
                                *test_cfg |= inside
                                    .filter(|c| !c.is_whitespace())
                                    .eq("cfg(test)".chars());
                            }
                        }
                        _ => {}
                    }
                }
                Token::Literal(from, to) => {
                    if matches!(group, Group::Body { .. }) && self.text[from..to].contains('\n') {
                        let (first, last) = (self.line_of(from), self.line_of(to));
                        self.skipped.push((first + 1, last));
                    }
                }
                Token::Word(_) | Token::Punct(_) => {
                    if let Group::Items { .. } = group {
                        Self::item_token(group, token, self.text.as_bytes(), start);
                    }
                }
            }
        }
    }

    /// The group a `delimiter` opened at `at` in the item sequence `items` is.
    fn opened(&self, items: &mut Group, delimiter: u8, at: usize) -> Group {
        let Group::Items {
            state,
            test_cfg,
            attribute,
            after_pound,
        } = items
        else {
            unreachable!("called on item sequences")
        };
        let pound = std::mem::replace(after_pound, false);
        if *state == State::Fn {
            *state = State::Item;
        }
        if delimiter != b'{' {
            if delimiter == b'[' && pound && *state == State::Item {
                *attribute = Some(at);
                return Group::Attribute;
            }
            return Group::Other;
        }
        let group = match *state {
            State::Item | State::Fn => Group::Other,
            State::Signature { angles: 0 } => Group::Body { start: at },
            State::Container { angles: 0, module } if module && *test_cfg => {
                Group::TestModule { start: at }
            }
            State::Container { angles: 0, .. } => Group::Items {
                state: State::Item,
                test_cfg: false,
                attribute: None,
                after_pound: false,
            },
            // A const generic's block: `Foo<{ N + 1 }>`.
            State::Signature { .. } | State::Container { .. } => return Group::Other,
        };
        // A brace group ends the item (a struct's fields, a function's body, …).
        *state = State::Item;
        *test_cfg = false;
        group
    }

    /// A word or punctuation `token` at `at` read in the item sequence `items`.
    fn item_token(items: &mut Group, token: Token<'_>, bytes: &[u8], at: usize) {
        let Group::Items {
            state,
            test_cfg,
            after_pound,
            ..
        } = items
        else {
            return;
        };
        *after_pound = token == Token::Punct(b'#');
        *state = match (token, *state) {
            (Token::Word("fn"), State::Item) => State::Fn,
            (Token::Word(_), State::Fn) => State::Signature { angles: 0 },
            (Token::Word(w @ ("impl" | "trait" | "mod")), State::Item) => State::Container {
                angles: 0,
                module: w == "mod",
            },
            (_, State::Fn) => State::Item,
            (Token::Punct(b';'), State::Item) => {
                *test_cfg = false;
                State::Item
            }
            (
                Token::Punct(b';'),
                State::Signature { angles: 0 } | State::Container { angles: 0, .. },
            ) => {
                *test_cfg = false;
                State::Item
            }
            (Token::Punct(b'<'), State::Signature { angles }) => {
                State::Signature { angles: angles + 1 }
            }
            (Token::Punct(b'<'), State::Container { angles, module }) => State::Container {
                angles: angles + 1,
                module,
            },
            // Not the `>` of `->`.
            (Token::Punct(b'>'), State::Signature { angles })
                if at == 0 || bytes[at - 1] != b'-' =>
            {
                State::Signature {
                    angles: angles.saturating_sub(1),
                }
            }
            (Token::Punct(b'>'), State::Container { angles, module })
                if at == 0 || bytes[at - 1] != b'-' =>
            {
                State::Container {
                    angles: angles.saturating_sub(1),
                    module,
                }
            }
            (_, state) => state,
        };
    }

    /// The token from byte `i` on, comments and whitespace skipped, with its start and end.
    /// `brackets_only`: the caller needs only brackets and literals (the tokens of a group that
    /// is not a sequence of items), so words and punctuation may be skipped unread.
    fn next_token(&self, mut i: usize, brackets_only: bool) -> Option<(Token<'a>, usize, usize)> {
        let text = self.text;
        let bytes = text.as_bytes();
        let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
        loop {
            if brackets_only {
                i = next_bracket_literal_or_comment(bytes, i);
            }
            let start = i;
            let b = *bytes.get(i)?;
            let end = match b {
                b'/' if at(i + 1) == b'/' => {
                    i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                    continue;
                }
                b'/' if at(i + 1) == b'*' => {
                    i = block_comment_end(bytes, i);
                    continue;
                }
                b if b.is_ascii_whitespace() => {
                    i += 1;
                    continue;
                }
                b'"' => {
                    // Reached without its prefix when words are skipped: `r"…"`, `br#"…"#`.
                    if let Some(prefix) = raw_string_prefix(bytes, i) {
                        return Some(literal(start, prefixed_end(text, prefix)));
                    }
                    return Some(literal(start, quoted_end(bytes, i + 1, b'"')));
                }
                b'\'' => {
                    let end = char_or_lifetime_end(text, i);
                    // A lifetime or label is a quote and a word; a char literal ends in a quote.
                    if end > start + 1 && bytes[end - 1] == b'\'' {
                        return Some(literal(start, end));
                    }
                    return Some((Token::Punct(b'\''), start, end));
                }
                b'r' | b'b' | b'c' => {
                    let end = prefixed_end(text, i);
                    let token = &text[start..end];
                    if token.contains(['"', '\'']) {
                        return Some(literal(start, end));
                    }
                    end
                }
                b if is_word_byte(b) => word_end(text, i),
                b'(' | b'[' | b'{' => return Some((Token::Open(b), start, start + 1)),
                b')' | b']' | b'}' => return Some((Token::Close, start, start + 1)),
                _ => return Some((Token::Punct(b), start, start + 1)),
            };
            return Some((Token::Word(&text[start..end]), start, end));
        }
    }

    /// The 1-based line of byte `at`. Asked only of multi-line literals in bodies and of test
    /// modules, both rare.
    fn line_of(&self, at: usize) -> usize {
        1 + self.text.as_bytes()[..at]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
    }
}

fn literal(start: usize, end: usize) -> (Token<'static>, usize, usize) {
    (Token::Literal(start, end), start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanked(text: &str) -> (String, LineRanges) {
        blank(text).unwrap_or_else(|| (text.to_owned(), Vec::new()))
    }

    #[test]
    fn bodies_of_functions_methods_and_nested_modules_are_blanked() {
        let text = "fn a() -> u8 { 1 }\nimpl<T: Fn() -> u8> S<T> where T: Clone { pub async fn b(&self) {\n    x();\n} }\ntrait T { fn c() { } fn d(); }\npub mod m { const fn e<const N: usize>() -> Foo<{ N + 1 }> { todo!() } }\n";
        let (out, skipped) = blanked(text);
        assert_eq!(
            out,
            "fn a() -> u8 {   }\nimpl<T: Fn() -> u8> S<T> where T: Clone { pub async fn b(&self) {\n        \n} }\ntrait T { fn c() { } fn d(); }\npub mod m { const fn e<const N: usize>() -> Foo<{ N + 1 }> {         } }\n"
        );
        assert!(skipped.is_empty());
    }

    #[test]
    fn types_consts_statics_macros_and_function_pointers_are_kept() {
        let text = "struct S { f: fn(u8) -> u8 }\nenum E { A = { 1 } }\nconst C: fn() = { fn inner() { body() } inner };\ntype F = fn() -> u8;\nmacro_rules! m { () => { fn x() { y } } }\nextern \"C\" { fn z(); }\nstatic X: &[u8] = &{ [1] };\nfn r#match<'a>(x: &'a str) -> char { 'x' }\n";
        let (out, _) = blanked(text);
        assert_eq!(out, text.replace("{ 'x' }", "{     }"));
    }

    #[test]
    fn strings_comments_and_chars_do_not_open_or_close_anything() {
        let text = "fn f() { let s = \"}\"; let c = '}'; /* } */ // }\n let r = r#\"}\"#; }\nstruct A { a: u8 }\n";
        let (out, _) = blanked(text);
        assert_eq!(
            out,
            format!(
                "fn f() {{{}\n{}}}\nstruct A {{ a: u8 }}\n",
                " ".repeat(39),
                " ".repeat(17)
            )
        );
    }

    #[test]
    fn raw_strings_end_at_their_own_quotes() {
        let text =
            "fn f() { g(r\"\\\", br\"\\\", cr#\"\"}\"#, b\"\\\"}\"); }\nstruct A { a: u8 }\n";
        let (out, _) = blanked(text);
        assert_eq!(
            out,
            format!("fn f() {{{}}}\nstruct A {{ a: u8 }}\n", " ".repeat(35))
        );
    }

    #[test]
    fn test_modules_are_blanked_and_their_lines_skipped() {
        let text = "#[cfg(test)]\n#[allow(unused)]\nmod tests {\n    #[derive(CustomResource)]\n    struct W;\n}\n#[cfg(not(test))]\nmod kept {\n    struct K;\n}\n#[cfg( test )]\nstruct Fixture { a: u8 }\nmod after { fn f() {} }\n";
        let (out, skipped) = blanked(text);
        assert_eq!(
            out,
            "#[cfg(test)]\n#[allow(unused)]\nmod tests {\n                             \n             \n}\n#[cfg(not(test))]\nmod kept {\n    struct K;\n}\n#[cfg( test )]\nstruct Fixture { a: u8 }\nmod after { fn f() {} }\n"
        );
        assert_eq!(skipped, vec![(4, 6)]);
    }

    #[test]
    fn multi_line_literals_in_bodies_are_skipped_lines() {
        let text = "fn f() {\n    let yaml = \"a:\n// +kubebuilder:not-a-marker\n\";\n    g(r#\"one line\"#);\n}\n";
        let (out, skipped) = blanked(text);
        assert_eq!(out.lines().count(), text.lines().count());
        assert_eq!(skipped, vec![(3, 4)]);
    }

    #[test]
    fn columns_are_kept_after_wide_characters() {
        let text = "fn f() { \"é\" } struct A;\n";
        let (out, _) = blanked(text);
        assert_eq!(out, "fn f() {     } struct A;\n");
        assert_eq!(out.chars().count(), text.chars().count());
    }

    #[test]
    fn nothing_to_blank_is_none() {
        assert_eq!(blank("struct A { f: fn(u8) }\nfn g();\n"), None);
    }

    /// Every Rust file of this repository, fixtures and examples included: the blanked text
    /// parses to the file as written with the bodies and test modules emptied.
    #[test]
    fn every_rust_file_here_parses_as_itself_emptied() {
        use quote::ToTokens;
        // A blanked body or module loses its inner attributes (`#![…]`, `//!`) too.
        fn outer_only(attrs: &mut Vec<syn::Attribute>) {
            attrs.retain(|a| matches!(a.style, syn::AttrStyle::Outer));
        }
        fn emptied(items: &mut Vec<syn::Item>) {
            for item in items {
                match item {
                    syn::Item::Fn(f) => {
                        f.block.stmts.clear();
                        outer_only(&mut f.attrs);
                    }
                    syn::Item::Impl(i) => {
                        for item in &mut i.items {
                            if let syn::ImplItem::Fn(f) = item {
                                f.block.stmts.clear();
                                outer_only(&mut f.attrs);
                            }
                        }
                    }
                    syn::Item::Trait(t) => {
                        for item in &mut t.items {
                            if let syn::TraitItem::Fn(f) = item
                                && let Some(block) = &mut f.default
                            {
                                block.stmts.clear();
                                outer_only(&mut f.attrs);
                            }
                        }
                    }
                    syn::Item::Mod(m) => {
                        let test = m.attrs.iter().any(|a| {
                            a.path().is_ident("cfg")
                                && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
                        });
                        if let Some((_, items)) = &mut m.content {
                            if test {
                                items.clear();
                                outer_only(&mut m.attrs);
                            } else {
                                emptied(items);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let (mut checked, mut changed) = (0, 0);
        for (path, text) in super::super::repository_rust_files() {
            let Ok(mut expected) = syn::parse_file(&text) else {
                continue;
            };
            checked += 1;
            let Some((out, _)) = blank(&text) else {
                continue;
            };
            changed += 1;
            let got = syn::parse_file(&out)
                .unwrap_or_else(|e| panic!("{}: {e} in\n{out}", path.display()));
            emptied(&mut expected.items);
            assert_eq!(
                got.to_token_stream().to_string(),
                expected.to_token_stream().to_string(),
                "{}",
                path.display()
            );
            assert_eq!(out.lines().count(), text.lines().count());
        }
        assert!(
            checked > 500 && changed > 300,
            "{checked} files, {changed} blanked"
        );
    }
}
