//! The one error of an option out of range, shared by every evidence step
//! that takes options (presentation, citations, gaps, dedup): which step,
//! which option, the value given and what is accepted.

/// An option out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{area} option {name} = {value} is out of range ({expected})")]
pub struct OptionError {
    /// The step the option belongs to (`presentation`, `citation`, …).
    pub area: &'static str,
    /// The option.
    pub name: &'static str,
    /// Its value.
    pub value: String,
    /// What is accepted.
    pub expected: &'static str,
}

impl OptionError {
    /// Option `name` of `area` has `value`; `expected` is accepted.
    pub(crate) fn new(
        area: &'static str,
        name: &'static str,
        value: impl ToString,
        expected: &'static str,
    ) -> Self {
        OptionError {
            area,
            name,
            value: value.to_string(),
            expected,
        }
    }
}
