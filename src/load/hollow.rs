//! Function bodies and test modules hollowed out of a file's tokens before syn parses them.
//!
//! Nothing the manifests need is inside a function body or a `#[cfg(test)]` module (the model
//! ignores test fixtures, as controller-gen ignores `_test.go` files), yet syn spends most of
//! a controller file's parse on them: on a one-kind project, the controller's bodies and its
//! test module were a third of the instructions of `opgen manifests`. Each such `{ … }` is
//! replaced by an empty group with the same span, so the item keeps its place and its body's
//! lines, and the marker stage still reports a marker written inside a body. What syn no
//! longer sees is returned as lines to skip: multi-line literals in the bodies (their lines are
//! not comments) and the test modules' insides. The compiler, not opgen, reports syntax errors
//! inside a body.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};

/// A file's tokens, ready for syn.
pub struct Hollowed {
    pub tokens: TokenStream,
    /// The line ranges (first, last) whose text syn no longer sees but that are not comments.
    pub skipped: Vec<(usize, usize)>,
}

/// `tokens`, a file's, with its item-level function bodies (those of free functions, inherent
/// and trait impls, traits and inline modules) and its `#[cfg(test)] mod … { … }` contents
/// emptied. Recursive: the tokens must be nested no deeper than the stack allows
/// (`load::MAX_NESTING`).
pub fn hollow(tokens: TokenStream) -> Hollowed {
    let mut skipped = Vec::new();
    let tokens = items(tokens, &mut skipped);
    Hollowed { tokens, skipped }
}

/// Whether [`hollow`] may empty anything of `text`: whether it has a function or a test
/// module, by the words these need. Most API files have neither, and need not be walked.
pub fn may_empty(text: &str) -> bool {
    text.contains("fn") || text.contains("test")
}

/// Where the walk of one sequence of items is.
#[derive(Clone, Copy)]
enum State {
    /// Between items, or in an item whose braces are left alone (struct, enum, macro, …).
    Item,
    /// After `fn name`: its body is the first `{ … }` outside generics, unless a `;` ends it.
    Signature { angles: usize },
    /// After `impl`, `trait` or `mod`: its items are in the first `{ … }` outside generics.
    Container { angles: usize, module: bool },
}

/// `stream`, a sequence of items (a file, or the inside of an `impl`, a trait or an inline
/// module), hollowed. Only these groups are taken apart and built again; the tokens of any
/// other group are left as they are, as reading them would clone them.
fn items(stream: TokenStream, skipped: &mut Vec<(usize, usize)>) -> TokenStream {
    let mut tokens = stream.into_iter().peekable();
    let mut out = Vec::with_capacity(tokens.size_hint().0);
    let mut state = State::Item;
    // The attributes (`[…]` after `#`) of the item being read, for a module's `#[cfg(test)]`.
    let mut attributes: Vec<Group> = Vec::new();
    let mut after_minus = false;
    let mut after_pound = false;
    while let Some(token) = tokens.next() {
        let (minus, pound) = match &token {
            TokenTree::Punct(p) => (
                p.as_char() == '-' && p.spacing() == Spacing::Joint,
                p.as_char() == '#',
            ),
            _ => (false, false),
        };
        let token = match (token, &mut state) {
            (TokenTree::Group(g), State::Item)
                if after_pound && g.delimiter() == Delimiter::Bracket =>
            {
                attributes.push(g.clone());
                TokenTree::Group(g)
            }
            (TokenTree::Ident(i), State::Item) if i == "fn" => {
                if matches!(tokens.peek(), Some(TokenTree::Ident(_))) {
                    state = State::Signature { angles: 0 };
                }
                TokenTree::Ident(i)
            }
            (TokenTree::Ident(i), State::Item) if i == "impl" || i == "trait" || i == "mod" => {
                state = State::Container {
                    angles: 0,
                    module: i == "mod",
                };
                TokenTree::Ident(i)
            }
            (TokenTree::Punct(p), State::Item) if p.as_char() == ';' => {
                attributes.clear();
                TokenTree::Punct(p)
            }
            (
                TokenTree::Punct(p),
                State::Signature { angles: 0 } | State::Container { angles: 0, .. },
            ) if p.as_char() == ';' => {
                state = State::Item;
                attributes.clear();
                TokenTree::Punct(p)
            }
            (
                TokenTree::Punct(p),
                State::Signature { angles } | State::Container { angles, .. },
            ) if p.as_char() == '<' => {
                *angles += 1;
                TokenTree::Punct(p)
            }
            (
                TokenTree::Punct(p),
                State::Signature { angles } | State::Container { angles, .. },
            ) if p.as_char() == '>' && !after_minus => {
                *angles = angles.saturating_sub(1);
                TokenTree::Punct(p)
            }
            (TokenTree::Group(g), state)
                if g.delimiter() == Delimiter::Brace && !matches!(state, State::Item) =>
            {
                let span = g.span();
                let inside = match *state {
                    State::Signature { angles: 0 } => {
                        multi_line_literals(into_stream(g), skipped);
                        TokenStream::new()
                    }
                    State::Container { angles: 0, module } => {
                        if module && attributes.iter().any(is_cfg_test) {
                            let first = g.span_open().start().line;
                            let last = g.span_close().start().line;
                            if last > first {
                                skipped.push((first + 1, last));
                            }
                            TokenStream::new()
                        } else {
                            items(into_stream(g), skipped)
                        }
                    }
                    // A const generic's block: `Foo<{ N + 1 }>`.
                    State::Signature { .. } | State::Container { .. } => {
                        after_minus = false;
                        after_pound = false;
                        out.push(TokenTree::Group(g));
                        continue;
                    }
                    State::Item => unreachable!("left alone by the guard"),
                };
                *state = State::Item;
                attributes.clear();
                let mut group = Group::new(Delimiter::Brace, inside);
                group.set_span(span);
                TokenTree::Group(group)
            }
            (TokenTree::Group(g), State::Item) if g.delimiter() == Delimiter::Brace => {
                attributes.clear();
                TokenTree::Group(g)
            }
            (token, _) => token,
        };
        after_minus = minus;
        after_pound = pound;
        out.push(token);
    }
    out.into_iter().collect()
}

/// A group's tokens, taken from it: the group is dropped first, so that they are not shared
/// with it, and reading them moves them rather than cloning them.
fn into_stream(group: Group) -> TokenStream {
    let stream = group.stream();
    drop(group);
    stream
}

/// Whether an attribute (`[…]` after `#`) is `#[cfg(test)]`.
fn is_cfg_test(attr: &Group) -> bool {
    let mut tokens = attr.stream().into_iter();
    matches!(tokens.next(), Some(TokenTree::Ident(i)) if i == "cfg")
        && matches!(tokens.next(), Some(TokenTree::Group(g))
        if g.delimiter() == Delimiter::Parenthesis && {
            let mut inner = g.stream().into_iter();
            matches!(inner.next(), Some(TokenTree::Ident(t)) if t == "test") && inner.next().is_none()
        })
        && tokens.next().is_none()
}

/// The lines after the first of each literal in `stream` that spans several lines.
fn multi_line_literals(stream: TokenStream, skipped: &mut Vec<(usize, usize)>) {
    for token in stream {
        match token {
            TokenTree::Literal(l) => {
                let span = l.span();
                let (first, last) = (span.start().line, span.end().line);
                if last > first {
                    skipped.push((first + 1, last));
                }
            }
            TokenTree::Group(g) => multi_line_literals(into_stream(g), skipped),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hollowed(text: &str) -> (String, Vec<(usize, usize)>) {
        let Hollowed { tokens, skipped } = hollow(text.parse().unwrap());
        (tokens.to_string(), skipped)
    }

    fn tokens(text: &str) -> String {
        text.parse::<TokenStream>().unwrap().to_string()
    }

    #[test]
    fn bodies_of_functions_methods_and_nested_modules_are_emptied() {
        let text = "fn a() -> u8 { 1 }\nimpl<T: Fn() -> u8> S<T> where T: Clone { pub async fn b(&self) { x(); } }\ntrait T { fn c() { } fn d(); }\npub mod m { const fn e<const N: usize>() -> Foo<{ N + 1 }> { todo!() } }\n";
        let (out, skipped) = hollowed(text);
        assert_eq!(
            out,
            tokens(
                "fn a() -> u8 {}\nimpl<T: Fn() -> u8> S<T> where T: Clone { pub async fn b(&self) {} }\ntrait T { fn c() {} fn d(); }\npub mod m { const fn e<const N: usize>() -> Foo<{ N + 1 }> {} }\n"
            )
        );
        assert!(skipped.is_empty());
    }

    #[test]
    fn types_consts_statics_macros_and_function_pointers_are_kept() {
        let text = "struct S { f: fn(u8) -> u8 }\nenum E { A = { 1 } }\nconst C: fn() = { fn inner() { body() } inner };\ntype F = fn() -> u8;\nmacro_rules! m { () => { fn x() { y } } }\nextern \"C\" { fn z(); }\nstatic X: &[u8] = &{ [1] };\n";
        let (out, skipped) = hollowed(text);
        assert_eq!(out, tokens(text));
        assert!(skipped.is_empty());
    }

    #[test]
    fn test_modules_are_emptied_and_their_lines_skipped() {
        let text = "#[cfg(test)]\n#[allow(unused)]\nmod tests {\n    #[derive(CustomResource)]\n    struct W;\n}\n#[cfg(not(test))]\nmod kept {\n    struct K;\n}\n#[cfg(test)]\nstruct Fixture { a: u8 }\nmod after { fn f() {} }\n";
        let (out, skipped) = hollowed(text);
        assert_eq!(
            out,
            tokens(
                "#[cfg(test)]\n#[allow(unused)]\nmod tests {}\n#[cfg(not(test))]\nmod kept {\n    struct K;\n}\n#[cfg(test)]\nstruct Fixture { a: u8 }\nmod after { fn f() {} }\n"
            )
        );
        assert_eq!(skipped, vec![(4, 6)]);
    }

    #[test]
    fn multi_line_literals_in_bodies_are_skipped_lines() {
        let text = "fn f() {\n    let yaml = \"a:\n// +kubebuilder:not-a-marker\n\";\n    g(r#\"one line\"#);\n}\n";
        let (out, skipped) = hollowed(text);
        assert_eq!(out, tokens("fn f() {}"));
        assert_eq!(skipped, vec![(3, 4)]);
    }

    #[test]
    fn an_emptied_body_keeps_its_span() {
        let out = hollow("fn f() {\n    x();\n}\n".parse().unwrap());
        let Some(TokenTree::Group(body)) = out.tokens.into_iter().last() else {
            panic!("no body");
        };
        assert!(body.stream().is_empty());
        assert_eq!(body.span_open().start().line, 1);
        assert_eq!(body.span_close().start().line, 3);
    }
}
