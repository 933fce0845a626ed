//! The type of a marker argument, as markers/catalog.yaml spells it. Free of the crate's other
//! modules and dependencies: build.rs reads the catalog with this same parser (`#[path]`).

/// The type of a marker argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgType {
    String,
    Int,
    Number,
    Bool,
    Any,
    Json,
    Map,
    List(Box<ArgType>),
    OneOf(Vec<String>),
}

impl ArgType {
    /// `string`, `int`, `number`, `bool`, `any`, `json`, `map`, `list<T>` or `enum(a|b)`.
    pub fn parse(text: &str) -> Result<ArgType, String> {
        let text = text.trim();
        if let Some(inner) = text.strip_prefix("list<").and_then(|t| t.strip_suffix('>')) {
            return Ok(ArgType::List(Box::new(ArgType::parse(inner)?)));
        }
        if let Some(inner) = text.strip_prefix("enum(").and_then(|t| t.strip_suffix(')')) {
            return Ok(ArgType::OneOf(
                inner.split('|').map(str::to_owned).collect(),
            ));
        }
        Ok(match text {
            "string" => ArgType::String,
            "int" => ArgType::Int,
            "number" => ArgType::Number,
            "bool" => ArgType::Bool,
            "any" => ArgType::Any,
            "json" => ArgType::Json,
            "map" => ArgType::Map,
            other => return Err(format!("unknown argument type `{other}`")),
        })
    }

    pub fn describe(&self) -> String {
        match self {
            ArgType::String => "a string".into(),
            ArgType::Int => "an integer".into(),
            ArgType::Number => "a number".into(),
            ArgType::Bool => "true or false".into(),
            ArgType::Any => "a value".into(),
            ArgType::Json => "JSON".into(),
            ArgType::Map => "a map such as {key: value}".into(),
            ArgType::List(t) => match t.as_ref() {
                ArgType::List(inner) => format!(
                    "a list of lists of {} such as {{{{a,b}},{{c,d}}}}",
                    inner.describe()
                ),
                t => format!("a list of {} such as {{a,b}} or a;b", t.describe()),
            },
            ArgType::OneOf(options) => format!("one of {}", options.join(", ")),
        }
    }
}
