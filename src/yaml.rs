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

/// Indentation step of yaml.v2's emitter.
const INDENT_STEP: usize = 2;
/// yaml.v2's preferred width: a scalar is folded at the first space found after this column.
const LINE_WIDTH: usize = 80;
/// Longest key (in bytes) that libyaml writes as an implicit `key: value` pair.
const MAX_SIMPLE_KEY_BYTES: usize = 128;

/// One YAML document, no leading `---`, ends with a newline.
pub fn to_string(value: &Value) -> String {
    write_document(String::new(), value)
}

/// Several documents, each preceded by a `---` line, as controller-gen writes multi-object files.
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
pub fn compare_keys(a: &str, b: &str) -> Ordering {
    if key_less(a, b) {
        Ordering::Less
    } else if key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
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

/// Go's `unicode.IsLetter` (categories L*). Exact for ASCII. Beyond ASCII std only offers the
/// `Alphabetic` property, so letter numbers (Nl) and the circled letters are taken out by hand;
/// combining vowel signs (Mn/Mc with `Other_Alphabetic`) still count as letters here.
fn is_go_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    const NOT_LETTERS: &[(char, char)] = &[
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
    c.is_alphabetic() && !in_ranges(c, NOT_LETTERS)
}

/// Go's `unicode.IsDigit` (category Nd). Exact for ASCII. Beyond ASCII std only offers the
/// `Numeric` property, so letter numbers and the common other numbers (superscripts, fractions,
/// circled numbers) are taken out by hand.
fn is_go_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    const NOT_DIGITS: &[(char, char)] = &[
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
    c.is_numeric() && !in_ranges(c, NOT_DIGITS)
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
#[derive(Debug)]
struct Analysis {
    multiline: bool,
    plain_allowed: bool,
    single_quoted_allowed: bool,
    literal_allowed: bool,
}

#[derive(Default)]
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
        let found = Self::scan(text);
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

    fn scan(text: &str) -> Findings {
        let mut found = Findings {
            indicators: text.starts_with("---") || text.starts_with("..."),
            ..Findings::default()
        };
        let mut preceded_by_whitespace = true;
        let mut previous_space = false;
        let mut previous_break = false;
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            let last = next.is_none();
            let followed_by_whitespace = matches!(next, None | Some(' ' | '\t'));
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
            first = false;
        }
        found
    }
}

fn is_leading_indicator(c: char, followed_by_whitespace: bool) -> bool {
    match c {
        '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@'
        | '`' => true,
        '?' | ':' | '-' => followed_by_whitespace,
        _ => false,
    }
}

/// libyaml's `is_printable`: characters beyond the BMP count as non-printable too.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
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

fn resolves_to_string(text: &str) -> bool {
    let Some(&first) = text.as_bytes().first() else {
        return false;
    };
    if RESERVED_WORDS.contains(&text) {
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
    if count_digits_anywhere(&bytes[1..mantissa_len]) == 0 {
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

fn count_digits_anywhere(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| b.is_ascii_digit()).count()
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
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
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
    format!("{sign}{first}{point}{rest}e{exponent_sign}{:02}", exponent.unsigned_abs())
}

/// The shortest digits that read back as `value` (> 0) and the decimal exponent of the first
/// digit. Go breaks a tie between two equally close candidates towards the even one; Rust's
/// shortest formatting rounds ties up, but its fixed-precision formatting rounds half to even.
fn shortest_digits(value: f64) -> (String, i32) {
    let shortest = format!("{value:e}");
    let digit_count = shortest.bytes().take_while(|&b| b != b'e').filter(u8::is_ascii_digit).count();
    let even = format!("{value:.*e}", digit_count.saturating_sub(1));
    let chosen = if even.parse::<f64>() == Ok(value) { even } else { shortest };
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

struct Emitter {
    out: String,
    /// Characters (not bytes) already on the current line.
    column: usize,
    /// `None` before the root node (libyaml's -1).
    indent: Option<usize>,
    /// The last character written is whitespace, so an indicator needs no separating space.
    whitespace: bool,
    /// Only indentation (and `-`/`?`/`:` indicators) has been written on the current line.
    indention: bool,
}

impl Emitter {
    fn new(out: String) -> Emitter {
        Emitter {
            out,
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

    fn node(&mut self, value: &Value, context: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, context),
            Value::Bool(true) => self.scalar("true", Style::Plain, context),
            Value::Bool(false) => self.scalar("false", Style::Plain, context),
            Value::Number(number) => self.scalar(&format_number(number), Style::Plain, context),
            Value::String(text) => self.scalar(text, requested_style(text), context),
            Value::Array(items) if items.is_empty() => self.empty_flow('[', ']'),
            Value::Array(items) => self.sequence(items, context),
            Value::Object(map) if map.is_empty() => self.empty_flow('{', '}'),
            Value::Object(map) => self.mapping(map),
        }
    }

    fn sequence(&mut self, items: &[Value], context: Context) {
        let outer = self.indent;
        // A sequence that is a mapping value starts on a fresh line at the key's indentation.
        self.indent = self.increased_indent(false, context.in_mapping() && !self.indention);
        for item in items {
            self.write_indent();
            self.indicator("-", true, false, true);
            self.node(item, Context::Standalone);
        }
        self.indent = outer;
    }

    fn mapping(&mut self, map: &Map<String, Value>) {
        let outer = self.indent;
        self.indent = self.increased_indent(false, false);
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        merge_sort(&mut entries, &mut Vec::new(), &|(a, _), (b, _)| key_less(a, b));
        for (key, value) in entries {
            self.write_indent();
            self.key(key);
            self.node(value, Context::MappingValue);
        }
        self.indent = outer;
    }

    fn key(&mut self, key: &str) {
        let analysis = Analysis::of(key);
        let requested = requested_style(key);
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
        self.indent = self.increased_indent(true, false);
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.plain(text, allow_breaks),
            Style::SingleQuoted => self.single_quoted(text, allow_breaks),
            Style::DoubleQuoted => self.double_quoted(text, allow_breaks),
            Style::Literal => self.literal(text),
        }
        self.indent = outer;
    }

    fn increased_indent(&self, flow: bool, indentless: bool) -> Option<usize> {
        Some(match self.indent {
            None if flow => INDENT_STEP,
            None => 0,
            Some(indent) if indentless => indent,
            Some(indent) => indent + INDENT_STEP,
        })
    }

    // --- low-level writes ----------------------------------------------------------------

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
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
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace)
        {
            self.put_break();
        }
        if self.column < indent {
            self.out
                .extend(std::iter::repeat_n(' ', indent - self.column));
            self.column = indent;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn indicator(&mut self, text: &str, need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(text);
        self.column += text.chars().count();
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn indicator_char(&mut self, c: char, need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        let mut buffer = [0; 4];
        self.indicator(c.encode_utf8(&mut buffer), need_whitespace, is_whitespace, is_indention);
    }

    // --- scalar writers --------------------------------------------------------------------

    fn plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == ' ' {
                let next_is_space = chars.peek() == Some(&' ');
                if allow_breaks && !spaces && self.column > LINE_WIDTH && !next_is_space {
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
                self.put(c);
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
        let mut breaks = true;
        for c in text.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
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
mod golden_tests {
    //! Round trips over controller-gen's golden files: parse each document with serde_yaml,
    //! emit it again and compare.

    use super::{to_documents, to_string};
    use serde_json::Value;
    use std::path::{Path, PathBuf};

    /// `OPGEN_SHARED_DIR`, else `shared/` next to the crate (opgen's layout), else two levels up
    /// (this scratch crate's layout).
    fn shared_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("OPGEN_SHARED_DIR") {
            return PathBuf::from(dir);
        }
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let candidates = [manifest.join("../shared"), manifest.join("../../shared")];
        candidates
            .iter()
            .find(|dir| dir.join("conformance/controller-gen").is_dir())
            .cloned()
            .unwrap_or_else(|| {
                panic!("no shared/ directory with conformance/controller-gen found at {candidates:?}; set OPGEN_SHARED_DIR")
            })
    }

    fn golden_root() -> PathBuf {
        shared_dir().join("conformance/controller-gen")
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

    /// INDEX.md: webhook files are hand-edited, `crd/gen/*.v1beta1.yaml` are obsolete.
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
    fn byte_exact_golden_files_round_trip() {
        let files = golden_files();
        let mut checked = Vec::new();
        let mut failures = Vec::new();
        for (name, kind, text) in &files {
            if *kind != Comparison::Bytes {
                continue;
            }
            let values = parse(name, text);
            // One hand-edited file lacks the leading `---` that controller-gen writes.
            let emitted = if text.starts_with("---\n") {
                to_documents(&values)
            } else {
                assert_eq!(values.len(), 1, "{name}: several documents without `---`");
                to_string(&values[0])
            };
            if emitted == *text {
                checked.push(name.as_str());
            } else {
                failures.push(format!("{name}: {}", first_difference(text, &emitted)));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        assert_eq!(checked.len(), 14, "byte-exact files checked: {checked:?}");
    }

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
            checked += 1;
        }
        assert_eq!(checked, 14, "webhook files checked");
    }
}
