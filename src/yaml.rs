//! YAML output that is byte-identical to controller-gen's.
//!
//! controller-gen turns every object into JSON, decodes that JSON back into a generic map and
//! writes the map with `gopkg.in/yaml.v2` v2.4.0 (`yaml.Marshal`). This module reproduces that
//! library's encoder (key order, choice of scalar style) and its libyaml-derived emitter (layout,
//! quoting, escaping, folding at 80 columns) for every value a `serde_json::Value` can hold.
//!
//! The emitter keeps the same state as libyaml (`column`, `indent`, `whitespace`, `indention`)
//! and performs the same state changes in the same order, because the output depends on that
//! state in ways that are easy to get wrong with a simpler model (folding columns, indentless
//! sequences, compact nesting after `? ` keys, empty lines in literal blocks).

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Indentation step of yaml.v2's emitter.
const INDENT_STEP: usize = 2;
/// yaml.v2's preferred width: a scalar is folded at the first space found after this column.
const LINE_WIDTH: usize = 80;
const SPACES: &str = "                                                                ";
/// Longest key (in bytes) that libyaml writes as an implicit `key: value` pair.
const MAX_SIMPLE_KEY_BYTES: usize = 128;

/// One YAML document, no leading `---`, ends with a newline.
#[must_use]
pub fn to_string(value: &Value) -> String {
    write_document(String::new(), value)
}

/// Several documents, each preceded by a `---` line, as controller-gen writes multi-object files.
#[must_use]
pub fn to_documents(values: &[Value]) -> String {
    values.iter().fold(String::new(), |mut out, value| {
        out.push_str("---\n");
        write_document(out, value)
    })
}

/// The yaml.v2 mapping-key ordering, exposed for callers that need it.
///
/// At the first differing character: two letters compare by code point, a non-letter sorts
/// before a letter, and otherwise the numeric runs starting there compare as numbers (then by
/// run length, then by code point). A proper prefix sorts first.
#[must_use]
pub fn compare_keys(a: &str, b: &str) -> Ordering {
    if key_less(a, b) {
        Ordering::Less
    } else if key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// The documents of a YAML stream, split at `---` lines: (the 1-based line each document's
/// text starts on, that text), empty documents included.
pub fn split_documents(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let (mut start, mut from, mut at) = (1, 0, 0);
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end();
        if bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t") {
            out.push((start, &text[from..at]));
            start = index + 2;
            from = at + line.len();
        }
        at += line.len();
    }
    out.push((start, &text[from..]));
    out
}

fn write_document(out: String, value: &Value) -> String {
    let mut emitter = Emitter::new(out);
    emitter.node(value, Context::Standalone);
    emitter.finish()
}

// ---------------------------------------------------------------------------------------------
// Key order (yaml.v2 sorter.go)
// ---------------------------------------------------------------------------------------------

/// yaml.v2's `keyList.Less` for two string keys.
fn key_less(a: &str, b: &str) -> bool {
    // Whether the digit run that ends the common prefix holds a non-zero digit; yaml.v2 looks
    // back over that run to decide how leading zeros weigh in the numeric comparison.
    let mut nonzero_digit_run = false;
    let mut a_chars = a.char_indices();
    let mut b_chars = b.chars();
    loop {
        let (offset, ca, cb) = match (a_chars.next(), b_chars.next()) {
            (Some((offset, ca)), Some(cb)) => (offset, ca, cb),
            (None, Some(_)) => return true,
            (_, None) => return false,
        };
        if ca == cb {
            if is_go_digit(ca) {
                nonzero_digit_run |= ca != '0';
            } else {
                nonzero_digit_run = false;
            }
            continue;
        }
        let (a_letter, b_letter) = (is_go_letter(ca), is_go_letter(cb));
        if a_letter && b_letter {
            return ca < cb;
        }
        if a_letter || b_letter {
            return b_letter;
        }
        let start = i64::from((ca == '0' || cb == '0') && nonzero_digit_run);
        // The common prefix is identical in both keys, so the byte offset is valid in both.
        let (a_number, a_len) = numeric_run(&a[offset..], start);
        let (b_number, b_len) = numeric_run(&b[offset..], start);
        if a_number != b_number {
            return a_number < b_number;
        }
        if a_len != b_len {
            return a_len < b_len;
        }
        return ca < cb;
    }
}

/// A stable merge sort by a "less than" that need not be a total order: yaml.v2's key rule is
/// not transitive for some key sets ("2A" < "9" < "20" < "2A"), for which std's sorts may
/// panic. (controller-gen's own order is then decided by Go's random map iteration.)
fn merge_sort<T: Copy>(items: &mut [T], scratch: &mut Vec<T>, less: &impl Fn(T, T) -> bool) {
    if items.len() < 2 {
        return;
    }
    let middle = items.len() / 2;
    merge_sort(&mut items[..middle], scratch, less);
    merge_sort(&mut items[middle..], scratch, less);
    scratch.clear();
    scratch.extend_from_slice(items);
    let (left, right) = scratch.split_at(middle);
    let (mut l, mut r) = (0, 0);
    for slot in items.iter_mut() {
        let take_right = r < right.len() && (l == left.len() || less(right[r], left[l]));
        if take_right {
            *slot = right[r];
            r += 1;
        } else {
            *slot = left[l];
            l += 1;
        }
    }
}

/// Value and length of the digit run at the start of `text`, with Go's wrapping int64 maths.
fn numeric_run(text: &str, start: i64) -> (i64, usize) {
    text.chars()
        .take_while(|&c| is_go_digit(c))
        .fold((start, 0), |(number, len), digit| {
            let value = i64::from(u32::from(digit)) - i64::from(u32::from('0'));
            (number.wrapping_mul(10).wrapping_add(value), len + 1)
        })
}

/// Letter numbers (Nl) and circled letters: `Alphabetic` in Unicode, not letters for Go.
const ALPHABETIC_NON_LETTERS: &[(char, char)] = &[
    ('\u{16EE}', '\u{16F0}'),
    ('\u{2160}', '\u{2188}'),
    ('\u{24B6}', '\u{24E9}'),
    ('\u{3007}', '\u{3007}'),
    ('\u{3021}', '\u{3029}'),
    ('\u{3038}', '\u{303A}'),
    ('\u{A6E6}', '\u{A6EF}'),
    ('\u{10140}', '\u{10174}'),
    ('\u{10341}', '\u{10341}'),
    ('\u{1034A}', '\u{1034A}'),
    ('\u{103D1}', '\u{103D5}'),
    ('\u{12400}', '\u{1246E}'),
    ('\u{1F130}', '\u{1F189}'),
];

/// Letter numbers and the common other numbers (superscripts, fractions, circled numbers):
/// `Numeric` in Unicode, not decimal digits for Go.
const NUMERIC_NON_DIGITS: &[(char, char)] = &[
    ('\u{B2}', '\u{B3}'),
    ('\u{B9}', '\u{B9}'),
    ('\u{BC}', '\u{BE}'),
    ('\u{2070}', '\u{2089}'),
    ('\u{2150}', '\u{2189}'),
    ('\u{2460}', '\u{24FF}'),
    ('\u{2776}', '\u{2793}'),
    ('\u{3007}', '\u{3007}'),
    ('\u{3021}', '\u{3029}'),
    ('\u{3038}', '\u{303A}'),
];

/// Go's `unicode.IsLetter` (categories L*). Exact for ASCII; beyond it std only offers the
/// `Alphabetic` property, so combining vowel signs (`Other_Alphabetic`) still count as letters.
fn is_go_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        c.is_alphabetic() && !in_ranges(c, ALPHABETIC_NON_LETTERS)
    }
}

/// Go's `unicode.IsDigit` (category Nd). Exact for ASCII; beyond it std only offers the
/// `Numeric` property, so rarer other numbers still count as digits.
fn is_go_digit(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_digit()
    } else {
        c.is_numeric() && !in_ranges(c, NUMERIC_NON_DIGITS)
    }
}

fn in_ranges(c: char, ranges: &[(char, char)]) -> bool {
    ranges.iter().any(|&(low, high)| (low..=high).contains(&c))
}

// ---------------------------------------------------------------------------------------------
// Scalar style (yaml.v2 encode.go + emitterc.go analysis)
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// Where a node sits; it decides indentless sequences, key styles and whether folding is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// The document root or a sequence item.
    Standalone,
    /// A key written as `key: value`.
    SimpleKey,
    /// A key too long or multi-line for `key:`, written after `? `.
    ComplexKey,
    MappingValue,
}

impl Context {
    fn in_mapping(self) -> bool {
        matches!(
            self,
            Context::SimpleKey | Context::ComplexKey | Context::MappingValue
        )
    }
}

/// The style yaml.v2's encoder asks for; the emitter may still override it.
fn requested_style(text: &str) -> Style {
    if text.contains('\n') {
        Style::Literal
    } else if resolves_to_string(text) && !is_base60_float(text) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

/// What libyaml's `yaml_emitter_analyze_scalar` finds out about a scalar, restricted to block
/// context (every flow collection written here is empty, so no scalar is ever inside one).
#[derive(Debug, Clone, Copy)]
struct Analysis {
    multiline: bool,
    plain_allowed: bool,
    single_quoted_allowed: bool,
    literal_allowed: bool,
}

#[derive(Debug, Default, PartialEq)]
struct Findings {
    indicators: bool,
    line_breaks: bool,
    special_characters: bool,
    leading_space: bool,
    leading_break: bool,
    trailing_space: bool,
    trailing_break: bool,
    break_space: bool,
    space_break: bool,
}

impl Analysis {
    fn of(text: &str) -> Analysis {
        if text.is_empty() {
            return Analysis {
                multiline: false,
                plain_allowed: true,
                single_quoted_allowed: true,
                literal_allowed: false,
            };
        }
        let found = Self::scan(text, true);
        let mut plain = !(found.leading_space
            || found.leading_break
            || found.trailing_space
            || found.trailing_break);
        let mut single = true;
        let mut literal = !found.trailing_space;
        if found.break_space {
            plain = false;
            single = false;
        }
        if found.space_break || found.special_characters {
            plain = false;
            single = false;
            literal = false;
        }
        if found.line_breaks || found.indicators {
            plain = false;
        }
        Analysis {
            multiline: found.line_breaks,
            plain_allowed: plain,
            single_quoted_allowed: single,
            literal_allowed: literal,
        }
    }

    /// `by_words`: eight bytes at a time where they are plain ASCII (the descriptions are most
    /// of a CRD's text); the tests compare it with a scan byte by byte.
    fn scan(text: &str, by_words: bool) -> Findings {
        let mut found = Findings {
            indicators: text.starts_with("---") || text.starts_with("..."),
            ..Findings::default()
        };
        let bytes = text.as_bytes();
        let mut preceded_by_whitespace = true;
        let mut previous_space = false;
        let mut previous_break = false;
        let mut i = 0;
        while i < bytes.len() {
            let first = i == 0;
            // Eight bytes, none the first or the last, none after a break, each visible ASCII
            // other than `:` and `#`, or a space: nothing to find, and what follows depends only on
            // whether the last one is a space, as the shortcuts below would leave it.
            if by_words
                && !first
                && !previous_break
                && let Some(word) = bytes.get(i..i + 8).filter(|_| i + 8 < bytes.len())
                && plain_ascii(u64::from_le_bytes(word.try_into().expect("eight bytes")))
            {
                previous_space = word[7] == b' ';
                preceded_by_whitespace = previous_space;
                i += 8;
                continue;
            }
            // Shortcuts for the common cases after position 0: visible ASCII that is no
            // indicator, and a space that does not end the text.
            match bytes[i] {
                b'!'..=b'~' if !first && bytes[i] != b':' && bytes[i] != b'#' => {
                    previous_space = false;
                    previous_break = false;
                    preceded_by_whitespace = false;
                    i += 1;
                    continue;
                }
                b' ' if !first && i + 1 < bytes.len() => {
                    found.break_space |= previous_break;
                    previous_space = true;
                    previous_break = false;
                    preceded_by_whitespace = true;
                    i += 1;
                    continue;
                }
                _ => {}
            }
            let c = text[i..]
                .chars()
                .next()
                .expect("i is below the length, at a char boundary");
            let next = i + c.len_utf8();
            let last = next == bytes.len();
            // Only ASCII counts as whitespace here, so looking at one byte is enough.
            let followed_by_whitespace = last || matches!(bytes[next], b' ' | b'\t');
            found.indicators |= if first {
                is_leading_indicator(c, followed_by_whitespace)
            } else {
                (c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace)
            };
            found.special_characters |= !is_printable(c);
            if c == ' ' {
                found.leading_space |= first;
                found.trailing_space |= last;
                found.break_space |= previous_break;
                previous_space = true;
                previous_break = false;
            } else if is_break(c) {
                found.line_breaks = true;
                found.leading_break |= first;
                found.trailing_break |= last;
                found.space_break |= previous_space;
                previous_space = false;
                previous_break = true;
            } else {
                previous_space = false;
                previous_break = false;
            }
            preceded_by_whitespace = is_blank_or_break(c);
            i = next;
        }
        found
    }
}

/// Whether each byte of `word` is a space or visible ASCII other than `:` and `#`.
fn plain_ascii(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below `n` (at most 0x80) sets its high bit in `x - n` where it is clear in `x`.
    let has_below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH != 0;
    let has = |byte: u8| has_below(word ^ (ONES * u64::from(byte)), 1);
    word & HIGH == 0 && !has_below(word, 0x20) && !has(0x7F) && !has(b':') && !has(b'#')
}

fn is_leading_indicator(c: char, followed_by_whitespace: bool) -> bool {
    match c {
        '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%'
        | '@' | '`' => true,
        '?' | ':' | '-' => followed_by_whitespace,
        _ => false,
    }
}

/// libyaml's `is_printable`: characters beyond the BMP count as non-printable too.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// `text.contains(is_break)`, looking first for the bytes a break's UTF-8 starts with: with
/// memchr in long texts (descriptions), a byte at a time in short ones (names), which memchr's
/// set-up would cost more.
fn contains_break(text: &str) -> bool {
    let bytes = text.as_bytes();
    let starts = if bytes.len() < 64 {
        bytes
            .iter()
            .any(|b| matches!(b, b'\n' | b'\r' | 0xC2 | 0xE2))
    } else {
        memchr::memchr3(b'\n', b'\r', 0xC2, bytes).is_some()
            || memchr::memchr(0xE2, bytes).is_some()
    };
    starts && text.contains(is_break)
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank_or_break(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\0') || is_break(c)
}

/// libyaml's `yaml_emitter_select_scalar_style` for an implicit, untagged scalar in block context.
fn select_style(text: &str, requested: Style, analysis: &Analysis, simple_key: bool) -> Style {
    let mut style = requested;
    if simple_key && analysis.multiline {
        style = Style::DoubleQuoted;
    }
    if style == Style::Plain && (!analysis.plain_allowed || (text.is_empty() && simple_key)) {
        style = Style::SingleQuoted;
    }
    if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && (!analysis.literal_allowed || simple_key) {
        style = Style::DoubleQuoted;
    }
    style
}

// ---------------------------------------------------------------------------------------------
// Plain-scalar resolution (yaml.v2 resolve.go): would the text read back as a non-string?
// ---------------------------------------------------------------------------------------------

/// Words that yaml.v2 resolves to booleans (YAML 1.1), null or special floats. `<<` is in
/// yaml.v2's table as well, but its lookup is gated on the first byte and `<` is not a gate,
/// so `<<` resolves to a string and is written plain.
const RESERVED_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no", "No",
    "NO", "false", "False", "FALSE", "off", "Off", "OFF", "~", "null", "Null", "NULL", ".nan",
    ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
];

/// The byte length of the longest of [`RESERVED_WORDS`]: longer strings need no comparison.
const LONGEST_RESERVED_WORD: usize = {
    let (mut i, mut longest) = (0, 0);
    while i < RESERVED_WORDS.len() {
        if RESERVED_WORDS[i].len() > longest {
            longest = RESERVED_WORDS[i].len();
        }
        i += 1;
    }
    longest
};

fn resolves_to_string(text: &str) -> bool {
    let Some(&first) = text.as_bytes().first() else {
        return false;
    };
    if text.len() <= LONGEST_RESERVED_WORD && RESERVED_WORDS.contains(&text) {
        return false;
    }
    match first {
        b'+' | b'-' | b'0'..=b'9' => !is_number_or_timestamp(text),
        b'.' => !is_go_float_starting_with_dot(text),
        _ => true,
    }
}

fn is_number_or_timestamp(text: &str) -> bool {
    if is_timestamp(text) {
        return true;
    }
    let plain = text.replace('_', "");
    is_go_integer(&plain, None) || is_finite_yaml_float(&plain) || is_binary_with_sign(&plain)
}

/// `strconv.ParseInt(text, base, 64)` or `strconv.ParseUint(text, base, 64)` succeeds; `None`
/// is base 0 (prefix `0x`, `0o`, `0b` or a leading `0` for octal).
fn is_go_integer(text: &str, radix: Option<u32>) -> bool {
    let (sign, unsigned) = match text.as_bytes().first() {
        Some(b'+') => (Some(false), &text[1..]),
        Some(b'-') => (Some(true), &text[1..]),
        _ => (None, text),
    };
    let Some(magnitude) = go_parse_uint(unsigned, radix) else {
        return false;
    };
    match sign {
        None => true,
        Some(false) => magnitude < 1 << 63,
        Some(true) => magnitude <= 1 << 63,
    }
}

fn go_parse_uint(text: &str, radix: Option<u32>) -> Option<u64> {
    let (radix, digits) = match radix {
        Some(radix) => (radix, text),
        None => split_go_base_prefix(text)?,
    };
    if digits.is_empty() {
        // Only "0" gets here with base 0: the prefix ate the digit.
        return (radix == 8 && text == "0").then_some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

fn split_go_base_prefix(text: &str) -> Option<(u32, &str)> {
    let bytes = text.as_bytes();
    match bytes {
        [] => None,
        [b'0', prefix, _, ..] if matches!(prefix.to_ascii_lowercase(), b'b' | b'o' | b'x') => {
            let radix = match prefix.to_ascii_lowercase() {
                b'b' => 2,
                b'o' => 8,
                _ => 16,
            };
            Some((radix, &text[2..]))
        }
        [b'0', ..] => Some((8, &text[1..])),
        _ => Some((10, text)),
    }
}

/// yaml.v2's extra `0b` branch, which hands the rest (sign included) to `ParseInt(_, 2, 64)`.
fn is_binary_with_sign(plain: &str) -> bool {
    if let Some(rest) = plain.strip_prefix("0b") {
        is_go_integer(rest, Some(2))
    } else if let Some(rest) = plain.strip_prefix("-0b") {
        !rest.starts_with(['+', '-']) && is_go_integer(&format!("-{rest}"), Some(2))
    } else {
        false
    }
}

/// yaml.v2's `yamlStyleFloat` regex `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
/// plus `ParseFloat` not overflowing.
fn is_finite_yaml_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let integer_digits = count_digits(&bytes[i..]);
    i += integer_digits;
    if bytes.get(i) == Some(&b'.') {
        let fraction_digits = count_digits(&bytes[i + 1..]);
        if integer_digits == 0 && fraction_digits == 0 {
            return false;
        }
        i += 1 + fraction_digits;
    } else if integer_digits == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(bytes.get(i), Some(b'+' | b'-')));
        let exponent_digits = count_digits(&bytes[i..]);
        if exponent_digits == 0 {
            return false;
        }
        i += exponent_digits;
    }
    i == bytes.len() && parses_finite(text)
}

/// Go's `strconv.ParseFloat` for text that starts with `.` (decimal digits, `_` between digits,
/// optional exponent; an overflow is an error).
fn is_go_float_starting_with_dot(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mantissa_len = 1 + bytes[1..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'_')
        .count();
    if !bytes[1..mantissa_len].iter().any(u8::is_ascii_digit) {
        return false;
    }
    let mut i = mantissa_len;
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(bytes.get(i), Some(b'+' | b'-')));
        if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        i += bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'_')
            .count();
    }
    i == bytes.len() && underscores_between_digits(bytes) && parses_finite(&text.replace('_', ""))
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

fn underscores_between_digits(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

fn parses_finite(text: &str) -> bool {
    text.parse::<f64>().is_ok_and(f64::is_finite)
}

/// yaml.v2 quotes YAML 1.1 base-60 numbers (`1:30`) although it no longer decodes them:
/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn is_base60_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += bytes[i..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'_')
        .count();
    let mut groups = 0;
    while bytes.get(i) == Some(&b':') {
        let digits = count_digits(&bytes[i + 1..]);
        let valid = digits == 1 || (digits == 2 && bytes[i + 1] <= b'5');
        if !valid {
            return false;
        }
        groups += 1;
        i += 1 + digits;
    }
    if groups == 0 {
        return false;
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1 + bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'_')
            .count();
    }
    i == bytes.len()
}

/// yaml.v2 tries `time.Parse` with the layouts `2006-1-2T15:4:5.999999999Z07:00`, the same
/// with `t`, `2006-1-2 15:4:5.999999999` and `2006-1-2`, after checking for a `YYYY-` prefix.
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    if count_digits(bytes) != 4 || bytes.get(4) != Some(&b'-') {
        return false;
    }
    let Some((year, month, day, rest)) = parse_date(bytes) else {
        return false;
    };
    let time_ok = rest.is_empty()
        || parse_time_with_zone(rest, b'T')
        || parse_time_with_zone(rest, b't')
        || parse_time_without_zone(rest);
    time_ok && (1..=days_in_month(year, month)).contains(&day)
}

fn parse_date(bytes: &[u8]) -> Option<(u32, u32, u32, &[u8])> {
    let year = bytes[..4]
        .iter()
        .fold(0, |year, digit| year * 10 + u32::from(digit - b'0'));
    let (month, rest) = go_getnum(&bytes[5..])?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let (day, rest) = go_getnum(rest.strip_prefix(b"-")?)?;
    Some((year, month, day, rest))
}

/// Go's `getnum(s, false)`: one or two digits.
fn go_getnum(bytes: &[u8]) -> Option<(u32, &[u8])> {
    match bytes {
        [a, b, rest @ ..] if a.is_ascii_digit() && b.is_ascii_digit() => {
            Some((u32::from(a - b'0') * 10 + u32::from(b - b'0'), rest))
        }
        [a, rest @ ..] if a.is_ascii_digit() => Some((u32::from(a - b'0'), rest)),
        _ => None,
    }
}

fn parse_time_with_zone(bytes: &[u8], separator: u8) -> bool {
    let Some(rest) = bytes.strip_prefix(&[separator]) else {
        return false;
    };
    let Some(rest) = parse_clock(rest) else {
        return false;
    };
    match skip_fraction(rest) {
        [b'Z'] => true,
        [sign, h1, h2, b':', m1, m2] => {
            let two_digits = [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit());
            two_digits
                && matches!(sign, b'+' | b'-')
                && (h1 - b'0') * 10 + (h2 - b'0') <= 24
                && (m1 - b'0') * 10 + (m2 - b'0') <= 60
        }
        _ => false,
    }
}

fn parse_time_without_zone(bytes: &[u8]) -> bool {
    // A space in a Go layout matches any run of spaces.
    if bytes.first().is_some_and(|&b| b != b' ') {
        return false;
    }
    let start = bytes.iter().take_while(|&&b| b == b' ').count();
    parse_clock(&bytes[start..]).is_some_and(|rest| skip_fraction(rest).is_empty())
}

fn parse_clock(bytes: &[u8]) -> Option<&[u8]> {
    let (hour, rest) = go_getnum(bytes)?;
    let (minute, rest) = go_getnum(rest.strip_prefix(b":")?)?;
    let (second, rest) = go_getnum(rest.strip_prefix(b":")?)?;
    (hour < 24 && minute < 60 && second < 60).then_some(rest)
}

fn skip_fraction(bytes: &[u8]) -> &[u8] {
    match bytes {
        [b'.' | b',', digit, ..] if digit.is_ascii_digit() => {
            &bytes[1 + count_digits(&bytes[1..])..]
        }
        _ => bytes,
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

fn format_number(number: &Number) -> String {
    if let Some(int) = number.as_i64() {
        int.to_string()
    } else if let Some(uint) = number.as_u64() {
        uint.to_string()
    } else {
        number
            .as_f64()
            .map_or_else(|| number.to_string(), format_float)
    }
}

/// A float as it comes out of controller-gen's JSON round trip. Go's JSON encoder writes an
/// integral value below 1e21 as plain digits, and yaml.v2 reads those back as an integer when
/// they fit int64 or uint64. Every other float is printed with Go's
/// `strconv.FormatFloat(f, 'g', -1, 64)`: shortest round-trip digits, in exponent form when the
/// decimal exponent is below -4 or at least 6.
fn format_float(value: f64) -> String {
    if value.is_nan() {
        return ".nan".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    if value == 0.0 {
        // JSON writes -0 as "-0", which reads back as the integer 0.
        return "0".to_owned();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let (digits, exponent) = shortest_digits(value.abs());
    if value.fract() == 0.0 && value.abs() < 1e21 {
        let json = format!("{sign}{}", positional(&digits, exponent));
        if json.parse::<i64>().is_ok() || json.parse::<u64>().is_ok() {
            return json;
        }
    }
    if (-4..6).contains(&exponent) {
        return format!("{sign}{}", positional(&digits, exponent));
    }
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() { "" } else { "." };
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    format!(
        "{sign}{first}{point}{rest}e{exponent_sign}{:02}",
        exponent.unsigned_abs()
    )
}

/// The shortest digits that read back as `value` (> 0) and the decimal exponent of the first
/// digit. Go breaks a tie between two equally close candidates towards the even one; Rust's
/// shortest formatting rounds ties up, but its fixed-precision formatting rounds half to even.
fn shortest_digits(value: f64) -> (String, i32) {
    let shortest = format!("{value:e}");
    let digit_count = shortest
        .bytes()
        .take_while(|&b| b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    let even = format!("{value:.*e}", digit_count.saturating_sub(1));
    let chosen = if even.parse::<f64>() == Ok(value) {
        even
    } else {
        shortest
    };
    let (mantissa, exponent) = chosen.split_once('e').unwrap_or((&chosen, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

/// `d.ddd × 10^exponent` without an exponent, as Go's `'f'` format with shortest digits.
fn positional(digits: &str, exponent: i32) -> String {
    let point = usize::try_from(exponent + 1).unwrap_or(0);
    if exponent < 0 {
        let zeros = usize::try_from(-exponent - 1).unwrap_or(0);
        return format!("0.{}{digits}", "0".repeat(zeros));
    }
    if digits.len() <= point {
        return format!("{digits}{}", "0".repeat(point - digits.len()));
    }
    format!("{}.{}", &digits[..point], &digits[point..])
}

// ---------------------------------------------------------------------------------------------
// Emitter (yaml.v2 emitterc.go)
// ---------------------------------------------------------------------------------------------

struct Emitter<'a> {
    out: String,
    /// Each longer string's requested style and analysis: a CRD repeats the same descriptions
    /// (a Kubernetes type embedded in several places), and scanning them again cost more than
    /// hashing them.
    analyses: HashMap<&'a str, (Style, Analysis), foldhash::fast::FixedState>,
    /// Characters (not bytes) already on the current line.
    column: usize,
    /// `None` before the root node (libyaml's -1).
    indent: Option<usize>,
    /// The last character written is whitespace, so an indicator needs no separating space.
    whitespace: bool,
    /// Only indentation (and `-`/`?`/`:` indicators) has been written on the current line.
    indention: bool,
}

impl<'a> Emitter<'a> {
    fn new(out: String) -> Emitter<'a> {
        Emitter {
            out,
            analyses: HashMap::default(),
            column: 0,
            indent: None,
            whitespace: true,
            indention: true,
        }
    }

    fn finish(mut self) -> String {
        self.write_indent();
        self.out
    }

    fn node(&mut self, value: &'a Value, context: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, context),
            Value::Bool(true) => self.scalar("true", Style::Plain, context),
            Value::Bool(false) => self.scalar("false", Style::Plain, context),
            Value::Number(number) => self.scalar(&format_number(number), Style::Plain, context),
            Value::String(text) => {
                let (requested, analysis) = self.analysis(text);
                self.analysed_scalar(text, &analysis, requested, context);
            }
            Value::Array(items) if items.is_empty() => self.empty_flow('[', ']'),
            Value::Array(items) => self.sequence(items, context),
            Value::Object(map) if map.is_empty() => self.empty_flow('{', '}'),
            Value::Object(map) => self.mapping(map),
        }
    }

    fn sequence(&mut self, items: &'a [Value], context: Context) {
        let outer = self.indent;
        // A sequence that is a mapping value starts on a fresh line at the key's indentation.
        self.indent = Some(self.increased_indent(false, context.in_mapping() && !self.indention));
        for item in items {
            self.write_indent();
            self.indicator("-", true, false, true);
            self.node(item, Context::Standalone);
        }
        self.indent = outer;
    }

    fn mapping(&mut self, map: &'a Map<String, Value>) {
        let outer = self.indent;
        self.indent = Some(self.increased_indent(false, false));
        let mut entries: Vec<(&'a String, &'a Value)> = map.iter().collect();
        merge_sort(&mut entries, &mut Vec::new(), &|(a, _), (b, _)| {
            key_less(a, b)
        });
        for (key, value) in entries {
            self.write_indent();
            self.key(key);
            self.node(value, Context::MappingValue);
        }
        self.indent = outer;
    }

    fn key(&mut self, key: &'a str) {
        let (requested, analysis) = self.analysis(key);
        if !analysis.multiline && key.len() <= MAX_SIMPLE_KEY_BYTES {
            self.analysed_scalar(key, &analysis, requested, Context::SimpleKey);
            self.indicator(":", false, false, false);
        } else {
            self.indicator("?", true, false, true);
            self.analysed_scalar(key, &analysis, requested, Context::ComplexKey);
            self.write_indent();
            self.indicator(":", true, false, true);
        }
    }

    fn empty_flow(&mut self, open: char, close: char) {
        self.indicator_char(open, true, true, false);
        self.indicator_char(close, false, false, false);
    }

    /// A string's requested style and analysis, looked up for longer strings.
    fn analysis(&mut self, text: &'a str) -> (Style, Analysis) {
        /// Below this many bytes, scanning costs about what a lookup does.
        const LOOKED_UP_FROM: usize = 24;
        let of = |text| (requested_style(text), Analysis::of(text));
        if text.len() < LOOKED_UP_FROM {
            return of(text);
        }
        *self.analyses.entry(text).or_insert_with(|| of(text))
    }

    fn scalar(&mut self, text: &str, requested: Style, context: Context) {
        self.analysed_scalar(text, &Analysis::of(text), requested, context);
    }

    fn analysed_scalar(
        &mut self,
        text: &str,
        analysis: &Analysis,
        requested: Style,
        context: Context,
    ) {
        let simple_key = context == Context::SimpleKey;
        let style = select_style(text, requested, analysis, simple_key);
        let outer = self.indent;
        self.indent = Some(self.increased_indent(true, false));
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.plain(text, allow_breaks),
            Style::SingleQuoted => self.single_quoted(text, allow_breaks),
            Style::DoubleQuoted => self.double_quoted(text, allow_breaks),
            Style::Literal => self.literal(text),
        }
        self.indent = outer;
    }

    fn increased_indent(&self, flow: bool, indentless: bool) -> usize {
        match self.indent {
            None if flow => INDENT_STEP,
            None => 0,
            Some(indent) if indentless => indent,
            Some(indent) => indent + INDENT_STEP,
        }
    }

    // --- low-level writes ----------------------------------------------------------------

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// Writes text that holds no line break.
    fn push_text(&mut self, text: &str) {
        self.out.push_str(text);
        self.column += if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// Writes a line break taken from the scalar itself (`\n` is normalised, others are kept).
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            let pad = (indent - self.column).min(SPACES.len());
            self.out.push_str(&SPACES[..pad]);
            self.column += pad;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn indicator(
        &mut self,
        text: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(text);
        self.column += text.chars().count();
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn indicator_char(
        &mut self,
        c: char,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        let mut buffer = [0; 4];
        self.indicator(
            c.encode_utf8(&mut buffer),
            need_whitespace,
            is_whitespace,
            is_indention,
        );
    }

    // --- scalar writers --------------------------------------------------------------------

    fn plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        // Shortcut: no space in the text can lie past the width (bytes bound the characters).
        let cannot_fold = !allow_breaks || self.column + text.len() <= LINE_WIDTH + 1;
        if cannot_fold && !contains_break(text) {
            self.push_text(text);
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == ' ' {
                rest = &rest[1..];
                let next_is_space = rest.starts_with(' ');
                if allow_breaks && !spaces && self.column > LINE_WIDTH && !next_is_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                rest = &rest[c.len_utf8()..];
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                // A run of other characters is written whole: nothing breaks inside it.
                let end = rest
                    .find(|c: char| c == ' ' || is_break(c))
                    .unwrap_or(rest.len());
                if breaks {
                    self.write_indent();
                }
                self.push_text(&rest[..end]);
                rest = &rest[end..];
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            if c == ' ' {
                let next = chars.peek().copied();
                // Never at the first or last character: the fold would swallow a quoted space.
                let inner = !first && next.is_some();
                if allow_breaks && !spaces && self.column > LINE_WIDTH && inner && next != Some(' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
            first = false;
        }
        self.indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.indicator("\"", true, false, false);
        // libyaml tests for a byte-order mark at the start of the value, not at each character,
        // so a leading BOM gets every character escaped.
        let escape_all = text.starts_with('\u{FEFF}');
        let mut spaces = false;
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            if escape_all || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.escape(c);
                spaces = false;
            } else if c == ' ' {
                let next = chars.peek().copied();
                let inner = !first && next.is_some();
                if allow_breaks && !spaces && self.column > LINE_WIDTH && inner {
                    self.write_indent();
                    // The fold turns into one space; an escaped break keeps a following space.
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
            first = false;
        }
        self.indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn escape(&mut self, c: char) {
        self.put('\\');
        let short = match c {
            '\0' => Some('0'),
            '\u{7}' => Some('a'),
            '\u{8}' => Some('b'),
            '\t' => Some('t'),
            '\n' => Some('n'),
            '\u{B}' => Some('v'),
            '\u{C}' => Some('f'),
            '\r' => Some('r'),
            '\u{1B}' => Some('e'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            '\u{85}' => Some('N'),
            '\u{A0}' => Some('_'),
            '\u{2028}' => Some('L'),
            '\u{2029}' => Some('P'),
            _ => None,
        };
        if let Some(letter) = short {
            self.put(letter);
            return;
        }
        let code = u32::from(c);
        let (letter, digits) = match code {
            0..=0xFF => ('x', 2),
            0x100..=0xFFFF => ('u', 4),
            _ => ('U', 8),
        };
        self.put(letter);
        for shift in (0..digits).rev() {
            let nibble = (code >> (shift * 4)) & 0xF;
            self.put(char::from_digit(nibble, 16).map_or('0', |d| d.to_ascii_uppercase()));
        }
    }

    fn literal(&mut self, text: &str) {
        self.indicator("|", true, false, false);
        if text.starts_with(' ') || text.starts_with(is_break) {
            self.indicator("2", false, false, false);
        }
        if let Some(chomping) = chomping_indicator(text) {
            self.indicator(chomping, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        // Only `\n` to look for (with memchr) unless the text holds a rarer break.
        let rare_breaks = memchr::memchr3(b'\r', 0xC2, 0xE2, text.as_bytes()).is_some();
        let mut rest = text;
        while !rest.is_empty() {
            let line_end = if rare_breaks {
                rest.find(is_break)
            } else {
                rest.find('\n')
            }
            .unwrap_or(rest.len());
            let (line, after) = rest.split_at(line_end);
            if !line.is_empty() {
                self.write_indent();
                self.push_text(line);
                self.indention = false;
            }
            let mut breaks = after.chars();
            if let Some(c) = breaks.next() {
                self.write_break(c);
                self.indention = true;
            }
            rest = breaks.as_str();
        }
    }
}

/// `-` strips a missing final break, none clips exactly one, `+` keeps several (or a lone one).
fn chomping_indicator(text: &str) -> Option<&'static str> {
    let mut from_end = text.chars().rev();
    match (from_end.next(), from_end.next()) {
        (Some(last), _) if !is_break(last) => Some("-"),
        (None, _) => Some("-"),
        (Some(_), None) => Some("+"),
        (Some(_), Some(before)) if is_break(before) => Some("+"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! Expected outputs were produced by gopkg.in/yaml.v2 v2.4.0 itself (see dev/oracle.go).

    use super::{compare_keys, to_documents, to_string};
    use serde_json::{Value, json};
    use std::cmp::Ordering;

    #[test]
    fn every_reserved_word_is_quoted_and_none_is_longer_than_resolves_to_string_looks() {
        for word in super::RESERVED_WORDS {
            assert!(word.len() <= 6, "{word}");
            assert!(!super::resolves_to_string(word), "{word}");
        }
        assert!(super::resolves_to_string("+.infinity"));
    }

    fn emits(value: Value, expected: &str) {
        assert_eq!(to_string(&value), expected, "input: {value}");
    }

    /// The YAML written for `text` as the value of key `k`.
    fn scalar(text: &str) -> String {
        to_string(&json!({ "k": text }))
    }

    // --- key order ------------------------------------------------------------------------

    #[test]
    fn uppercase_letters_sort_before_lowercase() {
        assert_eq!(compare_keys("fooBar", "foobar"), Ordering::Less);
        assert_eq!(compare_keys("Zeta", "alpha"), Ordering::Less);
        emits(
            json!({"fooBar": 1, "foobar": 2, "Zeta": 3, "alpha": 4}),
            "Zeta: 3\nalpha: 4\nfooBar: 1\nfoobar: 2\n",
        );
    }

    #[test]
    fn non_letters_sort_before_letters() {
        assert_eq!(compare_keys("a_b", "aB"), Ordering::Less);
        assert_eq!(compare_keys("x-kubernetes-a", "xa"), Ordering::Less);
        assert_eq!(compare_keys("xa", "x-kubernetes-a"), Ordering::Greater);
        assert_eq!(compare_keys("a0", "ab"), Ordering::Less);
        emits(json!({"aB": 1, "a_b": 2}), "a_b: 2\naB: 1\n");
    }

    #[test]
    fn numeric_runs_compare_as_numbers() {
        assert_eq!(compare_keys("item2", "item10"), Ordering::Less);
        assert_eq!(compare_keys("item10", "item2"), Ordering::Greater);
        emits(
            json!({"item10": 1, "item2": 2, "item1": 3}),
            "item1: 3\nitem2: 2\nitem10: 1\n",
        );
        // Equal values: the shorter run (fewer leading zeros) first.
        emits(
            json!({"a01": 1, "a1": 2, "a001": 3, "a10": 4, "a010": 5}),
            "a1: 2\na01: 1\na001: 3\na10: 4\na010: 5\n",
        );
    }

    #[test]
    fn a_prefix_sorts_first_and_equal_keys_are_equal() {
        assert_eq!(compare_keys("a", "ab"), Ordering::Less);
        assert_eq!(compare_keys("ab", "a"), Ordering::Greater);
        assert_eq!(compare_keys("same", "same"), Ordering::Equal);
    }

    #[test]
    fn non_transitive_key_sets_do_not_panic() {
        // "2A" < "9" < "20" < "2A" under yaml.v2's rule; any order is what Go might write.
        let emitted = to_string(&json!({"2A": 1, "9": 2, "20": 3}));
        assert_eq!(emitted.lines().count(), 3);
    }

    #[test]
    fn schema_keys_sort_in_controller_gen_order() {
        let expected = [
            "additionalProperties",
            "allOf",
            "anyOf",
            "default",
            "description",
            "enum",
            "example",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "externalDocs",
            "format",
            "items",
            "maxItems",
            "maxLength",
            "maxProperties",
            "maximum",
            "minItems",
            "minLength",
            "minProperties",
            "minimum",
            "multipleOf",
            "nullable",
            "pattern",
            "properties",
            "required",
            "title",
            "type",
            "uniqueItems",
            "x-kubernetes-embedded-resource",
            "x-kubernetes-int-or-string",
            "x-kubernetes-list-map-keys",
            "x-kubernetes-list-type",
            "x-kubernetes-map-type",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-validations",
        ];
        let object: serde_json::Map<String, Value> = expected
            .iter()
            .rev()
            .map(|key| ((*key).to_owned(), json!(1)))
            .collect();
        let emitted = to_string(&Value::Object(object));
        let keys: Vec<&str> = emitted
            .lines()
            .filter_map(|line| line.strip_suffix(": 1"))
            .collect();
        assert_eq!(keys, expected);
    }

    #[test]
    fn keys_use_the_scalar_styles_of_values() {
        emits(
            json!({"true": 1, "": 2, "a: b": 3, "124": 4, "webhook-enabled": "true"}),
            "\"\": 2\n\"124\": 4\n'a: b': 3\n\"true\": 1\nwebhook-enabled: \"true\"\n",
        );
    }

    #[test]
    fn long_and_multi_line_keys_use_the_explicit_key_indicator() {
        let short = "k".repeat(128);
        let long = "k".repeat(129);
        emits(
            json!({ short.clone(): 1, long.clone(): 2, "multi\nline": {"x": 1} }),
            &format!("{short}: 1\n? {long}\n: 2\n? |-\n  multi\n  line\n: x: 1\n"),
        );
        emits(
            json!({ "seq key".repeat(20): [1, 2] }),
            "? seq keyseq keyseq keyseq keyseq keyseq keyseq keyseq keyseq keyseq keyseq keyseq\n  \
             keyseq keyseq keyseq keyseq keyseq keyseq keyseq keyseq key\n: - 1\n  - 2\n",
        );
    }

    // --- plain or double-quoted: does the text read back as a string? --------------------

    #[test]
    fn yaml_1_1_booleans_and_nulls_are_double_quoted() {
        for word in [
            "true", "True", "TRUE", "false", "False", "FALSE", "y", "Y", "yes", "Yes", "YES", "n",
            "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL",
            "~", "",
        ] {
            assert_eq!(scalar(word), format!("k: \"{word}\"\n"));
        }
    }

    #[test]
    fn numbers_and_timestamps_are_double_quoted() {
        for text in [
            "1",
            "-1",
            "+1",
            "124",
            "0x1F",
            "0o17",
            "017",
            "08",
            "0b101",
            "0b-1",
            "-0b1",
            "1_000",
            "1_",
            "1.5",
            ".5",
            ".5_5",
            "1e3",
            "1.",
            "-.inf",
            ".NaN",
            ".inf",
            "1:30",
            "-1:30:59.5",
            "9223372036854775808",
            "18446744073709551616",
            "2001-12-14",
            "2000-2-29",
            "2001-12-14T21:59:43.10Z",
            "2001-12-14t21:59:43-05:00",
            "2001-12-14 21:59:43.10",
            "2001-12-14   21:59:43",
        ] {
            assert_eq!(scalar(text), format!("k: \"{text}\"\n"), "{text}");
        }
    }

    #[test]
    fn near_misses_stay_plain() {
        // `<<` is in yaml.v2's table but never looked up (`<` is not a lookup prefix); the rest
        // fail to parse (overflow, missing digits, impossible dates, bad base-60 fields).
        for text in [
            "<<",
            "1e400",
            "0x",
            "0b",
            "._5",
            "1:60",
            "2001-13-01",
            "2002-02-29",
            "2001-12-14T21:59:43",
            "2001-12-14x",
            "20011-12-14",
            "0xFFFFFFFFFFFFFFFFF",
            "yes please",
            "nO",
            "v1",
            "1.2.3",
            "100Mi",
        ] {
            assert_eq!(scalar(text), format!("k: {text}\n"), "{text}");
        }
    }

    // --- plain or single-quoted ----------------------------------------------------------

    #[test]
    fn indicators_force_single_quotes() {
        for text in [
            "*",
            "{}",
            "[a]",
            "&a",
            "!has(oldSelf.x) || has(self.x)",
            "|",
            ">",
            "@a",
            "`a",
            "%a",
            "#x",
            "'q'",
            "\"d\"",
            ",a",
            "- a",
            "-",
            "? a",
            "?",
            ": a",
            ":",
            "---",
            "--- x",
            "...",
            "a: b",
            "a:",
            "a #b",
            " a",
            "a ",
        ] {
            let quoted = text.replace('\'', "''");
            assert_eq!(scalar(text), format!("k: '{quoted}'\n"), "{text}");
        }
    }

    #[test]
    fn inner_indicators_stay_plain() {
        for text in [
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "a#b",
            "-a",
            "?a",
            ":a",
            "a,b",
            "it's",
            "q\"uote",
            "\\back",
            "a - b",
            "https://example.com/a?b=c",
            "é’ ok",
        ] {
            assert_eq!(scalar(text), format!("k: {text}\n"), "{text}");
        }
    }

    // --- double quotes for non-printable characters ---------------------------------------

    #[test]
    fn non_printable_characters_are_escaped() {
        assert_eq!(scalar("tab\there"), "k: \"tab\\there\"\n");
        assert_eq!(scalar("bell\u{7}"), "k: \"bell\\a\"\n");
        assert_eq!(scalar("nul\0"), "k: \"nul\\0\"\n");
        assert_eq!(scalar("del\u{7F}"), "k: \"del\\x7F\"\n");
        assert_eq!(scalar("nel\u{85}"), "k: \"nel\\N\"\n");
        assert_eq!(scalar("cr\rx"), "k: \"cr\\rx\"\n");
        assert_eq!(scalar("esc\u{1B}"), "k: \"esc\\e\"\n");
        assert_eq!(scalar("bom\u{FEFF}x"), "k: \"bom\\uFEFFx\"\n");
        assert_eq!(scalar("q\"\t\\"), "k: \"q\\\"\\t\\\\\"\n");
        // Characters beyond the BMP count as non-printable for libyaml.
        assert_eq!(scalar("emoji 😀"), "k: \"emoji \\U0001F600\"\n");
        // A leading byte-order mark makes libyaml escape every character.
        assert_eq!(scalar("\u{FEFF}bom"), "k: \"\\uFEFF\\x62\\x6F\\x6D\"\n");
    }

    #[test]
    fn printable_non_ascii_is_written_as_utf8() {
        assert_eq!(scalar("nbsp\u{A0}x"), "k: nbsp\u{A0}x\n");
        assert_eq!(scalar("e\u{301}"), "k: e\u{301}\n");
        assert_eq!(scalar("Ⅻ ß ٣"), "k: Ⅻ ß ٣\n");
    }

    #[test]
    fn line_separators_without_newline_are_single_quoted() {
        assert_eq!(scalar("ls\u{2028}x"), "k: 'ls\u{2028}  x'\n");
    }

    // --- literal blocks -------------------------------------------------------------------

    #[test]
    fn literal_block_chomping() {
        assert_eq!(scalar("a\nb"), "k: |-\n  a\n  b\n");
        assert_eq!(scalar("a\n"), "k: |\n  a\n");
        assert_eq!(scalar("a\n\n"), "k: |+\n  a\n\n");
        assert_eq!(scalar("a\n\n\n"), "k: |+\n  a\n\n\n");
        assert_eq!(scalar("a\n\nb\n"), "k: |\n  a\n\n  b\n");
    }

    #[test]
    fn literal_block_indentation_indicator() {
        assert_eq!(scalar(" a\nb"), "k: |2-\n   a\n  b\n");
        assert_eq!(scalar("\na"), "k: |2-\n\n  a\n");
        assert_eq!(scalar("\n"), "k: |2+\n\n");
        // Only the first line decides; later indented lines need no indicator.
        assert_eq!(scalar("a\n b"), "k: |-\n  a\n   b\n");
        assert_eq!(scalar("x\n\n  y\n"), "k: |\n  x\n\n    y\n");
    }

    #[test]
    fn literal_blocks_are_never_folded() {
        let line = format!("{} c", "b".repeat(100));
        assert_eq!(
            scalar(&format!("a\n{line}")),
            format!("k: |-\n  a\n  {line}\n")
        );
    }

    #[test]
    fn literal_block_indentation_follows_nesting() {
        emits(
            json!({"spec": {"items": ["one\ntwo"]}}),
            "spec:\n  items:\n  - |-\n    one\n    two\n",
        );
        emits(json!("a\nb"), "|-\n  a\n  b\n");
    }

    #[test]
    fn trailing_spaces_or_tabs_turn_multi_line_text_double_quoted() {
        assert_eq!(scalar("a \nb"), "k: \"a \\nb\"\n");
        assert_eq!(scalar("a\tb\nc"), "k: \"a\\tb\\nc\"\n");
        assert_eq!(scalar("a\nb "), "k: \"a\\nb \"\n");
    }

    // --- folding at width 80 --------------------------------------------------------------

    #[test]
    fn plain_text_folds_once_column_80_is_passed() {
        // `k: ` + 77 characters: the space sits at column 80, which is not yet past the width.
        let at_80 = format!("{} b", "a".repeat(77));
        assert_eq!(scalar(&at_80), format!("k: {at_80}\n"));
        let at_81 = format!("{} b c", "a".repeat(78));
        assert_eq!(scalar(&at_81), format!("k: {}\n  b c\n", "a".repeat(78)));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = format!("{} b", "é".repeat(78));
        assert_eq!(scalar(&text), format!("k: {}\n  b\n", "é".repeat(78)));
    }

    #[test]
    fn long_tokens_and_double_spaces_are_not_broken() {
        let token = "x".repeat(200);
        assert_eq!(scalar(&token), format!("k: {token}\n"));
        let spaced = format!("{}  b", "a".repeat(78));
        assert_eq!(scalar(&spaced), format!("k: {spaced}\n"));
    }

    #[test]
    fn continuation_lines_are_indented_past_the_key_or_dash() {
        let text = format!("{} b", "a".repeat(78));
        emits(
            json!({"outer": {"inner": [text]}}),
            &format!("outer:\n  inner:\n  - {}\n    b\n", "a".repeat(78)),
        );
        let key = "k".repeat(70);
        emits(
            json!({ key.clone(): format!("{} c", "b".repeat(20)) }),
            &format!("{key}: {}\n  c\n", "b".repeat(20)),
        );
    }

    #[test]
    fn quoted_text_folds_too() {
        // `k: '` + `''` + 76 characters puts the space at column 82.
        let single = format!("'{} b", "a".repeat(76));
        assert_eq!(scalar(&single), format!("k: '''{}\n  b'\n", "a".repeat(76)));
        // `k: "\t` + 74 characters puts the space at column 80, + 75 at column 81.
        let double_80 = format!("\t{} b", "a".repeat(74));
        assert_eq!(
            scalar(&double_80),
            format!("k: \"\\t{} b\"\n", "a".repeat(74))
        );
        let double_81 = format!("\t{} b", "a".repeat(75));
        assert_eq!(
            scalar(&double_81),
            format!("k: \"\\t{}\n  b\"\n", "a".repeat(75))
        );
    }

    #[test]
    fn double_quoted_fold_before_a_second_space_escapes_it() {
        let text = format!("\t{}  b", "a".repeat(76));
        assert_eq!(
            scalar(&text),
            format!("k: \"\\t{}\n  \\ b\"\n", "a".repeat(76))
        );
    }

    #[test]
    fn quoted_text_is_not_folded_at_its_last_character() {
        let text = format!("\t{} ", "a".repeat(76));
        assert_eq!(scalar(&text), format!("k: \"\\t{} \"\n", "a".repeat(76)));
    }

    #[test]
    fn keys_are_never_folded() {
        let key = format!("{} b", "a".repeat(100));
        assert_eq!(to_string(&json!({ key.clone(): 1 })), format!("{key}: 1\n"));
    }

    // --- numbers and other scalars --------------------------------------------------------

    #[test]
    fn floats_use_go_shortest_formatting() {
        emits(
            json!([
                1.5,
                -0.5,
                0.5,
                1e-7,
                1e21,
                2.0,
                -2.0,
                0.0,
                -0.0,
                1e20,
                123_456.5,
                1_234_567.5,
                0.0001,
                0.00001,
                0.1,
                1.0 / 3.0,
                1.5e300,
                5e-324
            ]),
            "- 1.5\n- -0.5\n- 0.5\n- 1e-07\n- 1e+21\n- 2\n- -2\n- 0\n- 0\n- 1e+20\n- 123456.5\n\
             - 1.2345675e+06\n- 0.0001\n- 1e-05\n- 0.1\n- 0.3333333333333333\n- 1.5e+300\n\
             - 5e-324\n",
        );
    }

    #[test]
    fn integral_floats_print_as_the_integer_go_reads_back() {
        // Beyond 2^53 Go's JSON writes shortest digits padded with zeros; past int64/uint64 the
        // value stays a float.
        emits(
            json!([
                9_223_372_036_854_775_808.0_f64,
                18_446_744_073_709_549_568.0_f64,
                18_446_744_073_709_551_616.0_f64,
                -9_223_372_036_854_775_808.0_f64
            ]),
            "- 9223372036854776000\n- 18446744073709550000\n- 1.8446744073709552e+19\n\
             - -9.223372036854776e+18\n",
        );
    }

    #[test]
    fn ties_between_shortest_digits_round_to_even_like_go() {
        // Exactly halfway between ...612 and ...613 in the 16th digit.
        let tie = 670_226_393_754_461.0_f64 + 0.25;
        emits(json!(tie), "6.702263937544612e+14\n");
    }

    #[test]
    fn integers_null_and_booleans() {
        emits(
            json!([0, -1, i64::MIN, i64::MAX, u64::MAX, null, true, false]),
            "- 0\n- -1\n- -9223372036854775808\n- 9223372036854775807\n- 18446744073709551615\n\
             - null\n- true\n- false\n",
        );
    }

    // --- layout ---------------------------------------------------------------------------

    #[test]
    fn sequences_in_mappings_are_not_indented() {
        emits(
            json!({"versions": [{"name": "v1", "served": true}], "spec": {"names": ["a", "b"]}}),
            "spec:\n  names:\n  - a\n  - b\nversions:\n- name: v1\n  served: true\n",
        );
    }

    #[test]
    fn nested_sequences_share_the_line() {
        emits(json!([[["x"]]]), "- - - x\n");
        emits(
            json!({"a": [[1, [2, 3]], [], {}, [{}], [[]], {"b": []}, null]}),
            "a:\n- - 1\n  - - 2\n    - 3\n- []\n- {}\n- - {}\n- - []\n- b: []\n- null\n",
        );
    }

    #[test]
    fn empty_collections_use_flow_style() {
        emits(
            json!({"status": {}, "default": []}),
            "default: []\nstatus: {}\n",
        );
        emits(json!({}), "{}\n");
        emits(json!([]), "[]\n");
    }

    #[test]
    fn root_scalars() {
        emits(json!("plain"), "plain\n");
        emits(json!(""), "\"\"\n");
        emits(json!("yes"), "\"yes\"\n");
        emits(json!(null), "null\n");
        emits(json!(3), "3\n");
    }

    #[test]
    fn documents_are_each_preceded_by_a_separator() {
        let documents = [json!({"kind": "A"}), json!({"kind": "B"})];
        assert_eq!(to_documents(&documents), "---\nkind: A\n---\nkind: B\n");
        assert_eq!(to_documents(&[]), "");
    }
}

#[cfg(test)]
mod golden_tests {
    //! Round trips over controller-gen's golden files: parse each document with serde_yaml,
    //! emit it again and compare.
    //!
    //! serde_yaml follows YAML 1.2 and yaml.v2 YAML 1.1, but yaml.v2 quotes every string that
    //! YAML 1.1 would read as something else, so each plain scalar in these files means the same
    //! to both; quoted strings (`"124"`, `"True"`) stay strings and integers stay integers. The
    //! byte comparisons would catch any value that changed type on the way.

    use super::to_documents;
    use serde_json::Value;
    use std::path::{Path, PathBuf};

    /// controller-gen's golden files, kept with their sources in the repository.
    fn golden_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/goldens/controller-gen")
    }

    fn yaml_files(dir: &Path, found: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("readable directory entry").path();
            if path.is_dir() {
                yaml_files(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "yaml") {
                found.push(path);
            }
        }
    }

    #[derive(Debug, PartialEq)]
    enum Comparison {
        Bytes,
        Semantic,
        Obsolete,
    }

    /// tests/fixtures/goldens/README.md: webhook files are hand-edited, `crd/gen/*.v1beta1.yaml`
    /// are obsolete.
    fn comparison(relative: &str) -> Comparison {
        if relative.starts_with("crd/gen/") && relative.ends_with(".v1beta1.yaml") {
            Comparison::Obsolete
        } else if relative.starts_with("webhook/") {
            Comparison::Semantic
        } else {
            Comparison::Bytes
        }
    }

    fn golden_files() -> Vec<(String, Comparison, String)> {
        let root = golden_root();
        let mut paths = Vec::new();
        yaml_files(&root, &mut paths);
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let relative = path
                    .strip_prefix(&root)
                    .expect("found below the root")
                    .to_string_lossy()
                    .replace('\\', "/");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let kind = comparison(&relative);
                (relative, kind, text)
            })
            .collect()
    }

    /// Splits at `---` lines; serde_yaml 0.9 only offers multi-document parsing through serde's
    /// `Deserialize` trait, and this keeps the dev-dependencies to serde_yaml and serde_json.
    fn documents(text: &str) -> Vec<String> {
        let mut documents = vec![String::new()];
        for line in text.split_inclusive('\n') {
            if line.trim_end_matches('\n') == "---" {
                documents.push(String::new());
            } else if let Some(current) = documents.last_mut() {
                current.push_str(line);
            }
        }
        documents.retain(|document| !document.trim().is_empty());
        documents
    }

    fn parse(name: &str, text: &str) -> Vec<Value> {
        documents(text)
            .iter()
            .map(|document| {
                serde_yaml::from_str(document).unwrap_or_else(|e| panic!("{name}: {e}"))
            })
            .collect()
    }

    fn first_difference(expected: &str, actual: &str) -> String {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        let show = |text: &str| -> String {
            text.lines()
                .skip(line.saturating_sub(2))
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!(
            "first difference at line {}:\n--- expected\n{}\n--- actual\n{}",
            line + 1,
            show(expected),
            show(actual)
        )
    }

    #[test]
    fn every_golden_file_is_classified() {
        let files = golden_files();
        let count = |kind: Comparison| files.iter().filter(|(_, k, _)| *k == kind).count();
        assert_eq!(count(Comparison::Bytes), 14);
        assert_eq!(count(Comparison::Semantic), 14);
        assert_eq!(count(Comparison::Obsolete), 2);
    }

    /// Files whose framing was edited by hand upstream: no leading `---` and no final newline.
    /// Their body is still compared byte for byte.
    const UNFRAMED: &[&str] = &["crd/testdata.kubebuilder.io_enums.yaml"];

    #[test]
    fn byte_exact_golden_files_round_trip() {
        let files = golden_files();
        let mut checked = Vec::new();
        let mut failures = Vec::new();
        for (name, kind, text) in &files {
            if *kind != Comparison::Bytes {
                continue;
            }
            let values = parse(name, text);
            let expected = if UNFRAMED.contains(&name.as_str()) {
                assert!(
                    !text.starts_with("---") && !text.ends_with('\n') && values.len() == 1,
                    "{name} is no longer hand-framed; drop it from UNFRAMED"
                );
                format!("---\n{text}\n")
            } else {
                text.clone()
            };
            let emitted = to_documents(&values);
            if emitted == expected {
                println!("byte-exact: {name}");
                checked.push(name.as_str());
            } else {
                failures.push(format!("{name}: {}", first_difference(&expected, &emitted)));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        assert_eq!(checked.len(), 14, "byte-exact files checked: {checked:?}");
    }

    /// Webhook files whose layout was edited by hand upstream (keys out of order, 4-space
    /// sequence indentation). The other webhook files are what controller-gen writes.
    const HAND_EDITED: &[&str] = &[
        "webhook/valid/manifests.yaml",
        "webhook/valid-crosspkg-stable/manifests.yaml",
        "webhook/valid-custom-name/manifests.yaml",
        "webhook/valid-custom-service/manifests.yaml",
        "webhook/valid-url/manifests.yaml",
    ];

    #[test]
    fn semantic_golden_files_round_trip() {
        let files = golden_files();
        let mut checked = 0;
        for (name, kind, text) in &files {
            if *kind != Comparison::Semantic {
                continue;
            }
            let values = parse(name, text);
            let emitted = to_documents(&values);
            assert_eq!(parse(name, &emitted), values, "{name}");
            let hand_edited = HAND_EDITED.contains(&name.as_str());
            assert_eq!(emitted == *text, !hand_edited, "{name}: byte comparison");
            println!("semantic: {name} (bytes equal: {})", !hand_edited);
            checked += 1;
        }
        assert_eq!(checked, 14, "webhook files checked");
    }
}

#[cfg(test)]
mod scan_tests {
    use super::{Analysis, contains_break, is_break, plain_ascii};

    #[test]
    fn the_scan_by_words_finds_what_the_scan_by_bytes_finds() {
        // Each of these can change what a scan finds, next to any other.
        let alphabet = [
            "a",
            "Z",
            "0",
            " ",
            " ",
            ":",
            "#",
            "-",
            "?",
            "!",
            "\n",
            "\t",
            "\r",
            "\u{7f}",
            "é",
            "\u{2028}",
            "\u{feff}",
            "\u{1f600}",
            "---",
            "...",
            "x: y",
            " #",
        ];
        let mut rng = fastrand::Rng::with_seed(21);
        let mut long_enough = 0;
        for _ in 0..20_000 {
            let text: String = (0..rng.usize(0..40))
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            let by_bytes = Analysis::scan(&text, false);
            assert_eq!(Analysis::scan(&text, true), by_bytes, "{text:?}");
            long_enough += usize::from(text.len() > 9);
        }
        assert!(long_enough > 10_000);
        // Every byte value in every position of a word.
        for byte in 0..=u8::MAX {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = byte;
                let plain =
                    byte == b' ' || (byte.is_ascii_graphic() && byte != b':' && byte != b'#');
                assert_eq!(
                    plain_ascii(u64::from_le_bytes(word)),
                    plain,
                    "{byte:#x} at {at}"
                );
            }
        }
    }

    #[test]
    fn a_break_is_found_by_its_first_byte_and_then_as_a_char() {
        for text in [
            "", "a", "x\ny", "\r", "\u{85}", "\u{2028}", "\u{2029}", "é\u{80}", "\u{2027}", "日本",
        ] {
            // Short, and long enough for memchr.
            for text in [text.to_owned(), format!("{}{text}", "x".repeat(64))] {
                assert_eq!(contains_break(&text), text.contains(is_break), "{text:?}");
            }
        }
    }
}
