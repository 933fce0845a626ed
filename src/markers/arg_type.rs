//! The type of a marker argument. Free of the crate's other modules: build.rs includes it
//! (`#[path]`), reads markers/catalog.yaml's spelling of each (`list<int>`, `enum(a|b)`,
//! build/catalog.rs) and writes it as a constant of this type.

/// The type of a marker argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    String,
    Int,
    Number,
    Bool,
    Any,
    Json,
    Map,
    List(&'static ArgType),
    OneOf(&'static [&'static str]),
}

impl ArgType {
    pub fn describe(&self) -> String {
        match self {
            ArgType::String => "a string".into(),
            ArgType::Int => "an integer".into(),
            ArgType::Number => "a number".into(),
            ArgType::Bool => "true or false".into(),
            ArgType::Any => "a value".into(),
            ArgType::Json => "JSON".into(),
            ArgType::Map => "a map such as {key: value}".into(),
            ArgType::List(t) => match t {
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
