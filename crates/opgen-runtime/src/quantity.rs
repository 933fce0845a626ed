//! Kubernetes quantities (`500m`, `1Gi`, `2.5`, `1e3`) as exact numbers, for the validation
//! and sizing logic of a reconcile: what apimachinery's `resource.Quantity` parses and
//! compares, where k8s-openapi's `Quantity` is only the text.
//!
//! ```
//! use opgen_runtime::quantity::ParsedQuantity;
//!
//! let requested: ParsedQuantity = "1536Mi".parse().unwrap();
//! let limit: ParsedQuantity = "1.5Gi".parse().unwrap();
//! assert_eq!(requested, limit);
//! assert!("500m".parse::<ParsedQuantity>().unwrap() < "1".parse().unwrap());
//! assert_eq!("2.5".parse::<ParsedQuantity>().unwrap().value(), 3); // rounded up, as Value() does
//! ```

use std::{fmt, str::FromStr};

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// A quantity as an exact count of nano-units (10⁻⁹), which holds every quantity up to about
/// 10²⁹ (beyond `2⁶³ Ei`, no resource needs more); finer fractions round up to 1n, as
/// apimachinery's do. Ordered and compared by value: `1Gi == 1024Mi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParsedQuantity {
    nanos: i128,
}

/// A quantity that does not parse, with why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid quantity {text:?}: {why}")]
pub struct InvalidQuantity {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub why: &'static str,
}

impl ParsedQuantity {
    /// The quantity `quantity` holds.
    pub fn of(quantity: &Quantity) -> Result<Self, InvalidQuantity> {
        quantity.0.parse()
    }

    /// The value in nano-units.
    pub fn as_nanos(self) -> i128 {
        self.nanos
    }

    /// The value rounded away from zero to a whole number (apimachinery's `Value()`): `2.5` is
    /// 3, `100m` 1, `-2.5` -3.
    pub fn value(self) -> i128 {
        ceil_div(self.nanos, 1_000_000_000)
    }

    /// The value in thousandths, rounded away from zero (apimachinery's `MilliValue()`): CPU in
    /// millicores.
    pub fn milli_value(self) -> i128 {
        ceil_div(self.nanos, 1_000_000)
    }

    /// The value as a float, for ratios and display.
    pub fn as_f64(self) -> f64 {
        self.nanos as f64 / 1e9
    }
}

/// `n / d` rounded away from zero, as apimachinery rounds.
fn ceil_div(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d != 0 { q + n.signum() } else { q }
}

impl FromStr for ParsedQuantity {
    type Err = InvalidQuantity;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = |why| InvalidQuantity {
            text: text.to_owned(),
            why,
        };
        let (negative, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(number_end);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() {
            return Err(bad("it has no number"));
        }
        if fraction.contains('.') {
            return Err(bad("it has more than one decimal point"));
        }
        // value = mantissa × 10^exponent × 2^binary
        let mut mantissa: i128 = 0;
        for digit in whole.bytes().chain(fraction.bytes()) {
            mantissa = mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add(i128::from(digit - b'0')))
                .ok_or_else(|| bad("it is too large"))?;
        }
        let mut exponent = -(fraction.len() as i64);
        let mut binary = 0u32;
        match suffix {
            "" => {}
            "n" => exponent -= 9,
            "u" => exponent -= 6,
            "m" => exponent -= 3,
            "k" => exponent += 3,
            "M" => exponent += 6,
            "G" => exponent += 9,
            "T" => exponent += 12,
            "P" => exponent += 15,
            "E" => exponent += 18,
            "Ki" => binary = 10,
            "Mi" => binary = 20,
            "Gi" => binary = 30,
            "Ti" => binary = 40,
            "Pi" => binary = 50,
            "Ei" => binary = 60,
            _ => {
                let digits = suffix.strip_prefix(['e', 'E']).ok_or_else(|| {
                    bad("its suffix is none of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent")
                })?;
                let (sign, digits) = match digits.as_bytes().first() {
                    Some(b'-') => (-1, &digits[1..]),
                    Some(b'+') => (1, &digits[1..]),
                    _ => (1, digits),
                };
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad("its exponent is not a whole number"));
                }
                let value: i64 = digits.parse().map_err(|_| bad("it is too large"))?;
                exponent += sign * value;
            }
        }
        let mut nanos = mantissa
            .checked_mul(1i128 << binary)
            .ok_or_else(|| bad("it is too large"))?;
        let exponent = exponent + 9;
        if exponent >= 0 {
            let scale = 10i128
                .checked_pow(u32::try_from(exponent).map_err(|_| bad("it is too large"))?)
                .ok_or_else(|| bad("it is too large"))?;
            nanos = nanos
                .checked_mul(scale)
                .ok_or_else(|| bad("it is too large"))?;
        } else {
            // Finer than a nano-unit: rounded up, as apimachinery does.
            let scale = u32::try_from(-exponent)
                .ok()
                .and_then(|e| 10i128.checked_pow(e));
            nanos = match scale {
                Some(scale) => ceil_div(nanos, scale),
                None => i128::from(nanos > 0),
            };
        }
        Ok(ParsedQuantity {
            nanos: if negative { -nanos } else { nanos },
        })
    }
}

impl fmt::Display for ParsedQuantity {
    /// The value in the plainest exact form: whole units, else milli, micro or nano.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (scale, suffix) in [(1_000_000_000, ""), (1_000_000, "m"), (1_000, "u")] {
            if self.nanos % scale == 0 {
                return write!(f, "{}{suffix}", self.nanos / scale);
            }
        }
        write!(f, "{}n", self.nanos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> ParsedQuantity {
        text.parse()
            .unwrap_or_else(|e| panic!("{text} should parse: {e}"))
    }

    #[test]
    fn quantities_compare_by_value() {
        assert_eq!(q("1Gi"), q("1073741824"));
        assert_eq!(q("1.5Gi"), q("1536Mi"));
        assert_eq!(q("1e3"), q("1k"));
        assert_eq!(q("1E-3"), q("1m"));
        assert_eq!(q("0.1"), q("100m"));
        assert_eq!(q(".5"), q("500m"));
        assert_eq!(q("+2"), q("2."));
        assert!(q("100m") < q("1"));
        assert!(q("-1") < q("0"));
        assert!(q("1Ki") > q("1k"));
        assert_eq!(q("1n").as_nanos(), 1);
        assert_eq!(q("1Ei").as_nanos(), (1i128 << 60) * 1_000_000_000);
    }

    #[test]
    fn values_round_up_as_apimachinery_does() {
        assert_eq!(q("2.5").value(), 3);
        assert_eq!(q("100m").value(), 1);
        assert_eq!(q("-2.5").value(), -3);
        assert_eq!(q("1.5m").milli_value(), 2);
        assert_eq!(q("250m").milli_value(), 250);
        // Finer than 1n rounds up to 1n.
        assert_eq!(q("0.1n").as_nanos(), 1);
        assert_eq!(q("1e-30").as_nanos(), 1);
        assert_eq!(q("1Mi").as_f64(), 1_048_576.0);
    }

    #[test]
    fn displayed_in_the_plainest_exact_form() {
        assert_eq!(q("1.5k").to_string(), "1500");
        assert_eq!(q("0.25").to_string(), "250m");
        assert_eq!(q("1.5u").to_string(), "1500n");
    }

    #[test]
    fn bad_quantities_say_why() {
        for (text, why) in [
            ("", "it has no number"),
            ("Gi", "it has no number"),
            ("1.2.3", "it has more than one decimal point"),
            (
                "1Zi",
                "its suffix is none of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent",
            ),
            (
                "1 Gi",
                "its suffix is none of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent",
            ),
            ("1e", "its exponent is not a whole number"),
            ("1e+x", "its exponent is not a whole number"),
            ("1e40", "it is too large"),
        ] {
            let error = text.parse::<ParsedQuantity>().unwrap_err();
            assert_eq!(error.why, why, "{text}");
        }
        assert_eq!(
            "1Zi".parse::<ParsedQuantity>().unwrap_err().to_string(),
            "invalid quantity \"1Zi\": its suffix is none of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent"
        );
        assert_eq!(
            ParsedQuantity::of(&Quantity("2Gi".into())).unwrap(),
            q("2048Mi")
        );
    }
}
