//! Parsing one marker's text (`+name:key=value,...`) against the catalog, with the value
//! grammar of controller-gen (spec §2.1–2.2): quoted, raw and bare strings, `{a,b}` and
//! `a;b` lists, `{k: v}` maps, and typed guessing for `any` values.
//!
//! Unlike controller-gen, an empty bare value (`namespace=,`) is an error instead of
//! silently swallowing the next argument, and text left over after a value is reported.

use super::catalog::{ArgType, Args, FieldDef, MarkerCatalog, MarkerDef};
use std::collections::BTreeMap;

/// A parsed marker argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<Value>),
    Map(Vec<(String, Value)>),
    /// A JSON literal (`+default=...`).
    Json(serde_json::Value),
    /// `+default=ref(Name)`: a reference to a Go constant, which controller-gen ignores (no
    /// default, no error). Kept so that the generator can warn about it.
    Ref(String),
}

impl Value {
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::String(s) => J::String(s.clone()),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Bool(b) => J::Bool(*b),
            Value::List(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
            Value::Json(j) => j.clone(),
            Value::Ref(_) => J::Null,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn as_strings(&self) -> Vec<String> {
        match self {
            Value::List(items) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            Value::String(s) => vec![s.clone()],
            _ => Vec::new(),
        }
    }
}

/// A marker's arguments after parsing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedArgs {
    /// The unnamed value of a `Value` marker.
    pub value: Option<Value>,
    /// Named arguments of a `Fields` marker, by catalog field name.
    pub fields: BTreeMap<String, Value>,
}

// Lookups by name, for the tests: the generators read `markers::typed`.
#[cfg(test)]
impl ParsedArgs {
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }

    pub fn str_field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).and_then(Value::as_str)
    }

    pub fn list_field(&self, name: &str) -> Vec<String> {
        self.fields
            .get(name)
            .map(Value::as_strings)
            .unwrap_or_default()
    }
}

/// Where in the marker text a problem is, as a char offset from the `+`, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub width: usize,
    pub message: String,
    pub help: Option<String>,
}

impl SyntaxError {
    fn new(offset: usize, width: usize, message: impl Into<String>) -> Self {
        SyntaxError {
            offset,
            width: width.max(1),
            message: message.into(),
            help: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Parses `text`, which starts at the `+`, into its catalog definition and arguments.
pub fn parse<'c>(
    catalog: &'c MarkerCatalog,
    text: &str,
) -> Result<(&'c MarkerDef, ParsedArgs), SyntaxError> {
    let body = text.strip_prefix('+').unwrap_or(text).trim_end();
    let (name, args) = match body.find('=') {
        Some(eq) => (&body[..eq], Some((eq + 2, &body[eq + 1..]))),
        None => (body, None),
    };
    let name_width = name.chars().count() + 1;
    if let Some(def) = catalog.lookup(name) {
        if def.ignored {
            return Ok((def, ParsedArgs::default()));
        }
        return parse_args(def, args, None, name_width);
    }
    // `+kubebuilder:printcolumn:name=...`: the last name segment is the first argument's key,
    // and `+kubebuilder:default:=x` means the same as `+kubebuilder:default=x`.
    if let Some((short, first_key)) = name.rsplit_once(':')
        && let Some(def) = catalog.lookup(short)
        && !def.ignored
    {
        match (&def.args, first_key) {
            (Args::Fields(_), key) if !key.is_empty() => {
                return parse_args(def, args, Some(key), name_width);
            }
            (Args::Value(_), "") => return parse_args(def, args, None, name_width),
            _ => {}
        }
    }
    let mut err = SyntaxError::new(1, name.chars().count(), format!("unknown marker `{name}`"));
    // `+kubebuilder:validation:UniqueItems:true` (in JobSet v0.11.1): a colon for the `=`,
    // which controller-gen silently ignores.
    if let Some((short, value)) = name.rsplit_once(':')
        && args.is_none()
        && !value.is_empty()
        && let Some(def) = catalog.lookup(short)
        && matches!(def.args, Args::Value(_))
    {
        return Err(err.help(format!(
            "did you mean `+{short}={value}`? A marker's value follows `=`"
        )));
    }
    if let Some(s) = catalog.suggest(name) {
        err = err.help(format!(
            "did you mean `{s}`? (`opgen markers` lists every marker)"
        ));
    } else {
        err = err.help("`opgen markers` lists every marker opgen understands");
    }
    Err(err)
}

fn parse_args<'c>(
    def: &'c MarkerDef,
    args: Option<(usize, &str)>,
    first_key: Option<&str>,
    name_width: usize,
) -> Result<(&'c MarkerDef, ParsedArgs), SyntaxError> {
    let mut parsed = ParsedArgs::default();
    match &def.args {
        Args::None => {
            if let Some((at, text)) = args {
                return Err(SyntaxError::new(
                    at - 1,
                    text.chars().count() + 1,
                    format!("`{}` takes no arguments", def.name),
                )
                .help(format!("write `+{}` alone", def.name)));
            }
        }
        Args::Value(ty) => {
            let Some((at, text)) = args else {
                return Err(SyntaxError::new(
                    0,
                    name_width,
                    format!("`{}` needs a value: {}", def.name, ty.describe()),
                )
                .help(format!("write `+{}=<value>`", def.name)));
            };
            let mut cur = Cursor::new(text, at);
            let value = cur.top_level_value(ty, def.name)?;
            cur.expect_end(def.name)?;
            parsed.value = Some(value);
        }
        Args::Fields(fields) => {
            let text = match (first_key, args) {
                (Some(key), Some((at, text))) => {
                    (at - key.chars().count() - 1, format!("{key}={text}"))
                }
                (Some(key), None) => (name_width, key.to_owned()),
                (None, Some((at, text))) => (at, text.to_owned()),
                (None, None) => (name_width, String::new()),
            };
            let mut cur = Cursor::new(&text.1, text.0);
            parsed.fields = cur.fields(def, fields)?;
            check_required(def, fields, &parsed.fields, name_width)?;
        }
    }
    Ok((def, parsed))
}

fn check_required(
    def: &MarkerDef,
    fields: &[FieldDef],
    got: &BTreeMap<String, Value>,
    name_width: usize,
) -> Result<(), SyntaxError> {
    let missing: Vec<&str> = fields
        .iter()
        .filter(|f| !f.optional && !got.contains_key(f.name))
        .map(|f| f.name)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(SyntaxError::new(
        0,
        name_width,
        format!(
            "`{}` is missing the argument{} {}",
            def.name,
            if missing.len() > 1 { "s" } else { "" },
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// A position in the argument text; `base` is the char offset of the text in the marker.
struct Cursor<'a> {
    chars: Vec<char>,
    pos: usize,
    base: usize,
    _text: &'a str,
    /// How many `{...}` lists and maps deep the cursor is.
    depth: usize,
    /// How many `[...]` lists deep: inside one, `]` also ends a bare string.
    brackets: usize,
}

/// Marker values nest at most this deep (`{{{...}}}`): the parser recurses once per level.
const MAX_VALUE_DEPTH: usize = 64;

impl<'a> Cursor<'a> {
    fn new(text: &'a str, base: usize) -> Self {
        Cursor {
            chars: text.chars().collect(),
            pos: 0,
            base,
            _text: text,
            depth: 0,
            brackets: 0,
        }
    }

    /// Parses one nested list or map with `parse`, refusing values nested too deep.
    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<Value, SyntaxError>,
    ) -> Result<Value, SyntaxError> {
        if self.depth >= MAX_VALUE_DEPTH {
            return Err(SyntaxError::new(
                self.at(),
                1,
                format!("the value nests lists and maps more than {MAX_VALUE_DEPTH} levels deep"),
            ));
        }
        self.depth += 1;
        let value = parse(self);
        self.depth -= 1;
        value
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn at(&self) -> usize {
        self.base + self.pos
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn rest(&self) -> String {
        self.chars[self.pos..].iter().collect()
    }

    fn expect_end(&mut self, marker: &str) -> Result<(), SyntaxError> {
        self.skip_ws();
        if self.pos < self.chars.len() {
            let rest = self.rest();
            return Err(SyntaxError::new(
                self.at(),
                rest.chars().count(),
                format!("unexpected `{rest}` after the value of `{marker}`"),
            )
            .help("quote values that contain , ; or } with backquotes, e.g. `a,b`"));
        }
        Ok(())
    }

    fn fields(
        &mut self,
        def: &MarkerDef,
        fields: &[FieldDef],
    ) -> Result<BTreeMap<String, Value>, SyntaxError> {
        let mut out = BTreeMap::new();
        loop {
            self.skip_ws();
            if self.pos >= self.chars.len() {
                break;
            }
            let key_at = self.at();
            let key: String = self.take_while(|c| c != '=' && c != ',').trim().to_owned();
            let Some(field) = fields.iter().find(|f| f.name == key) else {
                let known = fields.iter().map(|f| f.name).collect::<Vec<_>>().join(", ");
                let mut err = SyntaxError::new(
                    key_at,
                    key.chars().count(),
                    format!("unknown argument `{key}` for `{}`", def.name),
                )
                .help(format!("its arguments are: {known}"));
                if let Some(f) = fields.iter().find(|f| f.name.eq_ignore_ascii_case(&key)) {
                    err = err.help(format!(
                        "did you mean `{}`? (its arguments are: {known})",
                        f.name
                    ));
                }
                return Err(err);
            };
            if out.contains_key(&key) {
                return Err(SyntaxError::new(
                    key_at,
                    key.chars().count(),
                    format!("argument `{key}` is given twice"),
                ));
            }
            let value = if self.eat('=') {
                self.value(&field.ty, &format!("{}={}", key, ""), true)?
            } else if field.ty == ArgType::Bool {
                // `+kubebuilder:webhook:mutating,...` style: a bare key means true.
                Value::Bool(true)
            } else {
                return Err(SyntaxError::new(
                    key_at,
                    key.chars().count(),
                    format!("argument `{key}` needs a value: {}", field.ty.describe()),
                ));
            };
            out.insert(key, value);
            self.skip_ws();
            match self.peek() {
                None => break,
                Some(',') => self.pos += 1,
                Some(c) => {
                    return Err(SyntaxError::new(
                        self.at(),
                        1,
                        format!("expected `,` between arguments, found `{c}`"),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let start = self.pos;
        while self.peek().is_some_and(&keep) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    /// A value at the top level of an unnamed marker, where `a;b` is a legacy list.
    fn top_level_value(&mut self, ty: &ArgType, marker: &str) -> Result<Value, SyntaxError> {
        if *ty == ArgType::Json {
            return self.json();
        }
        // `+groupName=`: an empty value with nothing after it cannot swallow another argument,
        // and is how Go packages of the core group ("") say so (spec §3.1).
        if *ty == ArgType::String && self.rest().trim().is_empty() {
            self.pos = self.chars.len();
            return Ok(Value::String(String::new()));
        }
        self.value(ty, marker, true)
    }

    fn json(&mut self) -> Result<Value, SyntaxError> {
        let text = self.rest();
        let start = self.at();
        if let Some(inner) = text
            .trim()
            .strip_prefix("ref(")
            .and_then(|r| r.strip_suffix(')'))
        {
            self.pos = self.chars.len();
            return Ok(Value::Ref(inner.trim().to_owned()));
        }
        let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(v)) => {
                let used = text[..stream.byte_offset()].chars().count();
                self.pos += used;
                Ok(Value::Json(v))
            }
            Some(Err(e)) => Err(SyntaxError::new(
                start,
                text.chars().count(),
                format!("not valid JSON: {e}"),
            )
            .help("`+default` takes JSON, e.g. +default=\"TCP\", +default=3 or +default={\"a\":1}; `+kubebuilder:default` takes marker syntax")),
            None => Err(SyntaxError::new(start, 1, "missing JSON value")),
        }
    }

    fn value(&mut self, ty: &ArgType, ctx: &str, top: bool) -> Result<Value, SyntaxError> {
        self.skip_ws();
        let start = self.at();
        match ty {
            ArgType::String => self.string(ctx).map(Value::String),
            ArgType::OneOf(options) => {
                let s = self.string(ctx)?;
                if options.contains(&s.as_str()) {
                    Ok(Value::String(s))
                } else {
                    Err(SyntaxError::new(
                        start,
                        s.chars().count(),
                        format!("`{s}` is not allowed here: expected {}", ty.describe()),
                    ))
                }
            }
            ArgType::Int => self.number(true),
            ArgType::Number => self.number(false),
            ArgType::Bool => {
                let word = self.take_while(|c| c.is_ascii_alphanumeric());
                match word.as_str() {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    _ => Err(SyntaxError::new(
                        start,
                        word.chars().count(),
                        format!("expected true or false, found `{word}`"),
                    )),
                }
            }
            ArgType::List(item) => self.nested(|c| c.list(item, top, ctx)),
            ArgType::Map => self.nested(Self::map),
            ArgType::Json => self.json(),
            ArgType::Any => self.any(top),
        }
    }

    fn string(&mut self, ctx: &str) -> Result<String, SyntaxError> {
        self.skip_ws();
        let start = self.at();
        match self.peek() {
            Some('"') => self.quoted(),
            Some('`') => {
                self.pos += 1;
                let s = self.take_while(|c| c != '`');
                if self.peek() != Some('`') {
                    return Err(SyntaxError::new(start, 1, "unterminated `raw string`"));
                }
                self.pos += 1;
                Ok(s)
            }
            _ => {
                let in_brackets = self.brackets > 0;
                let s = self.take_while(|c| !is_bare_delim(c, in_brackets));
                let s = s.trim().to_owned();
                if s.is_empty() {
                    let key = ctx.trim_end_matches('=');
                    return Err(SyntaxError::new(start, 1, format!("empty value for `{key}`")).help(
                        "write \"\" for an empty string (controller-gen would silently read the next argument as the value)",
                    ));
                }
                Ok(s)
            }
        }
    }

    fn quoted(&mut self) -> Result<String, SyntaxError> {
        let start = self.at();
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(SyntaxError::new(start, 1, "unterminated \"string\""));
            };
            self.pos += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let esc = self
                        .peek()
                        .ok_or_else(|| SyntaxError::new(start, 1, "unterminated \"string\""))?;
                    self.pos += 1;
                    match esc {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '\\' => out.push('\\'),
                        '"' => out.push('"'),
                        '\'' => out.push('\''),
                        'a' => out.push('\u{7}'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'v' => out.push('\u{b}'),
                        'x' | 'u' | 'U' => {
                            let n = match esc {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let hex: String = self.chars[self.pos..].iter().take(n).collect();
                            let ch = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            match ch {
                                Some(ch) if hex.len() == n => {
                                    out.push(ch);
                                    self.pos += n;
                                }
                                _ => {
                                    return Err(SyntaxError::new(
                                        self.at() - 2,
                                        2,
                                        format!("invalid escape `\\{esc}{hex}`"),
                                    ));
                                }
                            }
                        }
                        other => {
                            return Err(SyntaxError::new(
                                self.at() - 2,
                                2,
                                format!("invalid escape `\\{other}`"),
                            ));
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn number(&mut self, integer: bool) -> Result<Value, SyntaxError> {
        self.skip_ws();
        let start = self.at();
        let text =
            self.take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.' | '_'));
        if text.is_empty() {
            let found = self
                .peek()
                .map_or("the end of the marker".to_owned(), |c| format!("`{c}`"));
            return Err(SyntaxError::new(
                start,
                1,
                format!(
                    "expected {}, found {found}",
                    if integer { "an integer" } else { "a number" }
                ),
            ));
        }
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        let digits = text.trim_start_matches(['+', '-']);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SyntaxError::new(
                start,
                text.chars().count(),
                format!("`{text}` does not fit in a 64-bit integer"),
            )
            .help("the API server stores integers as int64: use a value between -9223372036854775808 and 9223372036854775807"));
        }
        if !integer && let Ok(f) = text.parse::<f64>() {
            let mantissa_nonzero = text
                .split(['e', 'E'])
                .next()
                .is_some_and(|m| m.bytes().any(|b| (b'1'..=b'9').contains(&b)));
            if !f.is_finite() || (f == 0.0 && mantissa_nonzero) {
                return Err(SyntaxError::new(
                    start,
                    text.chars().count(),
                    format!(
                        "`{text}` cannot be represented as a 64-bit float ({})",
                        if f == 0.0 {
                            "it would become 0"
                        } else {
                            "it is out of range"
                        }
                    ),
                ));
            }
            return Ok(Value::Float(f));
        }
        Err(SyntaxError::new(
            start,
            text.chars().count(),
            format!(
                "expected {}, found `{text}`",
                if integer { "an integer" } else { "a number" }
            ),
        ))
    }

    fn list(&mut self, item: &ArgType, top: bool, ctx: &str) -> Result<Value, SyntaxError> {
        self.skip_ws();
        let mut items = Vec::new();
        if self.eat('{') {
            if self.eat('}') {
                return Ok(Value::List(items));
            }
            // Guessed item types are uniform: the first item decides.
            let mut ty = *item;
            loop {
                self.skip_ws();
                let bracketed = self.peek() == Some('[');
                let v = self.value(&ty, ctx, false)?;
                // (A `[...]` first item has no marker type that reads the next `[...]`.)
                if *item == ArgType::Any && items.is_empty() && !bracketed {
                    ty = type_of(&v);
                }
                items.push(v);
                if self.eat(',') {
                    continue;
                }
                if self.eat('}') {
                    return Ok(Value::List(items));
                }
                return Err(SyntaxError::new(
                    self.at(),
                    1,
                    "expected `,` or `}` in the list",
                ));
            }
        }
        // Legacy `a;b;c`: ends at `,` (next argument), `}` or the end, after an item or after
        // a trailing `;` (controller-gen's `Enum=a;b;` is [a, b], no empty item).
        loop {
            let v = if *item == ArgType::Any {
                self.any(false)?
            } else {
                self.value(item, ctx, false)?
            };
            items.push(v);
            self.skip_ws();
            if self.eat(';') {
                self.skip_ws();
                if !matches!(self.peek(), None | Some(',' | '}')) {
                    continue;
                }
            }
            let _ = top;
            return Ok(Value::List(items));
        }
    }

    fn map(&mut self) -> Result<Value, SyntaxError> {
        let start = self.at();
        if !self.eat('{') {
            return Err(SyntaxError::new(
                start,
                1,
                "expected a map such as {key: value}",
            ));
        }
        let mut entries = Vec::new();
        if self.eat('}') {
            return Ok(Value::Map(entries));
        }
        loop {
            self.skip_ws();
            let key = match self.peek() {
                Some('"') => self.quoted()?,
                _ => self
                    .take_while(|c| c != ':' && c != ',' && c != '}')
                    .trim()
                    .to_owned(),
            };
            if !self.eat(':') {
                return Err(SyntaxError::new(
                    self.at(),
                    1,
                    format!("expected `:` after map key `{key}`"),
                ));
            }
            let value = self.any(false)?;
            entries.push((key, value));
            if self.eat(',') {
                continue;
            }
            if self.eat('}') {
                return Ok(Value::Map(entries));
            }
            return Err(SyntaxError::new(
                self.at(),
                1,
                "expected `,` or `}` in the map",
            ));
        }
    }

    /// controller-gen's guessing for untyped values.
    fn any(&mut self, top: bool) -> Result<Value, SyntaxError> {
        self.skip_ws();
        let first = self.guess_one()?;
        if top {
            self.skip_ws();
            if self.peek() == Some(';') {
                let mut items = vec![first];
                // A trailing `;` ends the list, as in `list`.
                while self.eat(';') {
                    self.skip_ws();
                    if matches!(self.peek(), None | Some(',' | '}')) {
                        break;
                    }
                    items.push(self.guess_one()?);
                    self.skip_ws();
                }
                return Ok(Value::List(items));
            }
        }
        Ok(first)
    }

    fn guess_one(&mut self) -> Result<Value, SyntaxError> {
        self.skip_ws();
        match self.peek() {
            Some('"') | Some('`') => self.string("").map(Value::String),
            Some('{') => {
                if self.looks_like_map() {
                    self.nested(Self::map)
                } else {
                    self.nested(|c| c.list(&ArgType::Any, false, ""))
                }
            }
            Some('[') => self.nested(Self::bracket_list),
            _ => {
                let save = self.pos;
                let in_brackets = self.brackets > 0;
                let token = self.take_while(|c| !is_bare_delim(c, in_brackets));
                let trimmed = token.trim();
                match trimmed {
                    "true" => return Ok(Value::Bool(true)),
                    "false" => return Ok(Value::Bool(false)),
                    _ => {}
                }
                if let Ok(i) = trimmed.parse::<i64>() {
                    return Ok(Value::Int(i));
                }
                if is_float_literal(trimmed)
                    && let Ok(f) = trimmed.parse::<f64>()
                {
                    return Ok(Value::Float(f));
                }
                self.pos = save;
                self.string("").map(Value::String)
            }
        }
    }

    /// `[a, b]`, which controller-gen has no syntax for (it reads a bare string up to the first
    /// `,`), but JSON has, and `import crd` writes defaults as JSON: a list read whole, up to its
    /// balanced `]`. Valid JSON is read as JSON (`null` included); otherwise the items are marker
    /// syntax (`[{b: 1}]`).
    fn bracket_list(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        let text = self.rest();
        let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
        if let Some(Ok(v)) = stream.next() {
            self.pos += text[..stream.byte_offset()].chars().count();
            return Ok(Value::Json(v));
        }
        self.pos = start + 1;
        self.brackets += 1;
        let items = self.bracket_items();
        self.brackets -= 1;
        items.map(Value::List)
    }

    fn bracket_items(&mut self) -> Result<Vec<Value>, SyntaxError> {
        let mut items = Vec::new();
        if self.eat(']') {
            return Ok(items);
        }
        loop {
            items.push(self.guess_one()?);
            if self.eat(',') {
                continue;
            }
            if self.eat(']') {
                return Ok(items);
            }
            return Err(SyntaxError::new(
                self.at(),
                1,
                "expected `,` or `]` in the list",
            ));
        }
    }

    /// `{}` or `{key: ...}` is a map; anything else in braces is a list.
    fn looks_like_map(&self) -> bool {
        let rest: String = self.chars[self.pos + 1..].iter().collect();
        let rest = rest.trim_start();
        if rest.starts_with('}') {
            return true;
        }
        if let Some(stripped) = rest.strip_prefix('"') {
            // A quoted key followed by `:`.
            if let Some(end) = stripped.find('"') {
                return stripped[end + 1..].trim_start().starts_with(':');
            }
            return false;
        }
        let head: String = rest
            .chars()
            .take_while(|c| !matches!(c, ',' | '}' | '{' | ':'))
            .collect();
        rest[head.len()..].starts_with(':') && !head.trim().is_empty()
    }
}

/// Where a bare string ends: at the next argument, list item or the end of a `{...}` (or, inside
/// a `[...]`, of that).
fn is_bare_delim(c: char, in_brackets: bool) -> bool {
    matches!(c, ',' | ';' | '}') || (in_brackets && c == ']')
}

fn is_float_literal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    !s.is_empty()
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
}

fn type_of(v: &Value) -> ArgType {
    match v {
        Value::String(_) => ArgType::String,
        Value::Int(_) => ArgType::Int,
        Value::Float(_) => ArgType::Number,
        Value::Bool(_) => ArgType::Bool,
        Value::List(_) => ArgType::List(&ArgType::Any),
        Value::Map(_) => ArgType::Map,
        Value::Json(_) | Value::Ref(_) => ArgType::Json,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> (&'static str, ParsedArgs) {
        let (def, args) =
            parse(MarkerCatalog::get(), text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        (def.name, args)
    }

    fn err(text: &str) -> SyntaxError {
        parse(MarkerCatalog::get(), text).unwrap_err()
    }

    fn value_json(text: &str) -> serde_json::Value {
        ok(text).1.value.unwrap().to_json()
    }

    #[test]
    fn flags_and_values() {
        assert_eq!(ok("+optional").0, "optional");
        assert_eq!(value_json("+kubebuilder:validation:Maximum=3"), json!(3));
        assert_eq!(
            value_json("+kubebuilder:validation:Minimum=-0.5"),
            json!(-0.5)
        );
        assert_eq!(
            value_json("+kubebuilder:validation:Pattern=`^[a-z]+(,[a-z]+)*$`"),
            json!("^[a-z]+(,[a-z]+)*$")
        );
        assert_eq!(
            value_json("+kubebuilder:validation:Pattern=^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
            json!("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
        );
        let e = err("+optional=true");
        assert!(e.message.contains("takes no arguments"), "{e:?}");
    }

    #[test]
    fn enum_items_are_guessed_one_by_one() {
        assert_eq!(
            value_json("+kubebuilder:validation:Enum=Allow;Forbid;Replace"),
            json!(["Allow", "Forbid", "Replace"])
        );
        assert_eq!(
            value_json("+kubebuilder:validation:Enum=1;2;\"foo\";bar"),
            json!([1, 2, "foo", "bar"])
        );
        assert_eq!(
            value_json("+kubebuilder:validation:Enum={a,b}"),
            json!(["a", "b"])
        );
    }

    /// flux notification-controller's `Enum=slack;...;githubdispatch;`: controller-gen's legacy
    /// list ends at the end of the marker (or the next argument) after a `;`, with no empty item.
    #[test]
    fn a_trailing_semicolon_ends_a_legacy_list() {
        assert_eq!(
            value_json("+kubebuilder:validation:Enum=slack;github;"),
            json!(["slack", "github"])
        );
        assert_eq!(
            value_json("+kubebuilder:validation:Enum=slack; github ; "),
            json!(["slack", "github"])
        );
        assert_eq!(value_json("+kubebuilder:default=a;b;"), json!(["a", "b"]));
        let (_, args) = ok("+kubebuilder:rbac:groups=apps,resources=deployments;,verbs=get;list;");
        assert_eq!(args.list_field("resources"), ["deployments"]);
        assert_eq!(args.list_field("verbs"), ["get", "list"]);
    }

    #[test]
    fn defaults_in_marker_syntax() {
        assert_eq!(
            value_json("+kubebuilder:default=forty-two"),
            json!("forty-two")
        );
        assert_eq!(value_json("+kubebuilder:default:=7"), json!(7));
        assert_eq!(value_json("+kubebuilder:default={a,b}"), json!(["a", "b"]));
        assert_eq!(value_json("+kubebuilder:default={}"), json!({}));
        assert_eq!(value_json("+kubebuilder:default=100Mi"), json!("100Mi"));
        assert_eq!(
            value_json("+kubebuilder:default=2024-01-15"),
            json!("2024-01-15")
        );
        assert_eq!(value_json("+kubebuilder:default=a;b"), json!(["a", "b"]));
        assert_eq!(
            value_json(
                "+kubebuilder:default={{nested: {foo: \"baz\", bar: true}},{nested: {foo: \"qux\", bar: false}}}"
            ),
            json!([{"nested": {"foo": "baz", "bar": true}}, {"nested": {"foo": "qux", "bar": false}}])
        );
        assert_eq!(value_json("+kubebuilder:title=\"124\""), json!("124"));
    }

    #[test]
    fn bracketed_values_are_read_whole() {
        assert_eq!(
            value_json("+opgen:status:default=[{\"type\":\"A\",\"status\":\"Unknown\"}]"),
            json!([{"type": "A", "status": "Unknown"}])
        );
        assert_eq!(
            value_json("+kubebuilder:default={a: [{b: 1}]}"),
            json!({"a": [{"b": 1}]})
        );
        assert_eq!(
            value_json(
                "+opgen:status:default={\"conditions\":[{\"message\":\"a]}, [b\",\"x\":null}],\"n\":1}"
            ),
            json!({"conditions": [{"message": "a]}, [b", "x": null}], "n": 1})
        );
        assert_eq!(
            value_json("+kubebuilder:default=[a, [b, {c: d}], 2]"),
            json!(["a", ["b", {"c": "d"}], 2])
        );
        assert_eq!(value_json("+kubebuilder:default=[]"), json!([]));
        assert_eq!(
            value_json("+kubebuilder:default={[1], [x]}"),
            json!([[1], ["x"]])
        );
        assert_eq!(
            value_json("+kubebuilder:default={[x], [1]}"),
            json!([["x"], [1]])
        );
        let e = err("+kubebuilder:default={a: [{b: 1}}");
        assert!(e.message.contains("expected `,` or `]`"), "{e:?}");
    }

    #[test]
    fn json_defaults() {
        assert_eq!(value_json("+default=\"TCP\""), json!("TCP"));
        assert_eq!(
            value_json("+default=[{\"nested\": {\"foo\": \"baz\"}}]"),
            json!([{"nested": {"foo": "baz"}}])
        );
        assert_eq!(
            ok("+default=ref(DefaultRefValue)").1.value,
            Some(Value::Ref("DefaultRefValue".into()))
        );
        let e = err("+default=forty-two");
        assert!(e.message.contains("not valid JSON"), "{e:?}");
    }

    #[test]
    fn struct_markers_and_first_key_in_name() {
        let (name, args) = ok(
            "+kubebuilder:printcolumn:name=\"Age\",type=date,JSONPath=`.metadata.creationTimestamp`",
        );
        assert_eq!(name, "kubebuilder:printcolumn");
        assert_eq!(args.str_field("name"), Some("Age"));
        assert_eq!(args.str_field("type"), Some("date"));
        assert_eq!(
            args.str_field("JSONPath"),
            Some(".metadata.creationTimestamp")
        );

        let (_, args) =
            ok("+kubebuilder:rbac:groups=core,resources=pods;pods/status,verbs={get,list,watch}");
        assert_eq!(args.list_field("groups"), ["core"]);
        assert_eq!(args.list_field("resources"), ["pods", "pods/status"]);
        assert_eq!(args.list_field("verbs"), ["get", "list", "watch"]);

        let (_, args) = ok(
            "+kubebuilder:validation:XValidation:rule=\"self.a > 0\",message=\"a must be positive\",reason=FieldValueInvalid",
        );
        assert_eq!(args.str_field("rule"), Some("self.a > 0"));
        assert_eq!(args.str_field("reason"), Some("FieldValueInvalid"));
    }

    #[test]
    fn empty_group_name_is_the_core_group() {
        assert_eq!(value_json("+groupName="), json!(""));
        assert_eq!(value_json("+groupName=\"\""), json!(""));
    }

    #[test]
    fn struct_marker_errors() {
        let e = err("+kubebuilder:rbac:groups=apps,resources=deployments");
        assert!(e.message.contains("missing the argument `verbs`"), "{e:?}");
        let e = err("+kubebuilder:rbac:groups=apps,resource=deployments,verbs=get");
        assert!(e.message.contains("unknown argument `resource`"), "{e:?}");
        assert!(e.help.unwrap().contains("resources"));
        let e = err("+kubebuilder:rbac:namespace=,groups=apps,verbs=get");
        assert!(e.message.contains("empty value for `namespace`"), "{e:?}");
        assert_eq!(e.offset, 28);
        let e = err("+kubebuilder:validation:XValidation:rule=\"x\",reason=Whatever");
        assert!(e.message.contains("not allowed"), "{e:?}");
        let e = err("+kubebuilder:validation:MaxLength=ten");
        assert!(e.message.contains("expected an integer"), "{e:?}");
    }

    #[test]
    fn unknown_marker_suggests() {
        let e = err("+kubebuilder:validation:Maxlength=10");
        assert_eq!(
            e.message,
            "unknown marker `kubebuilder:validation:Maxlength`"
        );
        assert!(e.help.unwrap().contains("kubebuilder:validation:MaxLength"));
        assert_eq!((e.offset, e.width), (1, 32));
    }

    #[test]
    fn a_colon_for_the_equals_sign_is_named() {
        let e = err("+kubebuilder:validation:UniqueItems:true");
        assert_eq!(
            e.message,
            "unknown marker `kubebuilder:validation:UniqueItems:true`"
        );
        assert_eq!(
            e.help.as_deref(),
            Some(
                "did you mean `+kubebuilder:validation:UniqueItems=true`? A marker's value follows `=`"
            )
        );
        // Markers whose arguments are key=value pairs keep their own spelling.
        ok("+kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp");
    }

    #[test]
    fn ignored_foreign_markers_parse() {
        assert!(ok("+kubebuilder:object:root=true").1.value.is_none());
        assert!(ok("+featureGate=InPlaceRestart").1.value.is_none());
    }

    /// operator-sdk's CSV markers, in its grammar: the first key rides on the name.
    #[test]
    fn csv_markers_parse_with_operator_sdk_grammar() {
        let (name, args) = ok(
            r#"+operator-sdk:csv:customresourcedefinitions:displayName="Memcached App",resources={{Deployment,v1,memcached-deployment},{Service,v1}}"#,
        );
        assert_eq!(name, "operator-sdk:csv:customresourcedefinitions");
        assert_eq!(args.str_field("displayName"), Some("Memcached App"));
        let resources = args.field("resources").unwrap().to_json();
        assert_eq!(
            resources,
            serde_json::json!([
                ["Deployment", "v1", "memcached-deployment"],
                ["Service", "v1"]
            ])
        );
        let (_, args) = ok(
            r#"+operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Size",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}"#,
        );
        assert_eq!(args.str_field("type"), Some("spec"));
        assert_eq!(
            args.list_field("xDescriptors"),
            ["urn:alm:descriptor:com.tectonic.ui:podCount"]
        );
        let e = err("+operator-sdk:csv:customresourcedefinitions:type=spc");
        assert!(e.message.contains("one of spec, status"), "{}", e.message);
        let e = err("+operator-sdk:csv:customresourcedefinitions:displayname=x");
        assert!(e.message.contains("displayname"), "{}", e.message);
        let e = err("+operator-sdk:csv:customresourcedefinition:displayName=x");
        assert!(e.message.starts_with("unknown marker"), "{}", e.message);
        assert!(
            e.help
                .unwrap()
                .contains("operator-sdk:csv:customresourcedefinitions")
        );
    }

    /// Go marker families controller-gen ignores are accepted (and ignored); misspellings of
    /// known markers, also in those namespaces, are still refused with a suggestion.
    #[test]
    fn go_generator_markers_are_accepted_typos_are_not() {
        for text in [
            "+k8s:openapi-gen=true",
            "+k8s:openapi-gen=false",
            "+k8s:conversion-gen=false",
            "+k8s:defaulter-gen=TypeMeta",
            "+k8s:prerelease-lifecycle-gen:introduced=1.30",
            "+k8s:protobuf=true",
            "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object",
            "+genclient",
            "+genclient:nonNamespaced",
            "+kubebuilder:object:generate=true",
            "+kubebuilder:object:root=true",
            "+patchStrategy=merge",
            "+patchMergeKey=type",
            "+metrics:conditions:path=.status.conditions,resourceType=alertmanager",
            "+gencrdrefdocs:force",
        ] {
            let (name, args) = ok(text);
            assert!(MarkerCatalog::get().lookup(name).unwrap().ignored, "{text}");
            assert!(args.value.is_none(), "{text}");
        }
        for (typo, suggestion) in [
            ("+k8s:listtype=map", "k8s:listType"),
            ("+k8s:requried", "k8s:required"),
            ("+optinal", "optional"),
        ] {
            let e = err(typo);
            assert!(e.message.starts_with("unknown marker"), "{typo}: {e:?}");
            let help = e.help.unwrap_or_default();
            assert!(help.contains(&format!("`{suggestion}`")), "{typo}: {help}");
        }
        // client-gen's group name takes a value, which is parsed and ignored.
        let (name, _) = ok("+groupGoName=Certmanager");
        assert!(MarkerCatalog::get().lookup(name).unwrap().ignored);
        // Ignored names are never suggested, but their misspellings are still refused.
        assert!(
            err("+patchStrategi=merge")
                .message
                .starts_with("unknown marker")
        );
    }

    #[test]
    fn leftover_text_is_reported() {
        let e = err("+kubebuilder:validation:Pattern=^a,b$");
        assert!(e.message.contains("unexpected `,b$`"), "{e:?}");
    }
}
