//! The parser of CEL rules (`x-kubernetes-validations`), written for opgen.
//!
//! It follows cel-go's grammar (cel-spec's `CEL.g4`) with the optional-types syntax
//! Kubernetes enables (`a.?b`, `a[?b]`, `[?x]`, `{?k: v}`), plus the checks cel-go's parser
//! makes while expanding macros and literals (reserved words, `has()` arguments,
//! comprehension variables, integer ranges, nesting depth), and builds the `Expr` tree the
//! checker (`check.rs`) and the cost estimate (`cost.rs`) walk. Offsets count chars.

use std::fmt;

/// cel-go's default `maxRecursionDepth`: how deeply `expr` rules may nest.
const MAX_DEPTH: usize = 250;

/// Words cel-go's parser refuses as identifiers (they stay usable as field names).
pub(crate) const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Binary operators by precedence, loosest first; each level is left-associative.
const BINARY: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["<", "<=", ">=", ">", "==", "!=", "in"],
    &["+", "-"],
    &["*", "/", "%"],
];

/// Why a rule does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelSyntaxError {
    /// 0-based offset in chars (not bytes) into the rule.
    pub offset: usize,
    pub message: String,
}

impl CelSyntaxError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        CelSyntaxError {
            offset,
            message: message.into(),
        }
    }
}

impl fmt::Display for CelSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at column {}: {}", self.offset + 1, self.message)
    }
}

impl std::error::Error for CelSyntaxError {}

/// Checks that `rule` is a syntactically valid CEL expression, as the API server's parser would.
pub fn check_syntax(rule: &str) -> Result<(), CelSyntaxError> {
    parse(rule).map(drop)
}

/// Parses `rule` as the API server's parser would.
pub fn parse(rule: &str) -> Result<Expr, CelSyntaxError> {
    let src: Vec<char> = rule.chars().collect();
    if src.iter().all(|&c| is_space(c)) {
        return Err(CelSyntaxError::new(0, "the rule is empty"));
    }
    let (toks, lex_error) = lex(&src);
    let mut p = Parser {
        src: &src,
        toks,
        pos: 0,
        depth: 0,
        lex_error,
    };
    let e = p.expr()?;
    let t = p.peek();
    match t.kind {
        Kind::Eof => Ok(e),
        Kind::Punct(c @ (")" | "]" | "}")) => {
            Err(CelSyntaxError::new(t.start, format!("unexpected `{c}`")))
        }
        _ => Err(p.unexpected("an operator or end of rule")),
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{c}')
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_part(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

// ---------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ident,
    /// A backtick-quoted field name: `` a.`b-c` ``.
    Quoted,
    Int,
    Uint,
    Double,
    Str,
    Bytes,
    /// `true`, `false`, `null`.
    Const,
    /// Operators, punctuation and the keyword `in`.
    Punct(&'static str),
    Eof,
    /// Where lexing stopped; the parser reports `Parser::lex_error` when it gets here, so
    /// an earlier syntax error is still reported first.
    Error,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// Tokenizes the whole rule; the last token is `Eof` or `Error`.
fn lex(src: &[char]) -> (Vec<Token>, Option<CelSyntaxError>) {
    let mut toks = Vec::new();
    let mut i = 0;
    loop {
        // Whitespace and `//` comments.
        loop {
            match src.get(i) {
                Some(&c) if is_space(c) => i += 1,
                Some('/') if src.get(i + 1) == Some(&'/') => {
                    while src.get(i).is_some_and(|&c| c != '\n') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if i >= src.len() {
            toks.push(Token {
                kind: Kind::Eof,
                start: src.len(),
                end: src.len(),
            });
            return (toks, None);
        }
        match token(src, i) {
            Ok((kind, end)) => {
                toks.push(Token {
                    kind,
                    start: i,
                    end,
                });
                i = end;
            }
            Err(e) => {
                toks.push(Token {
                    kind: Kind::Error,
                    start: i,
                    end: src.len(),
                });
                return (toks, Some(e));
            }
        }
    }
}

/// The token starting at `i` (not whitespace), and where it ends.
fn token(src: &[char], i: usize) -> Result<(Kind, usize), CelSyntaxError> {
    let at = |k: usize| src.get(k).copied().unwrap_or('\0');
    let is_quote = |c: char| c == '\'' || c == '"';
    let c = at(i);
    let (n1, n2) = (at(i + 1), at(i + 2));
    // String prefixes: r (raw), b (bytes), br (raw bytes). `rb` is not one in CEL.
    match (c, n1, n2) {
        ('r' | 'R', q, _) if is_quote(q) => return string(src, i, i + 1, true, false),
        ('b' | 'B', q, _) if is_quote(q) => return string(src, i, i + 1, false, true),
        ('b' | 'B', 'r' | 'R', q) if is_quote(q) => return string(src, i, i + 2, true, true),
        ('r' | 'R', 'b' | 'B', q) if is_quote(q) => {
            return Err(CelSyntaxError::new(
                i,
                "`rb` is not a string prefix; raw bytes are written `br'...'`",
            ));
        }
        _ => {}
    }
    if is_ident_start(c) {
        let mut j = i + 1;
        while is_ident_part(at(j)) {
            j += 1;
        }
        let word: String = src[i..j].iter().collect();
        let kind = match word.as_str() {
            "in" => Kind::Punct("in"),
            "true" | "false" | "null" => Kind::Const,
            _ => Kind::Ident,
        };
        return Ok((kind, j));
    }
    if c.is_ascii_digit() || (c == '.' && n1.is_ascii_digit()) {
        return Ok(number(src, i));
    }
    if is_quote(c) {
        return string(src, i, i, false, false);
    }
    if c == '`' {
        return quoted_name(src, i);
    }
    const TWO: &[&str] = &["==", "!=", "<=", ">=", "&&", "||"];
    const ONE: &[&str] = &[
        "<", ">", "!", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ".", ",", ":", "?",
    ];
    let pair: String = [c, n1].iter().collect();
    if let Some(op) = TWO.iter().find(|op| **op == pair) {
        return Ok((Kind::Punct(op), i + 2));
    }
    if let Some(op) = ONE.iter().find(|op| op.starts_with(c)) {
        return Ok((Kind::Punct(op), i + 1));
    }
    // The usual slips from other languages get a hint.
    let message = match c {
        '=' => "unexpected `=`; CEL compares with `==`".to_owned(),
        '&' => "unexpected `&`; CEL's logical and is `&&`".to_owned(),
        '|' => "unexpected `|`; CEL's logical or is `||`".to_owned(),
        _ => format!("unexpected character {c:?}"),
    };
    Err(CelSyntaxError::new(i, message))
}

/// An int, uint or double literal: `12`, `0x1F`, `7u`, `1.5`, `.5`, `1e-3`. A number never
/// fails to lex: `1.` or `1e` end before the `.` or `e`, which the parser then rejects.
fn number(src: &[char], i: usize) -> (Kind, usize) {
    let at = |k: usize| src.get(k).copied().unwrap_or('\0');
    let uint_suffix = |j: usize| matches!(at(j), 'u' | 'U');
    if at(i) == '0' && at(i + 1) == 'x' && at(i + 2).is_ascii_hexdigit() {
        let mut j = i + 2;
        while at(j).is_ascii_hexdigit() {
            j += 1;
        }
        return if uint_suffix(j) {
            (Kind::Uint, j + 1)
        } else {
            (Kind::Int, j)
        };
    }
    let digits = |mut j: usize| {
        while at(j).is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut j = digits(i);
    let mut double = false;
    if at(j) == '.' && at(j + 1).is_ascii_digit() {
        j = digits(j + 1);
        double = true;
    }
    if matches!(at(j), 'e' | 'E') {
        let k = if matches!(at(j + 1), '+' | '-') {
            j + 2
        } else {
            j + 1
        };
        if at(k).is_ascii_digit() {
            j = digits(k);
            double = true;
        }
    }
    if double {
        (Kind::Double, j)
    } else if uint_suffix(j) {
        (Kind::Uint, j + 1)
    } else {
        (Kind::Int, j)
    }
}

/// A string or bytes literal whose prefix starts at `start` and whose quote is at `q`.
fn string(
    src: &[char],
    start: usize,
    q: usize,
    raw: bool,
    bytes: bool,
) -> Result<(Kind, usize), CelSyntaxError> {
    let quote = src[q];
    let is_q = |k: usize| src.get(k) == Some(&quote);
    let triple = is_q(q + 1) && is_q(q + 2);
    let kind = if bytes { Kind::Bytes } else { Kind::Str };
    let mut j = if triple { q + 3 } else { q + 1 };
    loop {
        let Some(&c) = src.get(j) else {
            return Err(CelSyntaxError::new(start, "unterminated string"));
        };
        if triple {
            if is_q(j) && is_q(j + 1) && is_q(j + 2) {
                return Ok((kind, j + 3));
            }
        } else if c == quote {
            return Ok((kind, j + 1));
        } else if c == '\n' || c == '\r' {
            return Err(CelSyntaxError::new(
                start,
                "unterminated string (a line break ends it; use ''' or \"\"\" for multi-line text)",
            ));
        }
        j = if c == '\\' && !raw {
            escape(src, start, j, bytes)?
        } else {
            j + 1
        };
    }
}

/// Checks the escape sequence whose backslash is at `j`; returns where it ends.
fn escape(src: &[char], start: usize, j: usize, bytes: bool) -> Result<usize, CelSyntaxError> {
    let Some(&c) = src.get(j + 1) else {
        return Err(CelSyntaxError::new(start, "unterminated string"));
    };
    let invalid = |end: usize, why: &str| {
        let seq: String = src[j..end.min(src.len())].iter().collect();
        CelSyntaxError::new(j, format!("invalid escape `{seq}`{why}"))
    };
    // How many digits follow the escape letter, and in which radix. An octal escape is
    // three digits, the first of which (0-3) is `c` itself.
    let (count, radix) = match c {
        'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '"' | '\'' | '\\' | '?' | '`' => {
            return Ok(j + 2);
        }
        'x' | 'X' => (2, 16),
        'u' => (4, 16),
        'U' => (8, 16),
        '0'..='3' => (2, 8),
        _ => return Err(invalid(j + 2, "")),
    };
    let end = j + 2 + count;
    let mut value: u32 = 0;
    for k in j + 2..end {
        match src.get(k).and_then(|d| d.to_digit(radix)) {
            Some(d) => value = value.saturating_mul(radix).saturating_add(d),
            None if radix == 8 => return Err(invalid(k, ": expects 3 octal digits")),
            None => return Err(invalid(k, &format!(": expects {count} hex digits"))),
        }
    }
    if matches!(c, 'u' | 'U') {
        // As in cel-go: bytes hold no code points, and a string holds only valid ones.
        if bytes {
            return Err(invalid(j + 2, " in a bytes literal (use `\\x` escapes)"));
        }
        if char::from_u32(value).is_none() {
            return Err(invalid(end, ": not a Unicode code point"));
        }
    }
    Ok(end)
}

/// `` `name` ``: letters, digits and `_ . - /` or spaces, as in cel-go's ESC_IDENTIFIER.
fn quoted_name(src: &[char], i: usize) -> Result<(Kind, usize), CelSyntaxError> {
    let mut j = i + 1;
    loop {
        match src.get(j) {
            None => {
                return Err(CelSyntaxError::new(i, "unterminated backtick-quoted name"));
            }
            Some('`') if j == i + 1 => {
                return Err(CelSyntaxError::new(i, "empty backtick-quoted name"));
            }
            Some('`') => return Ok((Kind::Quoted, j + 1)),
            Some(&c) if is_ident_part(c) || matches!(c, '.' | '-' | '/' | ' ') => j += 1,
            Some(&c) => {
                return Err(CelSyntaxError::new(
                    j,
                    format!("a backtick-quoted name cannot contain {c:?}"),
                ));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Parser

/// A literal's value; strings and bytes keep only their size (chars or bytes), which is all
/// the checker and the cost estimate need.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Bool(bool),
    Int,
    Uint,
    Double,
    String(u64),
    Bytes(u64),
    Null,
}

/// The comprehension macros, kept unexpanded: the checker and the cost estimate know their
/// expansions (cel-go's `parser/macro.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Macro {
    All,
    Exists,
    ExistsOne,
    /// `map(x, t)`
    Map,
    /// `map(x, p, t)`
    MapFilter,
    Filter,
    OptMap,
    OptFlatMap,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Lit(Lit),
    /// An identifier; `leading_dot` for `.x` (the root scope).
    Ident {
        name: String,
        leading_dot: bool,
    },
    /// `a.b`, `a.?b`, or `has(a.b)` (`test_only`). Backtick-quoted names are unquoted.
    Select {
        operand: Box<Expr>,
        field: String,
        optional: bool,
        test_only: bool,
    },
    /// A function, method or operator (cel-go's names: `_+_`, `!_`, `-_`, `_?_:_`, `_[_]`,
    /// `_[?_]`, `@in`, `_&&_`...).
    Call {
        target: Option<Box<Expr>>,
        function: String,
        args: Vec<Expr>,
    },
    List(Vec<Expr>),
    /// Entries `(key, value, optional)`.
    Map(Vec<(Expr, Expr, bool)>),
    /// `pkg.Msg{f: v}`.
    Struct {
        name: String,
        fields: Vec<Expr>,
    },
    /// `range.all(var, args...)` and the like.
    Comprehension {
        kind: Macro,
        range: Box<Expr>,
        var: String,
        args: Vec<Expr>,
    },
}

/// One node of a parsed rule, with the char offset where it starts in the rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub offset: usize,
    pub kind: ExprKind,
}

impl Expr {
    fn new(offset: usize, kind: ExprKind) -> Expr {
        Expr { offset, kind }
    }

    fn call(offset: usize, function: &str, args: Vec<Expr>) -> Expr {
        Expr::new(
            offset,
            ExprKind::Call {
                target: None,
                function: function.to_owned(),
                args,
            },
        )
    }

    /// The identifier this node is, parentheses aside.
    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident { name, .. } => Some(name),
            _ => None,
        }
    }
}

struct Parser<'s> {
    src: &'s [char],
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    lex_error: Option<CelSyntaxError>,
}

type Parsed = Result<Expr, CelSyntaxError>;

impl Parser<'_> {
    fn nth(&self, n: usize) -> Token {
        // `lex` always ends with Eof or Error, so the last token stands for everything after.
        let last = self.toks.len() - 1;
        self.toks[(self.pos + n).min(last)]
    }

    fn peek(&self) -> Token {
        self.nth(0)
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn at(&self, p: &str) -> bool {
        matches!(self.peek().kind, Kind::Punct(q) if q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        let hit = self.at(p);
        if hit {
            self.bump();
        }
        hit
    }

    fn expect(&mut self, p: &str, expected: &str) -> Result<Token, CelSyntaxError> {
        if self.at(p) {
            Ok(self.bump())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn text(&self, t: Token) -> String {
        self.src[t.start..t.end].iter().collect()
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Kind::Eof => "end of rule".to_owned(),
            Kind::Str => "a string literal".to_owned(),
            Kind::Bytes => "a bytes literal".to_owned(),
            Kind::Quoted => "a backtick-quoted name".to_owned(),
            _ => format!("`{}`", self.text(t)),
        }
    }

    /// "expected X, found Y" at the next token, or the lexer's error if lexing stopped there.
    fn unexpected(&self, expected: &str) -> CelSyntaxError {
        let t = self.peek();
        if let (Kind::Error, Some(e)) = (t.kind, &self.lex_error) {
            return e.clone();
        }
        CelSyntaxError::new(
            t.start,
            format!("expected {expected}, found {}", self.describe(t)),
        )
    }

    /// Expr = ConditionalOr ["?" ConditionalOr ":" Expr]. Every recursion passes through
    /// here, so this is where the depth is guarded.
    fn expr(&mut self) -> Parsed {
        if self.depth >= MAX_DEPTH {
            return Err(CelSyntaxError::new(
                self.peek().start,
                format!("the rule nests more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.depth += 1;
        let result = self.conditional();
        self.depth -= 1;
        result
    }

    fn conditional(&mut self) -> Parsed {
        let cond = self.binary(0)?;
        if !self.eat("?") {
            return Ok(cond);
        }
        let yes = self.binary(0)?;
        self.expect(":", "`:`")?;
        let no = self.expr()?;
        Ok(Expr::call(cond.offset, "_?_:_", vec![cond, yes, no]))
    }

    /// ConditionalOr down to Multiplication, by precedence climbing over `BINARY`.
    fn binary(&mut self, level: usize) -> Parsed {
        let Some(ops) = BINARY.get(level) else {
            return self.unary();
        };
        let mut lhs = self.binary(level + 1)?;
        if matches!(ops, ["||"] | ["&&"]) {
            // cel-go builds a balanced tree of a chain of `||` or `&&`.
            let mut terms = vec![lhs];
            while self.eat(ops[0]) {
                terms.push(self.binary(level + 1)?);
            }
            return Ok(balance(&format!("_{}_", ops[0]), terms));
        }
        while let Some(op) = ops.iter().find(|op| self.at(op)) {
            self.bump();
            let rhs = self.binary(level + 1)?;
            let function = if *op == "in" {
                "@in".to_owned()
            } else {
                format!("_{op}_")
            };
            lhs = Expr::call(lhs.offset, &function, vec![lhs, rhs]);
        }
        Ok(lhs)
    }

    /// Unary = Member | "!" {"!"} Member | "-" {"-"} Member. The grammar does not mix the
    /// two, so `!-x` is an error, but `!-1` is fine: `-1` is a literal.
    fn unary(&mut self) -> Parsed {
        let mut ops = Vec::new();
        if self.at("!") {
            while self.at("!") {
                ops.push((self.bump().start, "!_"));
            }
        } else {
            while self.at("-") && !self.negative_literal() {
                ops.push((self.bump().start, "-_"));
            }
        }
        let e = self.member()?;
        // As in cel-go, pairs cancel out: `!!x` is `x`, `--x` is `x`.
        Ok(match ops.first() {
            Some(&(offset, op)) if ops.len() % 2 == 1 => Expr::call(offset, op, vec![e]),
            _ => e,
        })
    }

    /// Whether the next tokens are `-` and an int or double: a negative literal, which is
    /// what lets `-9223372036854775808` fit in an int.
    fn negative_literal(&self) -> bool {
        self.at("-") && matches!(self.nth(1).kind, Kind::Int | Kind::Double)
    }

    /// Member = Primary { "." ["?"] SELECTOR ["(" [ExprList] ")"] | "[" ["?"] Expr "]" }.
    fn member(&mut self) -> Parsed {
        let mut e = self.primary()?;
        loop {
            if self.at(".") {
                let dot = self.bump();
                let optional = self.eat("?");
                let name = self.selector()?;
                let field = self.field_name(name);
                // Only a plain `.name` can be a method call; `.?name` and `` .`name` `` can't.
                if !optional && name.kind == Kind::Ident && self.eat("(") {
                    let first_arg = self.peek().start;
                    let args = self.args()?;
                    e = self.method(dot.start, e, field, args, first_arg)?;
                } else {
                    e = Expr::new(
                        dot.start,
                        ExprKind::Select {
                            operand: Box::new(e),
                            field,
                            optional,
                            test_only: false,
                        },
                    );
                }
            } else if self.at("[") {
                let open = self.bump();
                let function = if self.eat("?") { "_[?_]" } else { "_[_]" };
                let index = self.expr()?;
                self.expect("]", "`]`")?;
                e = Expr::call(open.start, function, vec![e, index]);
            } else {
                return Ok(e);
            }
        }
    }

    /// A method call `target.name(args)`, or the macro it stands for.
    fn method(
        &self,
        offset: usize,
        target: Expr,
        name: String,
        args: Vec<Expr>,
        first_arg: usize,
    ) -> Parsed {
        let kind = match (name.as_str(), args.len()) {
            ("all", 2) => Some(Macro::All),
            ("exists", 2) => Some(Macro::Exists),
            ("exists_one", 2) => Some(Macro::ExistsOne),
            ("map", 2) => Some(Macro::Map),
            ("map", 3) => Some(Macro::MapFilter),
            ("filter", 2) => Some(Macro::Filter),
            ("optMap", 2) => Some(Macro::OptMap),
            ("optFlatMap", 2) => Some(Macro::OptFlatMap),
            _ => None,
        };
        let Some(kind) = kind else {
            return Ok(Expr::new(
                offset,
                ExprKind::Call {
                    target: Some(Box::new(target)),
                    function: name,
                    args,
                },
            ));
        };
        // cel-go expands macros while parsing, and rejects their malformed uses there.
        let mut args = args.into_iter();
        let first = args.next().expect("macros have arguments");
        let Some(var) = first.as_ident().map(str::to_owned) else {
            return Err(CelSyntaxError::new(
                first_arg,
                format!(
                    "the first argument of `{name}()` must be a simple variable name, e.g. `{name}(x, ...)`"
                ),
            ));
        };
        Ok(Expr::new(
            offset,
            ExprKind::Comprehension {
                kind,
                range: Box::new(target),
                var,
                args: args.collect(),
            },
        ))
    }

    /// A field name after `.`: any identifier (reserved words included) or a quoted name,
    /// but not the keywords `true`, `false`, `null` and `in`.
    fn selector(&mut self) -> Result<Token, CelSyntaxError> {
        match self.peek().kind {
            Kind::Ident | Kind::Quoted => Ok(self.bump()),
            _ => Err(self.unexpected("a field name")),
        }
    }

    /// The name a selector token stands for (backticks removed).
    fn field_name(&self, t: Token) -> String {
        let text = self.text(t);
        match t.kind {
            Kind::Quoted => text[1..text.len() - 1].to_owned(),
            _ => text,
        }
    }

    fn primary(&mut self) -> Parsed {
        let t = self.peek();
        match t.kind {
            Kind::Ident => self.ident_call_or_message(false),
            Kind::Punct(".") => {
                // A leading dot names the root scope: `.x`, `.f()`, `.pkg.Msg{}`.
                self.bump();
                if self.peek().kind != Kind::Ident {
                    return Err(self.unexpected("an identifier"));
                }
                self.ident_call_or_message(true)
            }
            Kind::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")", "`)`")?;
                Ok(e)
            }
            Kind::Punct("[") => {
                self.bump();
                let elems = self.entries("]", |p| {
                    p.eat("?");
                    p.expr()
                })?;
                Ok(Expr::new(t.start, ExprKind::List(elems)))
            }
            Kind::Punct("{") => {
                self.bump();
                let entries = self.entries("}", |p| {
                    let optional = p.eat("?");
                    let k = p.expr()?;
                    p.expect(":", "`:`")?;
                    Ok((k, p.expr()?, optional))
                })?;
                Ok(Expr::new(t.start, ExprKind::Map(entries)))
            }
            Kind::Punct("-") if self.negative_literal() => {
                self.bump();
                let lit = self.bump();
                let value = self.literal(lit, true)?;
                Ok(Expr::new(t.start, ExprKind::Lit(value)))
            }
            Kind::Int | Kind::Uint | Kind::Double | Kind::Str | Kind::Bytes | Kind::Const => {
                self.bump();
                let value = self.literal(t, false)?;
                Ok(Expr::new(t.start, ExprKind::Lit(value)))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `IDENT`, `IDENT(args)` or `IDENT {"." IDENT} "{" FieldInits "}"`.
    fn ident_call_or_message(&mut self, leading_dot: bool) -> Parsed {
        let id = self.bump();
        // A message literal is the only place a (dotted) name is followed by `{`.
        let mut k = 0;
        while self.nth(k).kind == Kind::Punct(".") && self.nth(k + 1).kind == Kind::Ident {
            k += 2;
        }
        if self.nth(k).kind == Kind::Punct("{") {
            let name: String = self.src[id.start..self.nth(k).start]
                .iter()
                .filter(|c| !is_space(**c))
                .collect();
            self.pos += k + 1;
            let fields = self.entries("}", |p| {
                p.eat("?");
                p.selector()?;
                p.expect(":", "`:`")?;
                p.expr()
            })?;
            return Ok(Expr::new(id.start, ExprKind::Struct { name, fields }));
        }
        let name = self.text(id);
        if RESERVED.contains(&name.as_str()) {
            return Err(CelSyntaxError::new(
                id.start,
                format!("reserved word `{name}` cannot be an identifier"),
            ));
        }
        let paren = self.peek().start;
        if !self.eat("(") {
            return Ok(Expr::new(id.start, ExprKind::Ident { name, leading_dot }));
        }
        let first_arg = self.peek().start;
        let mut args = self.args()?;
        if !leading_dot && name == "has" && args.len() == 1 {
            let arg = args.pop().expect("one argument");
            return match arg.kind {
                ExprKind::Select {
                    operand,
                    field,
                    optional: false,
                    test_only: false,
                    // cel-go places the macro's expression at its `(`, and so its errors.
                } => Ok(Expr::new(
                    paren,
                    ExprKind::Select {
                        operand,
                        field,
                        optional: false,
                        test_only: true,
                    },
                )),
                _ => Err(CelSyntaxError::new(
                    first_arg,
                    "invalid argument to has(): it takes a field selection such as `has(self.field)`",
                )),
            };
        }
        Ok(Expr::new(
            id.start,
            ExprKind::Call {
                target: None,
                function: name,
                args,
            },
        ))
    }

    /// The arguments of a call, after its `(`: `[Expr {"," Expr}] ")"` (no trailing comma).
    fn args(&mut self) -> Result<Vec<Expr>, CelSyntaxError> {
        let mut args = Vec::new();
        if self.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if !self.eat(",") {
                self.expect(")", "`,` or `)`")?;
                return Ok(args);
            }
        }
    }

    /// The entries of a list, map or message after its opening bracket, each parsed by
    /// `entry`, separated by commas; a trailing comma (even alone: `[,]`) is allowed.
    fn entries<T>(
        &mut self,
        close: &'static str,
        entry: impl Fn(&mut Self) -> Result<T, CelSyntaxError>,
    ) -> Result<Vec<T>, CelSyntaxError> {
        let mut out = Vec::new();
        if self.at(",") && self.nth(1).kind == Kind::Punct(close) {
            self.bump();
        }
        loop {
            if self.eat(close) {
                return Ok(out);
            }
            out.push(entry(self)?);
            if !self.eat(",") {
                self.expect(close, &format!("`,` or `{close}`"))?;
                return Ok(out);
            }
        }
    }

    /// A literal's value; cel-go rejects int, uint and double literals that don't fit 64 bits.
    fn literal(&self, t: Token, negative: bool) -> Result<Lit, CelSyntaxError> {
        let text = self.text(t);
        let sign = if negative { "-" } else { "" };
        let (digits, radix) = match text.strip_prefix("0x") {
            Some(hex) => (hex, 16),
            None => (text.as_str(), 10),
        };
        let (fits, lit) = match t.kind {
            Kind::Int => (
                i64::from_str_radix(&format!("{sign}{digits}"), radix).is_ok(),
                Lit::Int,
            ),
            Kind::Uint => {
                let digits = digits.trim_end_matches(['u', 'U']);
                (u64::from_str_radix(digits, radix).is_ok(), Lit::Uint)
            }
            Kind::Double => (text.parse::<f64>().is_ok_and(f64::is_finite), Lit::Double),
            Kind::Str => return Ok(Lit::String(literal_size(&self.src[t.start..t.end]))),
            Kind::Bytes => return Ok(Lit::Bytes(literal_size(&self.src[t.start..t.end]))),
            _ => {
                return Ok(match text.as_str() {
                    "true" => Lit::Bool(true),
                    "false" => Lit::Bool(false),
                    _ => Lit::Null,
                });
            }
        };
        if fits {
            return Ok(lit);
        }
        let ty = match t.kind {
            Kind::Int => "int",
            Kind::Uint => "uint",
            _ => "double",
        };
        Err(CelSyntaxError::new(
            t.start,
            format!("{sign}{text} is out of range for a 64-bit {ty}"),
        ))
    }
}

/// A balanced tree of `function` over `terms` (at least one).
fn balance(function: &str, mut terms: Vec<Expr>) -> Expr {
    if terms.len() == 1 {
        return terms.pop().expect("one term");
    }
    let right = terms.split_off(terms.len() / 2);
    let left = balance(function, terms);
    let offset = left.offset;
    Expr::call(offset, function, vec![left, balance(function, right)])
}

/// The size of a (lexically valid) string or bytes literal: chars of a string, bytes of a
/// bytes literal, each escape counting as one.
fn literal_size(tok: &[char]) -> u64 {
    let mut i = 0;
    let mut raw = false;
    let mut bytes = false;
    while matches!(tok[i], 'r' | 'R' | 'b' | 'B') {
        raw |= matches!(tok[i], 'r' | 'R');
        bytes |= matches!(tok[i], 'b' | 'B');
        i += 1;
    }
    let quote = tok[i];
    let triple = tok.len() >= i + 6 && tok[i + 1] == quote && tok[i + 2] == quote;
    let q = if triple { 3 } else { 1 };
    let body = &tok[i + q..tok.len() - q];
    let mut n = 0u64;
    let mut j = 0;
    while j < body.len() {
        let c = body[j];
        if c == '\\' && !raw {
            j += match body.get(j + 1) {
                Some('x' | 'X') => 4,
                Some('u') => 6,
                Some('U') => 10,
                Some('0'..='3') => 4,
                _ => 2,
            };
            n += 1;
        } else {
            j += 1;
            n += if bytes { c.len_utf8() as u64 } else { 1 };
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(rule: &str) -> CelSyntaxError {
        match check_syntax(rule) {
            Ok(()) => panic!("{rule:?} should not parse"),
            Err(e) => e,
        }
    }

    #[track_caller]
    fn fails(rule: &str, offset: usize, message: &str) {
        let e = err(rule);
        assert_eq!(
            (e.offset, e.message.as_str()),
            (offset, message),
            "for {rule:?}"
        );
    }

    #[test]
    fn accepts_real_rules() {
        let rules = [
            // Rules of tests/fixtures, examples and the conformance suite.
            "true",
            "!(has(self.foo) && has(self.bar))",
            "!has(oldSelf.optionalLiteralString) || has(self.optionalLiteralString)",
            "!has(oldSelf.optionalMap) || has(self.optionalMap)",
            "(has(self.a)?1:0)+(has(self.b)?1:0) <= 1",
            "(has(self.foo)?1:0)+(has(self.bar)?1:0) == 1",
            "has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)",
            "has(self.a)||has(self.b)",
            "oldSelf.hasValue() || self == 0",
            "self == oldSelf",
            "self != 22",
            "self >= 100 && self <= 1000",
            "self.size() % 2 == 0",
            "self.startsWith('good-')",
            "self.startsWith('w-')",
            // Kubernetes documentation and common idioms.
            "self.minReplicas <= self.replicas",
            "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
            "has(self.x) || !has(self.y)",
            "self.all(x, x.startsWith('a'))",
            "self.map(k, self[k]).exists(v, v > 0)",
            "self.map(x, x > 0, x * 2).size() > 0",
            "self.filter(x, x != '').exists_one(x, x == 'a')",
            "!has(oldSelf.field) || has(self.field)",
            "size(self) <= 10 ? true : false",
            "self.matches('^[a-z]+$')",
            "int(self.split('.')[0]) >= 1",
            "duration(self.timeout) < duration('1h')",
            "type(self) == string",
            "self.?foo.orValue(1) > 0",
            "self[?'key'].hasValue() && [?self.?a, 1].size() == 2",
            "{?'k': self.?v, 'x': 1}.size() >= 1",
            "[1, 2, 3].exists(x, x in [2])",
            "{'a': 1}['a'] == 1u",
            "b'abc' != r\"\\d\"",
            "'''multi\nline'''",
            "\"\"\"a \"quoted\" \\\"\\\"\\\" word\"\"\"",
            "br'\\d' == B\"\\x00\\377\" && R'''raw\n\\q'''.size() > 0",
            "'\\a\\b\\f\\n\\r\\t\\v\\\\\\?\\\"\\'\\`\\u00e9\\U0001F600\\101\\xff' != ''",
            "self.`dashed-name` == self.`a.b/c d` && has(self.`x-y`)",
            "self.namespace == oldSelf.if",
            "self.__namespace__ != ''",
            "0x1F + 0xffu + 7U + 1.5 + 1e3 + 1.5e-3 + .5 + 2E+2 > 0",
            "-9223372036854775808 < 9223372036854775807 && 18446744073709551615u > 0u",
            "!-1 == false && --x == x && !!self.a",
            "null == null && false != true",
            "[] == [] && {} == {} && [1,] == [1] && {1: 2,} != {} && [,] == []",
            ".x + .f(1) > 0",
            "google.protobuf.Duration{seconds: 1}.seconds == 1 && Msg{?f: x, `g-h`: 2} != Msg{}",
            "self.x // the x field\n  > 0 // trailing comment",
            "\tself.a\r\n&& self.b\u{c}",
            "a ? (b ? 1 : 2) : c ? 3 : 4",
            "a || b && c == d < e + f * -g % h / i - j",
            "(x)",
            "has((self.a))",
            "self.all((x), x)",
            "self.exists(x, true)",
            "self.all(a.b)",
            "has(self.a, self.b)",
            "'naïve ✓' != \"\"",
        ];
        for rule in rules {
            assert_eq!(check_syntax(rule), Ok(()), "{rule:?}");
        }
    }

    #[test]
    fn rejects_broken_rules_with_their_place() {
        fails(
            "self.minReplicas <=",
            19,
            "expected an expression, found end of rule",
        );
        fails(
            "self.startsWith('a'",
            19,
            "expected `,` or `)`, found end of rule",
        );
        fails("self.x)", 6, "unexpected `)`");
        fails("self.x]", 6, "unexpected `]`");
        fails("self..x", 5, "expected a field name, found `.`");
        fails("if(self)", 0, "reserved word `if` cannot be an identifier");
        fails("self.x = 1", 7, "unexpected `=`; CEL compares with `==`");
        fails("'abc", 0, "unterminated string");
        fails("1 +* 2", 3, "expected an expression, found `*`");
        fails("a ? b", 5, "expected `:`, found end of rule");
        fails("\"\\q\"", 1, "invalid escape `\\q`");
        fails("[1, 2", 5, "expected `,` or `]`, found end of rule");
        fails("{1: }", 4, "expected an expression, found `}`");
        fails("", 0, "the rule is empty");
        fails("   ", 0, "the rule is empty");
        fails(
            "// nothing",
            10,
            "expected an expression, found end of rule",
        );
        fails(
            "self.x self.y",
            7,
            "expected an operator or end of rule, found `self`",
        );
    }

    #[test]
    fn rejects_lexical_errors() {
        fails(
            "'a\nb'",
            0,
            "unterminated string (a line break ends it; use ''' or \"\"\" for multi-line text)",
        );
        fails("'''abc''", 0, "unterminated string");
        fails("'abc\\", 0, "unterminated string");
        fails("'\\x4g'", 1, "invalid escape `\\x4`: expects 2 hex digits");
        fails("'\\u12'", 1, "invalid escape `\\u12`: expects 4 hex digits");
        fails("'\\477'", 1, "invalid escape `\\4`");
        fails("'\\18'", 1, "invalid escape `\\1`: expects 3 octal digits");
        fails(
            "'\\uD800'",
            1,
            "invalid escape `\\uD800`: not a Unicode code point",
        );
        fails(
            "b'\\u00e9'",
            2,
            "invalid escape `\\u` in a bytes literal (use `\\x` escapes)",
        );
        fails(
            "rb'x'",
            0,
            "`rb` is not a string prefix; raw bytes are written `br'...'`",
        );
        fails(
            "r'a\nb'",
            0,
            "unterminated string (a line break ends it; use ''' or \"\"\" for multi-line text)",
        );
        fails("a & b", 2, "unexpected `&`; CEL's logical and is `&&`");
        fails("a | b", 2, "unexpected `|`; CEL's logical or is `||`");
        fails("a # b", 2, "unexpected character '#'");
        fails("self.naïve", 7, "unexpected character 'ï'");
        fails("self.`ab", 5, "unterminated backtick-quoted name");
        fails("self.`` == 1", 5, "empty backtick-quoted name");
        fails("self.`a+b`", 7, "a backtick-quoted name cannot contain '+'");
        // The earliest error wins, even though the lexer finds the later one first.
        fails("(1 + ) 'abc", 5, "expected an expression, found `)`");
        fails(
            "self.`a`b` == 1",
            8,
            "expected an operator or end of rule, found `b`",
        );
    }

    #[test]
    fn rejects_what_the_grammar_does_not_allow() {
        fails("f(a,)", 4, "expected an expression, found `)`");
        fails("!-x", 1, "expected an expression, found `-`");
        fails("-!x", 1, "expected an expression, found `!`");
        fails("self.true", 5, "expected a field name, found `true`");
        fails("self.in", 5, "expected a field name, found `in`");
        fails("in", 0, "expected an expression, found `in`");
        fails(
            "`a` == 1",
            0,
            "expected an expression, found a backtick-quoted name",
        );
        fails(
            "self.?a(1)",
            7,
            "expected an operator or end of rule, found `(`",
        );
        // The middle of a conditional is a ConditionalOr, so a nested one needs parentheses.
        fails("a ? b ? 1 : 2 : 3", 6, "expected `:`, found `?`");
        fails("1.5u", 3, "expected an operator or end of rule, found `u`");
        fails("a < < b", 4, "expected an expression, found `<`");
        fails("[1 2]", 3, "expected `,` or `]`, found `2`");
        fails("{'a' 1}", 5, "expected `:`, found `1`");
        fails("Msg{f 1}", 6, "expected `:`, found `1`");
        fails("Msg{1: 2}", 4, "expected a field name, found `1`");
        fails("let", 0, "reserved word `let` cannot be an identifier");
        fails(
            ".namespace",
            1,
            "reserved word `namespace` cannot be an identifier",
        );
        fails("self.", 5, "expected a field name, found end of rule");
        fails("(", 1, "expected an expression, found end of rule");
        fails("a ? b : ", 8, "expected an expression, found end of rule");
    }

    #[test]
    fn rejects_what_cel_go_rejects_while_expanding() {
        fails(
            "has(self)",
            4,
            "invalid argument to has(): it takes a field selection such as `has(self.field)`",
        );
        fails(
            "has(self.?a)",
            4,
            "invalid argument to has(): it takes a field selection such as `has(self.field)`",
        );
        fails(
            "has(self['a'])",
            4,
            "invalid argument to has(): it takes a field selection such as `has(self.field)`",
        );
        fails(
            "self.all(x.y, true)",
            9,
            "the first argument of `all()` must be a simple variable name, e.g. `all(x, ...)`",
        );
        fails(
            "self.map(1, x)",
            9,
            "the first argument of `map()` must be a simple variable name, e.g. `map(x, ...)`",
        );
        fails(
            "9223372036854775808 > 0",
            0,
            "9223372036854775808 is out of range for a 64-bit int",
        );
        fails(
            "-9223372036854775809 < 0",
            1,
            "-9223372036854775809 is out of range for a 64-bit int",
        );
        fails(
            "18446744073709551616u > 0u",
            0,
            "18446744073709551616u is out of range for a 64-bit uint",
        );
        fails(
            "1e400 > 0.0",
            0,
            "1e400 is out of range for a 64-bit double",
        );
        fails(
            "0x10000000000000000 > 0",
            0,
            "0x10000000000000000 is out of range for a 64-bit int",
        );
    }

    /// Runs `f` on a stack as big as opgen's main thread's (test threads have 2 MiB).
    fn on_main_sized_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 * 1024 * 1024)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn guards_the_nesting_depth() {
        on_main_sized_stack(nesting_depth);
    }

    fn nesting_depth() {
        let nested = |n: usize| format!("{}x{}", "(".repeat(n), ")".repeat(n));
        // The top-level expression is one level, each parenthesis another.
        assert_eq!(check_syntax(&nested(MAX_DEPTH - 1)), Ok(()));
        let e = err(&nested(MAX_DEPTH));
        assert_eq!(
            (e.offset, e.message.as_str()),
            (MAX_DEPTH, "the rule nests more than 250 levels deep")
        );
        assert_eq!(
            err(&nested(1000)).message,
            "the rule nests more than 250 levels deep"
        );
        let deep_list = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(check_syntax(&deep_list).is_err());
        // Long flat chains are loops, not recursion.
        let chain = vec!["self.a"; 5000].join(" || ");
        assert_eq!(check_syntax(&chain), Ok(()));
        let bangs = format!("{}x", "!".repeat(10_000));
        assert_eq!(check_syntax(&bangs), Ok(()));
    }

    #[test]
    fn display_names_the_column() {
        let e = err("self.startsWith('a'");
        assert_eq!(
            e.to_string(),
            "at column 20: expected `,` or `)`, found end of rule"
        );
        // Columns count chars, not bytes.
        assert_eq!(
            err("'é' = 1").to_string(),
            "at column 5: unexpected `=`; CEL compares with `==`"
        );
    }
}
