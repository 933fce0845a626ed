//! The worst-case cost of a rule, estimated as cel-go's `checker/cost.go` does with the API
//! server's size estimator (apiextensions-apiserver `schema/cel/compilation.go`) and
//! Kubernetes' library costs (apiserver `pkg/cel/library/cost.go`): each node costs a fixed
//! amount, string functions a tenth of a unit per char, regexes a quarter per pattern char,
//! and a comprehension its body times the most elements its range can hold, which is what
//! makes an unbounded list expensive. Only the maximum is kept; it is what the server checks.

use super::check::Checked;
use super::parse::{Expr, ExprKind, Lit, Macro};
use super::types::{Decl, Type};
use std::collections::HashMap;

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_STRING_LENGTH: f64 = 0.25;
const LIST_CREATE: u64 = 10;
const MAP_CREATE: u64 = 30;
const STRUCT_CREATE: u64 = 40;

/// cel-go's `multiplyByCostFactor`: rounded up, saturating.
fn factor(x: u64, y: f64) -> u64 {
    let f = (x as f64 * y).ceil();
    if f >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        f as u64
    }
}

/// The estimated maximum cost of `expr`, with `self` and `oldSelf` declared by `root`.
pub fn estimate(expr: &Expr, checked: &Checked, root: &Decl) -> u64 {
    let mut c = Coster {
        root,
        checked,
        vars: Vec::new(),
        paths: HashMap::new(),
        sizes: HashMap::new(),
        entry_sizes: HashMap::new(),
    };
    c.cost(expr)
}

struct Var {
    name: String,
    path: Vec<String>,
    size: Option<u64>,
    entry_size: Option<u64>,
}

struct Coster<'a> {
    root: &'a Decl,
    checked: &'a Checked,
    vars: Vec<Var>,
    paths: HashMap<*const Expr, Vec<String>>,
    /// Sizes computed for call results and comprehensions.
    sizes: HashMap<*const Expr, u64>,
    /// The size of the elements of list literals (and what is built from them).
    entry_sizes: HashMap<*const Expr, u64>,
}

fn key(e: &Expr) -> *const Expr {
    e as *const Expr
}

impl Coster<'_> {
    fn var(&self, e: &Expr) -> Option<&Var> {
        match &e.kind {
            ExprKind::Ident {
                name,
                leading_dot: false,
            } => self.vars.iter().rev().find(|v| &v.name == name),
            _ => None,
        }
    }

    fn path(&self, e: &Expr) -> Vec<String> {
        if let Some(v) = self.var(e) {
            return v.path.clone();
        }
        self.paths.get(&key(e)).cloned().unwrap_or_default()
    }

    /// cel-go's `computeSize`, then unknown (the largest size).
    fn size(&self, e: &Expr) -> u64 {
        if let Some(s) = self.sizes.get(&key(e)) {
            return *s;
        }
        match &e.kind {
            ExprKind::Lit(Lit::String(n) | Lit::Bytes(n)) => return *n,
            ExprKind::Lit(_) => return 1,
            ExprKind::List(items) => return items.len() as u64,
            ExprKind::Map(entries) => return entries.len() as u64,
            _ => {}
        }
        let path = self.path(e);
        if !path.is_empty()
            && let Some(d) = self.root.at(&path[1..])
        {
            return d.max_elements.max(0) as u64;
        }
        let scalar = |t: &Type| {
            matches!(
                t,
                Type::Bool
                    | Type::Double
                    | Type::Duration
                    | Type::Int
                    | Type::Timestamp
                    | Type::Uint
            )
        };
        match self.checked.type_of(e) {
            t if scalar(t) => return 1,
            Type::Optional(t) if scalar(t) => return 1,
            _ => {}
        }
        if let Some(v) = self.var(e)
            && let Some(s) = v.size
        {
            return s;
        }
        u64::MAX
    }

    fn entry_size(&self, e: &Expr) -> Option<u64> {
        if let Some(s) = self.entry_sizes.get(&key(e)) {
            return Some(*s);
        }
        self.var(e).and_then(|v| v.entry_size)
    }

    fn cost(&mut self, e: &Expr) -> u64 {
        match &e.kind {
            ExprKind::Lit(_) => 0,
            ExprKind::Ident { name, .. } => {
                if self.var(e).is_none() {
                    self.paths.insert(key(e), vec![name.clone()]);
                }
                1
            }
            ExprKind::Select {
                operand,
                field,
                optional,
                test_only,
            } => {
                // Kubernetes sets PresenceTestHasCost(false).
                let operand_cost = self.cost(operand);
                if *test_only {
                    return operand_cost;
                }
                if *optional {
                    return operand_cost.saturating_add(1);
                }
                let mut path = self.path(operand);
                path.push(field.clone());
                self.paths.insert(key(e), path);
                let select = match self.checked.type_of(operand) {
                    Type::Map(..) | Type::Object(_) => 1,
                    _ => 0,
                };
                operand_cost.saturating_add(select)
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => self.call(e, target.as_deref(), function, args),
            ExprKind::List(items) => {
                let mut sum = LIST_CREATE;
                let mut entry = 0;
                for i in items {
                    sum = sum.saturating_add(self.cost(i));
                    entry = entry.max(self.size(i));
                }
                self.entry_sizes.insert(key(e), entry);
                sum
            }
            ExprKind::Map(entries) => {
                let mut sum = MAP_CREATE;
                for (k, v, _) in entries {
                    sum = sum
                        .saturating_add(self.cost(k))
                        .saturating_add(self.cost(v));
                }
                sum
            }
            ExprKind::Struct { fields, .. } => {
                let mut sum = STRUCT_CREATE;
                for f in fields {
                    sum = sum.saturating_add(self.cost(f));
                }
                sum
            }
            ExprKind::Comprehension {
                kind,
                range,
                var,
                args,
            } => self.comprehension(e, *kind, range, var, args),
        }
    }

    fn push_iter(&mut self, name: &str, range: &Expr) {
        let mut path = self.path(range);
        let is_map = matches!(self.checked.type_of(range), Type::Map(..));
        path.push(if is_map { "@keys" } else { "@items" }.to_owned());
        let size = if is_map { None } else { self.entry_size(range) };
        self.vars.push(Var {
            name: name.to_owned(),
            path,
            size,
            entry_size: None,
        });
    }

    fn comprehension(
        &mut self,
        e: &Expr,
        kind: Macro,
        range: &Expr,
        var: &str,
        args: &[Expr],
    ) -> u64 {
        let range_cost = self.cost(range);
        let n = self.size(range);
        self.push_iter(var, range);
        let costs: Vec<u64> = args.iter().map(|a| self.cost(a)).collect();
        self.vars.pop();
        let c0 = costs.first().copied().unwrap_or(0);
        let c1 = costs.get(1).copied().unwrap_or(0);
        // init + result, and the loop condition + step of each iteration, of the expansion.
        let (fixed, per_item) = match kind {
            Macro::All => (1, 3u64.saturating_add(c0)),
            Macro::Exists => (1, 4u64.saturating_add(c0)),
            Macro::ExistsOne => (2, 2u64.saturating_add(c0)),
            Macro::Map => (LIST_CREATE + 1, 12u64.saturating_add(c0)),
            Macro::MapFilter => (LIST_CREATE + 1, c0.saturating_add(12u64.saturating_add(c1))),
            Macro::Filter => (LIST_CREATE + 1, c0.saturating_add(13)),
            Macro::OptMap | Macro::OptFlatMap => {
                return range_cost
                    .saturating_mul(2)
                    .saturating_add(3)
                    .saturating_add(c0);
            }
        };
        if !matches!(kind, Macro::All | Macro::Exists | Macro::ExistsOne) {
            self.sizes.insert(key(e), n);
        }
        range_cost
            .saturating_add(fixed)
            .saturating_add(n.saturating_mul(per_item))
    }

    fn call(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) -> u64 {
        if function == "bind"
            && let Some(Expr {
                kind: ExprKind::Ident { name, .. },
                ..
            }) = target
            && name == "cel"
            && let [var, init, body] = args
            && let Some(var) = var.as_ident()
        {
            let init_cost = self.cost(init);
            let path = self.path(init);
            let (size, entry_size) = (self.size(init), self.entry_size(init));
            self.vars.push(Var {
                name: var.to_owned(),
                path,
                size: Some(size),
                entry_size,
            });
            let body_cost = self.cost(body);
            self.vars.pop();
            return LIST_CREATE
                .saturating_add(init_cost)
                .saturating_add(body_cost);
        }
        // Two-variable comprehensions (`all(k, v, p)`, `transformList`...) of the ext library.
        if let Some(range) = target
            && args.len() >= 3
            && let (Some(k), Some(v)) = (args[0].as_ident(), args[1].as_ident())
        {
            let range_cost = self.cost(range);
            let n = self.size(range);
            for name in [k, v] {
                self.push_iter(name, range);
            }
            let body: u64 = args[2..]
                .iter()
                .map(|a| self.cost(a))
                .fold(0, u64::saturating_add);
            self.vars.truncate(self.vars.len() - 2);
            return range_cost
                .saturating_add(LIST_CREATE + 1)
                .saturating_add(n.saturating_mul(body.saturating_add(13)));
        }
        if function == "dyn" && target.is_none() && args.len() == 1 {
            let c = self.cost(&args[0]);
            self.sizes.insert(key(e), self.size(&args[0]));
            return c.saturating_add(1);
        }
        let arg_costs: Vec<u64> = args.iter().map(|a| self.cost(a)).collect();
        let args_sum = arg_costs.iter().copied().fold(0, u64::saturating_add);
        let target_cost = target.map_or(0, |t| self.cost(t));
        let ty = |c: &Self, x: &Expr| c.checked.type_of(x).clone();
        let string_like = |t: &Type| matches!(t, Type::String | Type::Bytes);
        let fn_cost: u64 = match (target, function, args) {
            (None, "_&&_" | "_||_", _) => 0,
            (None, "_?_:_", [_, a, b]) => {
                let size = self.size(a).max(self.size(b));
                self.sizes.insert(key(e), size);
                return arg_costs[0].saturating_add(arg_costs[1].max(arg_costs[2]));
            }
            (None, "_==_" | "_!=_", [a, b]) => {
                factor(self.size(a).min(self.size(b)), STRING_TRAVERSAL)
            }
            (None, "_<_" | "_<=_" | "_>_" | "_>=_", [a, b])
                if string_like(&ty(self, a)) && string_like(&ty(self, b)) =>
            {
                factor(self.size(a).min(self.size(b)), STRING_TRAVERSAL)
            }
            (None, "@in", [_, list]) if matches!(ty(self, list), Type::List(_)) => self.size(list),
            (None, "_+_", [a, b]) => match ty(self, e) {
                Type::String | Type::Bytes => {
                    let size = self.size(a).saturating_add(self.size(b));
                    self.sizes.insert(key(e), size);
                    factor(size, STRING_TRAVERSAL)
                }
                Type::List(_) => {
                    let size = self.size(a).saturating_add(self.size(b));
                    self.sizes.insert(key(e), size);
                    1
                }
                _ => 1,
            },
            (None, "_[_]" | "_[?_]", [c, _]) => {
                let mut path = self.path(c);
                let step = match ty(self, c) {
                    Type::Map(..) => "@values",
                    _ => "@items",
                };
                path.push(step.to_owned());
                self.paths.insert(key(e), path);
                if let Some(s) = self.entry_size(c) {
                    self.sizes.insert(key(e), s);
                }
                1
            }
            (Some(t), "startsWith" | "endsWith", [arg]) if string_like(&ty(self, t)) => {
                factor(self.size(arg), STRING_TRAVERSAL)
            }
            (Some(s), "matches" | "find" | "findAll", [re]) | (None, "matches", [s, re]) => {
                let str_cost = factor(self.size(s).saturating_add(1), STRING_TRAVERSAL);
                let re_cost = factor(self.size(re), REGEX_STRING_LENGTH);
                if function != "matches" {
                    self.sizes.insert(key(e), self.size(s));
                }
                str_cost.saturating_mul(re_cost)
            }
            (Some(t), "contains", [sub]) if ty(self, t) == Type::String => {
                factor(self.size(t), STRING_TRAVERSAL)
                    .saturating_mul(factor(self.size(sub), STRING_TRAVERSAL))
            }
            (Some(t), "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf", _) => {
                match ty(self, t) {
                    Type::List(elem) => {
                        let mut el = 1u64;
                        if string_like(&elem) {
                            let mut path = self.path(t);
                            path.push("@items".to_owned());
                            let size = match self.root.at(path.get(1..).unwrap_or_default()) {
                                Some(d) if !path.is_empty() => d.max_elements.max(0) as u64,
                                _ => u64::MAX,
                            };
                            el = el.saturating_add(factor(size, STRING_TRAVERSAL));
                        }
                        self.size(t).saturating_mul(el)
                    }
                    _ => factor(self.size(t), STRING_TRAVERSAL),
                }
            }
            (Some(t), "lowerAscii" | "upperAscii" | "substring" | "trim", _) => {
                let size = self.size(t);
                self.sizes.insert(key(e), size);
                factor(size, STRING_TRAVERSAL)
            }
            (Some(t), "split", _) => {
                let size = self.size(t);
                self.sizes.insert(key(e), size);
                factor(size, 2.0 * STRING_TRAVERSAL)
            }
            (
                None,
                "url" | "isURL" | "quantity" | "isQuantity" | "cidr" | "isIP" | "isCIDR" | "ip",
                [arg],
            ) => factor(self.size(arg), STRING_TRAVERSAL),
            _ => 1,
        };
        target_cost.saturating_add(args_sum).saturating_add(fn_cost)
    }
}
