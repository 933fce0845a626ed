//! The reference in the other formats, rendered from its Markdown (the one document the walk
//! writes) through pulldown-cmark's events: HTML with pulldown-cmark's own renderer, AsciiDoc
//! with the few constructs the Markdown uses (headings, paragraphs, nested lists, one table,
//! code spans, links).

use pulldown_cmark::{CowStr, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};
use std::fmt::Write;

fn parser(markdown: &str) -> Parser<'_> {
    Parser::new_ext(markdown, Options::ENABLE_TABLES)
}

/// A link to another document of the reference (`group_version.md#anchor`) pointed at its copy
/// in `ext`; anchors and URLs stay as they are.
fn relink(target: &str, ext: &str) -> String {
    let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
    match path.strip_suffix(".md") {
        Some(stem) if !path.contains("://") => {
            let fragment = if fragment.is_empty() {
                String::new()
            } else {
                format!("#{fragment}")
            };
            format!("{stem}.{ext}{fragment}")
        }
        _ => target.to_owned(),
    }
}

/// A standalone HTML5 document: the Markdown rendered by pulldown-cmark, each heading with the
/// id its links use (GitHub's anchor of its text).
pub fn html(markdown: &str) -> String {
    let mut events: Vec<Event> = Vec::new();
    let mut title = String::new();
    let mut heading: Option<(HeadingLevel, Vec<Event>)> = None;
    for event in parser(markdown) {
        match (event, &mut heading) {
            (Event::Start(Tag::Heading { level, .. }), None) => heading = Some((level, Vec::new())),
            (Event::End(TagEnd::Heading(_)), Some(_)) => {
                let (level, inner) = heading.take().unwrap_or((HeadingLevel::H1, Vec::new()));
                let text = plain_text(&inner);
                if level == HeadingLevel::H1 && title.is_empty() {
                    title.clone_from(&text);
                }
                events.push(Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(super::anchor_of(&text))),
                    classes: Vec::new(),
                    attrs: Vec::new(),
                }));
                events.extend(inner);
                events.push(Event::End(TagEnd::Heading(level)));
            }
            (event, Some((_, inner))) => inner.push(event),
            (
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }),
                None,
            ) => events.push(Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(relink(&dest_url, "html")),
                title,
                id,
            })),
            (event, None) => events.push(event),
        }
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());
    let mut escaped_title = String::new();
    pulldown_cmark::html::push_html(
        &mut escaped_title,
        std::iter::once(Event::Text(title.into())),
    );
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{escaped_title}</title>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )
}

fn plain_text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect()
}

/// An AsciiDoc document (Asciidoctor's dialect). A list item's own paragraphs come right after
/// its first line (as continuations) and its nested list after them, so that each stays
/// attached to its item.
pub fn asciidoc(markdown: &str) -> String {
    let mut w = AsciiDoc::default();
    for event in parser(markdown) {
        w.event(event);
    }
    let mut out = w.blocks.join("\n");
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// A list item being written: its first line, its other paragraphs, its nested list.
#[derive(Default)]
struct Item {
    head: String,
    paragraphs: Vec<String>,
    nested: String,
    /// Inside the item, a paragraph is being read (first or later).
    in_paragraph: bool,
}

#[derive(Default)]
struct AsciiDoc {
    /// Top-level blocks, each ending with a newline.
    blocks: Vec<String>,
    /// The inline text being collected (a paragraph, a heading, a cell).
    text: String,
    /// Open list items, outermost first.
    items: Vec<Item>,
    /// Rows of the table being read, each a list of cells.
    table: Option<Vec<Vec<String>>>,
    heading: Option<HeadingLevel>,
    /// The target of the link being read and where its text starts in `text`.
    link: Option<(String, usize, LinkType)>,
    at_line_start: bool,
    /// Text not yet escaped.
    pending: String,
    /// The top-level list being written.
    list: String,
}

impl AsciiDoc {
    fn event(&mut self, event: Event) {
        if let Event::Text(t) = &event {
            // pulldown-cmark splits text at escapes; markup is judged on the whole run.
            self.pending.push_str(t);
            return;
        }
        self.flush_text();
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(_) => {}
            Event::Code(c) => {
                self.text.push_str(&code(&c));
                self.at_line_start = false;
            }
            Event::SoftBreak | Event::HardBreak => {
                self.text.push('\n');
                self.at_line_start = true;
            }
            // Nothing else occurs in the reference's Markdown (no HTML, rules or footnotes).
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Heading { level, .. } => {
                self.heading = Some(level);
                self.text.clear();
                self.at_line_start = true;
            }
            Tag::Paragraph => {
                self.text.clear();
                self.at_line_start = true;
                if let Some(item) = self.items.last_mut() {
                    item.in_paragraph = true;
                }
            }
            Tag::Item => {
                self.items.push(Item::default());
                self.text.clear();
                self.at_line_start = true;
            }
            Tag::Table(_) => self.table = Some(Vec::new()),
            Tag::TableHead | Tag::TableRow => {
                if let Some(rows) = &mut self.table {
                    rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                self.text.clear();
                self.at_line_start = false;
            }
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => self.link = Some((dest_url.to_string(), self.text.len(), link_type)),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(level) => {
                let text = std::mem::take(&mut self.text);
                let marks = "=".repeat(heading_depth(level));
                let block = if level == HeadingLevel::H1 {
                    format!("{marks} {text}\n")
                } else {
                    let anchor = super::anchor_of(&plain(&text));
                    format!("[[{anchor}]]\n{marks} {text}\n")
                };
                self.blocks.push(block);
                self.heading = None;
            }
            TagEnd::Paragraph => {
                let text = std::mem::take(&mut self.text);
                match self.items.last_mut() {
                    Some(item) if item.head.is_empty() && item.paragraphs.is_empty() => {
                        item.head = text;
                    }
                    Some(item) => item.paragraphs.push(text),
                    None => self.blocks.push(format!("{text}\n")),
                }
                if let Some(item) = self.items.last_mut() {
                    item.in_paragraph = false;
                }
            }
            TagEnd::Item => self.end_item(),
            TagEnd::List(_) if self.items.is_empty() => {
                let list = std::mem::take(&mut self.list);
                self.blocks.push(list);
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.text).replace('|', "\\|");
                if let Some(row) = self.table.as_mut().and_then(|rows| rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::Table => {
                let rows = self.table.take().unwrap_or_default();
                let columns = rows.first().map_or(0, Vec::len);
                let mut block = format!(
                    "[cols=\"{}\",options=\"header\"]\n|===\n",
                    vec!["1"; columns].join(",")
                );
                for row in rows {
                    let cells: Vec<String> = row.iter().map(|c| format!("|{c}")).collect();
                    let _ = writeln!(block, "{}", cells.join(" "));
                }
                block.push_str("|===\n");
                self.blocks.push(block);
            }
            TagEnd::Link => self.end_link(),
            _ => {}
        }
    }

    fn end_item(&mut self) {
        let Some(mut item) = self.items.pop() else {
            return;
        };
        // A tight item's text is not in a paragraph.
        if item.head.is_empty() {
            item.head = std::mem::take(&mut self.text);
        }
        let depth = self.items.len() + 1;
        let mut out = format!("{} {}\n", "*".repeat(depth), item.head);
        for p in &item.paragraphs {
            let _ = writeln!(out, "+\n{p}");
        }
        out.push_str(&item.nested);
        match self.items.last_mut() {
            Some(parent) => parent.nested.push_str(&out),
            None => self.list.push_str(&out),
        }
        self.text.clear();
    }

    fn end_link(&mut self) {
        let Some((target, start, link_type)) = self.link.take() else {
            return;
        };
        let label = self.text.split_off(start);
        let link = match (target.strip_prefix('#'), link_type) {
            (_, LinkType::Autolink) => format!("{target}[]"),
            (Some(anchor), _) => format!("<<{anchor},{label}>>"),
            (None, _) if target.contains("://") => {
                format!("{target}[{}]", label.replace(']', "\\]"))
            }
            (None, _) => format!(
                "xref:{}[{}]",
                relink(&target, "adoc"),
                label.replace(']', "\\]")
            ),
        };
        self.text.push_str(&link);
    }

    fn flush_text(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let escaped = text(&std::mem::take(&mut self.pending), self.at_line_start);
        self.text.push_str(&escaped);
        self.at_line_start = false;
    }
}

fn heading_depth(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The text of a heading for its anchor: passthrough wrappers removed.
fn plain(text: &str) -> String {
    text.replace("pass:c[", "")
        .replace("\\]", "]")
        .replace(']', "")
}

/// Prose as AsciiDoc: left as it is where nothing in it is markup, else kept literal with a
/// `pass:c[]` passthrough (which still escapes `<`, `>` and `&` for the output). A line that
/// would start a block (a list, a title, a table) starts with `{empty}`.
fn text(t: &str, at_line_start: bool) -> String {
    const MARKUP: &[char] = &[
        '*', '_', '`', '#', '^', '~', '{', '}', '[', ']', '+', '\\', '<', '>', '\'', '"', '&',
    ];
    const REPLACED: &[&str] = &["--", "...", "(C)", "(R)", "(TM)", "->", "<-", "=>", "<="];
    let literal = !t.contains(MARKUP) && !REPLACED.iter().any(|r| t.contains(r));
    let body = if literal {
        t.to_owned()
    } else {
        format!("pass:c[{}]", t.replace(']', "\\]"))
    };
    let starts_block = t.starts_with(['-', '*', '.', '=', '|', '/', ':', '<', '>'])
        || t.split_once(['.', ')'])
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    if at_line_start && literal && starts_block {
        format!("{{empty}}{body}")
    } else {
        body
    }
}

/// A code span: monospace, no substitution but the special characters.
fn code(c: &str) -> String {
    if c.contains(['+', '`']) {
        format!("`pass:c[{}]`", c.replace(']', "\\]"))
    } else {
        format!("`+{c}+`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# g/v\n\nGenerated by `opgen docs`.\n\n## Kinds\n\n- [Foo](#foo)\n\n## Foo\n\nA \\*Foo\\* -- see <https://k8s.io/x>.\n\n| Name | Type |\n| --- | --- |\n| a \\| b | c |\n\nFields:\n\n- `size` ([Bar](#bar)), optional\n  - Default: `1`\n\n  size is the size.\n- `image` (string), required\n\n### Bar\n\n- Every field of [ObjectMeta](https://k8s.io/om), inlined\n\n[other](other_v1.md#foo)\n";

    #[test]
    fn html_headings_get_the_ids_links_use() {
        let html = html(DOC);
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>g/v</title>"), "{html}");
        assert!(html.contains("<h2 id=\"foo\">Foo</h2>"), "{html}");
        assert!(html.contains("<a href=\"#foo\">Foo</a>"), "{html}");
        assert!(html.contains("<h3 id=\"bar\">Bar</h3>"), "{html}");
        assert!(
            html.contains("<a href=\"other_v1.html#foo\">other</a>"),
            "{html}"
        );
        assert!(html.contains("<td>a | b</td>"), "{html}");
    }

    #[test]
    fn asciidoc_keeps_structure_and_prose_literal() {
        let adoc = asciidoc(DOC);
        let expected = "= g/v\n\nGenerated by `+opgen docs+`.\n\n[[kinds]]\n== Kinds\n\n* <<foo,Foo>>\n\n[[foo]]\n== Foo\n\npass:c[A *Foo* -- see ]https://k8s.io/x[].\n\n[cols=\"1,1\",options=\"header\"]\n|===\n|Name |Type\n|a \\| b |c\n|===\n\nFields:\n\n* `+size+` (<<bar,Bar>>), optional\n+\nsize is the size.\n** Default: `+1+`\n* `+image+` (string), required\n\n[[bar]]\n=== Bar\n\n* Every field of https://k8s.io/om[ObjectMeta], inlined\n\nxref:other_v1.adoc#foo[other]\n";
        assert_eq!(adoc, expected);
    }

    #[test]
    fn prose_that_would_be_markup_is_passed_through() {
        assert_eq!(text("plain words", true), "plain words");
        assert_eq!(text("a_b", false), "pass:c[a_b]");
        assert_eq!(text("x [y]", false), "pass:c[x [y\\]]");
        assert_eq!(text("- item", true), "{empty}- item");
        assert_eq!(text("1. first", true), "{empty}1. first");
        assert_eq!(code("a+b"), "`pass:c[a+b]`");
    }
}
