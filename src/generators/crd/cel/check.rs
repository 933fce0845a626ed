//! A type checker for CEL rules, after cel-go's `checker` with the Kubernetes environment:
//! `self` (and `oldSelf`) have the declared type of the schema node the rule sits on.
//!
//! It refuses what it is sure the API server refuses: fields a schema object does not declare,
//! undeclared variables, operators and well-known functions applied to types they have no
//! overload for, comprehensions over what is not a list or map, and rules whose type is not
//! bool. What it does not model (library functions opgen does not know, message literals)
//! is `dyn`, left to the server.

use super::parse::{Expr, ExprKind, Lit, Macro};
use super::types::Type;
use std::collections::HashMap;

/// A type error at a char offset of the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeError {
    pub offset: usize,
    pub message: String,
}

/// The types of a checked rule's nodes (by address: the tree is not changed after checking)
/// and whether it uses `oldSelf`.
pub struct Checked {
    pub ty: Type,
    pub types: HashMap<*const Expr, Type>,
    pub uses_old_self: bool,
}

impl Checked {
    pub fn type_of(&self, e: &Expr) -> &Type {
        self.types.get(&(e as *const Expr)).unwrap_or(&Type::Dyn)
    }
}

/// Type names usable as values (`type(x) == string`).
const TYPE_NAMES: &[&str] = &[
    "bool",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
];

/// Namespaces of library functions (`optional.of`, `sets.contains`, `format.dns1123Label`...).
const NAMESPACES: &[&str] = &[
    "optional", "sets", "strings", "lists", "math", "base64", "format",
];

/// Global functions of the Kubernetes CEL environment (cel-go's standard library, Kubernetes'
/// quantity, url, ip, cidr, semver and regex libraries). Any other global call is an
/// undeclared reference. Namespaced ones (`optional.of`, `sets.contains`...) are not listed.
const GLOBALS: &[&str] = &[
    "size",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "duration",
    "timestamp",
    "dyn",
    "type",
    "matches",
    "quantity",
    "isQuantity",
    "url",
    "isURL",
    "ip",
    "isIP",
    "cidr",
    "isCIDR",
    "semver",
    "isSemver",
];

pub fn check(expr: &Expr, self_ty: &Type, old_self: Option<&Type>) -> (Checked, Vec<TypeError>) {
    let mut c = Checker {
        self_ty,
        old_self,
        scopes: Vec::new(),
        types: HashMap::new(),
        uses_old_self: false,
        errors: Vec::new(),
    };
    let ty = c.expr(expr);
    (
        Checked {
            ty,
            types: c.types,
            uses_old_self: c.uses_old_self,
        },
        c.errors,
    )
}

struct Checker<'t> {
    self_ty: &'t Type,
    old_self: Option<&'t Type>,
    scopes: Vec<(String, Type)>,
    types: HashMap<*const Expr, Type>,
    uses_old_self: bool,
    errors: Vec<TypeError>,
}

fn list(t: Type) -> Type {
    Type::List(Box::new(t))
}

fn optional(t: Type) -> Type {
    Type::Optional(Box::new(t))
}

fn numeric(t: &Type) -> bool {
    matches!(t, Type::Int | Type::Uint | Type::Double)
}

/// The more specific of two types that agree (dyn gives way), or None.
fn join(a: &Type, b: &Type) -> Option<Type> {
    if a.is_dyn() {
        return Some(b.clone());
    }
    if b.is_dyn() || a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (Type::List(x), Type::List(y)) => join(x, y).map(list),
        (Type::Optional(x), Type::Optional(y)) => join(x, y).map(optional),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            Some(Type::Map(Box::new(join(k1, k2)?), Box::new(join(v1, v2)?)))
        }
        (Type::Null, Type::Object(_)) => Some(b.clone()),
        (Type::Object(_), Type::Null | Type::Object(_)) => Some(a.clone()),
        _ => None,
    }
}

/// The name cel-go shows for an operator in "no matching overload" errors.
fn display_name(function: &str) -> &str {
    match function {
        "@in" => "@in",
        f => f,
    }
}

impl Checker<'_> {
    fn error(&mut self, offset: usize, message: impl Into<String>) {
        self.errors.push(TypeError {
            offset,
            message: message.into(),
        });
    }

    fn no_overload(&mut self, offset: usize, function: &str, target: Option<&Type>, args: &[Type]) {
        let args: Vec<String> = args.iter().map(Type::to_string).collect();
        let applied = match target {
            Some(t) => format!("{t}.({})", args.join(", ")),
            None => format!("({})", args.join(", ")),
        };
        self.error(
            offset,
            format!(
                "found no matching overload for '{}' applied to '{applied}'",
                display_name(function)
            ),
        );
    }

    fn expr(&mut self, e: &Expr) -> Type {
        let t = self.infer(e);
        self.types.insert(e as *const Expr, t.clone());
        t
    }

    fn lookup(&mut self, name: &str, leading_dot: bool) -> Option<Type> {
        if !leading_dot && let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Some(t.clone());
        }
        match name {
            "self" => Some(self.self_ty.clone()),
            "oldSelf" => {
                self.uses_old_self = true;
                self.old_self.cloned()
            }
            _ if TYPE_NAMES.contains(&name) => Some(Type::Type),
            _ => None,
        }
    }

    fn infer(&mut self, e: &Expr) -> Type {
        match &e.kind {
            ExprKind::Lit(l) => match l {
                Lit::Bool(_) => Type::Bool,
                Lit::Int => Type::Int,
                Lit::Uint => Type::Uint,
                Lit::Double => Type::Double,
                Lit::String(_) => Type::String,
                Lit::Bytes(_) => Type::Bytes,
                Lit::Null => Type::Null,
            },
            ExprKind::Ident { name, leading_dot } => match self.lookup(name, *leading_dot) {
                Some(t) => t,
                None => {
                    self.error(e.offset, format!("undeclared reference to '{name}'"));
                    Type::Dyn
                }
            },
            ExprKind::Select {
                operand,
                field,
                optional: opt,
                test_only,
            } => {
                let operand_ty = self.expr(operand);
                let inner = match (&operand_ty, opt) {
                    (Type::Optional(t), true) => (**t).clone(),
                    (t, _) => t.clone(),
                };
                let field_ty = self.field(e.offset, &inner, field);
                if *test_only {
                    Type::Bool
                } else if *opt {
                    optional(field_ty)
                } else {
                    field_ty
                }
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => self.call(e, target.as_deref(), function, args),
            ExprKind::List(elems) => {
                let mut elem = Type::Dyn;
                let mut first = true;
                for x in elems {
                    let t = self.expr(x);
                    elem = if first {
                        t
                    } else {
                        join(&elem, &t).unwrap_or(Type::Dyn)
                    };
                    first = false;
                }
                list(elem)
            }
            ExprKind::Map(entries) => {
                let (mut k, mut v) = (Type::Dyn, Type::Dyn);
                for (i, (key, value, _)) in entries.iter().enumerate() {
                    let (kt, vt) = (self.expr(key), self.expr(value));
                    if i == 0 {
                        (k, v) = (kt, vt);
                    } else {
                        k = join(&k, &kt).unwrap_or(Type::Dyn);
                        v = join(&v, &vt).unwrap_or(Type::Dyn);
                    }
                }
                Type::Map(Box::new(k), Box::new(v))
            }
            ExprKind::Struct { fields, .. } => {
                for f in fields {
                    self.expr(f);
                }
                Type::Dyn
            }
            ExprKind::Comprehension {
                kind,
                range,
                var,
                args,
            } => self.comprehension(e, *kind, range, var, args),
        }
    }

    /// The type of `operand.field`.
    fn field(&mut self, offset: usize, operand: &Type, field: &str) -> Type {
        match operand {
            // Since 1.31 the API server also finds a keyword's escaped field by its plain name
            // (`self.metadata.namespace` for `__namespace__`).
            Type::Object(fields) => match fields.get(field).or_else(|| {
                super::types::is_keyword(field)
                    .then(|| fields.get(&format!("__{field}__")))
                    .flatten()
            }) {
                Some(t) => t.clone(),
                None => {
                    let hint = crate::generators::crd::cel::did_you_mean(
                        field,
                        fields.keys().map(String::as_str),
                    );
                    self.error(offset, format!("undefined field '{field}'{hint}"));
                    Type::Dyn
                }
            },
            Type::Map(_, v) => (**v).clone(),
            Type::Dyn => Type::Dyn,
            t => {
                self.error(
                    offset,
                    format!("type '{t}' does not support field selection"),
                );
                Type::Dyn
            }
        }
    }

    fn call(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) -> Type {
        // `ns.f(...)` where `ns` is no variable: a namespaced function (`optional.of`,
        // `sets.contains`, `cel.bind`...), which opgen types loosely.
        if let Some(Expr {
            kind:
                ExprKind::Ident {
                    name: ns,
                    leading_dot: false,
                },
            ..
        }) = target
            && !self.scopes.iter().any(|(n, _)| n == ns)
            && !matches!(ns.as_str(), "self" | "oldSelf")
        {
            let offset = target.map_or(e.offset, |t| t.offset);
            return self.namespaced(offset, ns, function, args);
        }
        let target_ty = target.map(|t| self.expr(t));
        let tys: Vec<Type> = args.iter().map(|a| self.expr(a)).collect();
        let offset = e.offset;
        match (target_ty.as_ref(), function, tys.as_slice()) {
            (None, "_&&_" | "_||_", [a, b]) => {
                if !(a.assignable(&Type::Bool) && b.assignable(&Type::Bool)) {
                    self.no_overload(offset, function, None, &tys);
                }
                Type::Bool
            }
            (None, "!_", [a]) => {
                if !a.assignable(&Type::Bool) {
                    self.no_overload(offset, function, None, &tys);
                }
                Type::Bool
            }
            (None, "-_", [a]) => {
                if !(a.is_dyn() || matches!(a, Type::Int | Type::Double | Type::Duration)) {
                    self.no_overload(offset, function, None, &tys);
                    return Type::Dyn;
                }
                a.clone()
            }
            (None, "_?_:_", [c, a, b]) => {
                if !c.assignable(&Type::Bool) {
                    self.no_overload(offset, function, None, &tys);
                }
                match join(a, b) {
                    Some(t) => t,
                    None => {
                        self.no_overload(offset, function, None, &tys);
                        Type::Dyn
                    }
                }
            }
            (None, "_==_" | "_!=_", [a, b]) => {
                if join(a, b).is_none() {
                    self.no_overload(offset, function, None, &tys);
                }
                Type::Bool
            }
            (None, "_<_" | "_<=_" | "_>_" | "_>=_", [a, b]) => {
                let ordered = |t: &Type| {
                    matches!(
                        t,
                        Type::Int
                            | Type::Uint
                            | Type::Double
                            | Type::String
                            | Type::Bytes
                            | Type::Bool
                            | Type::Duration
                            | Type::Timestamp
                            | Type::Dyn
                    )
                };
                let fine = ordered(a)
                    && ordered(b)
                    && (a.is_dyn() || b.is_dyn() || a == b || (numeric(a) && numeric(b)));
                if !fine {
                    self.no_overload(offset, function, None, &tys);
                }
                Type::Bool
            }
            (None, "_+_" | "_-_" | "_*_" | "_/_" | "_%_", [a, b]) => {
                self.arithmetic(offset, function, a, b)
            }
            (None, "@in", [a, b]) => {
                let fine = match b {
                    Type::List(elem) => join(a, elem).is_some(),
                    Type::Map(k, _) => join(a, k).is_some(),
                    Type::Dyn => true,
                    _ => false,
                };
                if !fine {
                    self.no_overload(offset, function, None, &tys);
                }
                Type::Bool
            }
            (None, "_[_]" | "_[?_]", [c, i]) => {
                let elem = match c {
                    Type::List(elem) if matches!(i, Type::Int | Type::Uint | Type::Dyn) => {
                        Some((**elem).clone())
                    }
                    Type::Map(k, v) if join(k, i).is_some() => Some((**v).clone()),
                    Type::Dyn => Some(Type::Dyn),
                    Type::Optional(_) if function == "_[?_]" => Some(Type::Dyn),
                    _ => None,
                };
                match (elem, function) {
                    (Some(t), "_[_]") => t,
                    (Some(t), _) => optional(t),
                    (None, _) => {
                        self.no_overload(offset, function, None, &tys);
                        Type::Dyn
                    }
                }
            }
            (None, f, _) => self.global(offset, f, &tys),
            (Some(t), f, _) => self.method(offset, t, f, &tys),
        }
    }

    fn arithmetic(&mut self, offset: usize, function: &str, a: &Type, b: &Type) -> Type {
        let result = match (function, a, b) {
            (_, Type::Dyn, t) | (_, t, Type::Dyn)
                if !matches!(t, Type::Timestamp | Type::Duration) =>
            {
                Some(t.clone())
            }
            (_, Type::Dyn, _) | (_, _, Type::Dyn) => Some(Type::Dyn),
            ("_%_", Type::Int, Type::Int) | ("_%_", Type::Uint, Type::Uint) => Some(a.clone()),
            ("_%_", _, _) => None,
            (_, Type::Int, Type::Int)
            | (_, Type::Uint, Type::Uint)
            | (_, Type::Double, Type::Double) => Some(a.clone()),
            ("_+_", Type::String, Type::String) | ("_+_", Type::Bytes, Type::Bytes) => {
                Some(a.clone())
            }
            ("_+_", Type::List(_), Type::List(_)) => Some(join(a, b).unwrap_or(list(Type::Dyn))),
            ("_+_", Type::Timestamp, Type::Duration) | ("_+_", Type::Duration, Type::Timestamp) => {
                Some(Type::Timestamp)
            }
            ("_+_" | "_-_", Type::Duration, Type::Duration) => Some(Type::Duration),
            ("_-_", Type::Timestamp, Type::Timestamp) => Some(Type::Duration),
            ("_-_", Type::Timestamp, Type::Duration) => Some(Type::Timestamp),
            _ => None,
        };
        result.unwrap_or_else(|| {
            self.no_overload(offset, function, None, &[a.clone(), b.clone()]);
            Type::Dyn
        })
    }

    fn global(&mut self, offset: usize, function: &str, args: &[Type]) -> Type {
        if !GLOBALS.contains(&function) {
            self.error(offset, format!("undeclared reference to '{function}'"));
            return Type::Dyn;
        }
        match (function, args) {
            ("size", [t]) => {
                if !matches!(
                    t,
                    Type::String | Type::Bytes | Type::List(_) | Type::Map(..) | Type::Dyn
                ) {
                    self.no_overload(offset, function, None, args);
                }
                Type::Int
            }
            ("int", _) => Type::Int,
            ("uint", _) => Type::Uint,
            ("double", _) => Type::Double,
            ("string", _) => Type::String,
            ("bytes", _) => Type::Bytes,
            ("bool", _) => Type::Bool,
            ("duration", _) => Type::Duration,
            ("timestamp", _) => Type::Timestamp,
            ("type", _) => Type::Type,
            ("matches", _) | ("isQuantity" | "isURL" | "isIP" | "isCIDR" | "isSemver", _) => {
                Type::Bool
            }
            ("quantity", _) => Type::Opaque("kubernetes.Quantity"),
            ("url", _) => Type::Opaque("kubernetes.URL"),
            ("ip", _) => Type::Opaque("net.IP"),
            ("cidr", _) => Type::Opaque("net.CIDR"),
            ("semver", _) => Type::Opaque("kubernetes.Semver"),
            _ => Type::Dyn,
        }
    }

    /// Methods: the well-known string and list ones are checked against their target, the
    /// others (library types, optionals, timestamps) only typed where obvious.
    fn method(&mut self, offset: usize, target: &Type, function: &str, args: &[Type]) -> Type {
        let string_only = matches!(
            function,
            "startsWith"
                | "endsWith"
                | "matches"
                | "lowerAscii"
                | "upperAscii"
                | "trim"
                | "split"
                | "substring"
                | "charAt"
                | "replace"
                | "find"
                | "findAll"
        );
        let concrete = !matches!(target, Type::Dyn | Type::Opaque(_));
        if string_only && concrete && *target != Type::String {
            self.no_overload(offset, function, Some(target), args);
            return Type::Dyn;
        }
        if function == "size"
            && concrete
            && !matches!(
                target,
                Type::String | Type::Bytes | Type::List(_) | Type::Map(..)
            )
        {
            self.no_overload(offset, function, Some(target), args);
            return Type::Int;
        }
        if function == "contains"
            && concrete
            && *target == Type::String
            && !matches!(args, [Type::String | Type::Dyn])
        {
            self.no_overload(offset, function, Some(target), args);
            return Type::Bool;
        }
        let elem = match target {
            Type::List(e) | Type::Optional(e) => (**e).clone(),
            _ => Type::Dyn,
        };
        match function {
            "startsWith" | "endsWith" | "matches" | "contains" | "isSorted" | "hasValue"
            | "isInteger" | "isGreaterThan" | "isLessThan" | "containsIP" | "containsCIDR" => {
                Type::Bool
            }
            "size" | "indexOf" | "lastIndexOf" | "compareTo" | "getFullYear" | "getMonth"
            | "getDayOfYear" | "getDayOfMonth" | "getDate" | "getDayOfWeek" | "getHours"
            | "getMinutes" | "getSeconds" | "getMilliseconds" | "sign" | "asInteger" | "major"
            | "minor" | "patch" | "prefixLength" => Type::Int,
            "lowerAscii" | "upperAscii" | "trim" | "substring" | "charAt" | "replace" | "find"
            | "join" | "getScheme" | "getHost" | "getHostname" | "getPort" | "getEscapedPath" => {
                Type::String
            }
            "split" | "findAll" => list(Type::String),
            "sum" | "min" | "max" if matches!(target, Type::List(_)) => elem,
            "value" | "orValue" if matches!(target, Type::Optional(_)) => elem,
            "slice" | "sort" | "distinct" | "reverse" if matches!(target, Type::List(_)) => {
                target.clone()
            }
            "first" | "last" if matches!(target, Type::List(_)) => optional(elem),
            "or" if matches!(target, Type::Optional(_)) => target.clone(),
            _ => Type::Dyn,
        }
    }

    /// `ns.f(args)`: the namespaces of the Kubernetes environment's libraries; any other is
    /// an undeclared reference (`cel.bind` is not enabled for CRDs).
    fn namespaced(&mut self, offset: usize, ns: &str, function: &str, args: &[Expr]) -> Type {
        let tys: Vec<Type> = args.iter().map(|a| self.expr(a)).collect();
        if !NAMESPACES.contains(&ns) {
            self.error(offset, format!("undeclared reference to '{ns}'"));
            return Type::Dyn;
        }
        match (ns, function, tys.as_slice()) {
            ("optional", "of" | "ofNonZeroValue", [t]) => optional(t.clone()),
            ("optional", "none", []) => optional(Type::Dyn),
            ("sets", _, _) => Type::Bool,
            _ => Type::Dyn,
        }
    }

    fn comprehension(
        &mut self,
        e: &Expr,
        kind: Macro,
        range: &Expr,
        var: &str,
        args: &[Expr],
    ) -> Type {
        let range_ty = self.expr(range);
        let var_ty = match (&range_ty, kind) {
            (Type::Optional(t), Macro::OptMap | Macro::OptFlatMap) => (**t).clone(),
            (Type::Dyn, _) => Type::Dyn,
            (_, Macro::OptMap | Macro::OptFlatMap) => {
                self.error(
                    e.offset,
                    format!("found no matching overload for 'hasValue' applied to '{range_ty}.()'"),
                );
                Type::Dyn
            }
            (Type::List(t), _) => (**t).clone(),
            (Type::Map(k, _), _) => (**k).clone(),
            (t, _) => {
                self.error(
                    range.offset,
                    format!(
                        "expression of type '{t}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                );
                Type::Dyn
            }
        };
        self.scopes.push((var.to_owned(), var_ty.clone()));
        let tys: Vec<Type> = args.iter().map(|a| self.expr(a)).collect();
        self.scopes.pop();
        // The predicates are operands of `&&`, `||` or `?:` in the expansion.
        let predicate = match kind {
            Macro::All | Macro::Exists | Macro::ExistsOne | Macro::Filter | Macro::MapFilter => {
                tys.first()
            }
            _ => None,
        };
        if let (Some(p), Some(arg)) = (predicate, args.first())
            && !p.assignable(&Type::Bool)
        {
            let op = match kind {
                Macro::All => "_&&_",
                Macro::Exists => "_||_",
                _ => "_?_:_",
            };
            self.error(
                arg.offset,
                format!("found no matching overload for '{op}' applied to '(bool, {p})'"),
            );
        }
        match kind {
            Macro::All | Macro::Exists | Macro::ExistsOne => Type::Bool,
            Macro::Map => list(tys[0].clone()),
            Macro::MapFilter => list(tys[1].clone()),
            Macro::Filter => list(var_ty),
            Macro::OptMap => optional(tys[0].clone()),
            Macro::OptFlatMap => tys[0].clone(),
        }
    }
}
