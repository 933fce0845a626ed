//! Helpers for `status.conditions`.

use k8s_openapi::{
    apimachinery::pkg::apis::meta::v1::{Condition, Time},
    jiff::Timestamp,
};

use kube::Resource;

use crate::Error;

/// A condition of `type_` with `status` ("True", "False" or "Unknown"), `reason` (CamelCase)
/// and `message`, observed at `observed_generation` (the object's `metadata.generation`),
/// stamped now. [`set_condition`] keeps the earlier stamp while the status stays the same.
///
/// ```
/// use opgen_runtime::{condition, set_condition};
///
/// let mut conditions = Vec::new();
/// set_condition(&mut conditions, condition("Available", "True", "Reconciled", "ready", Some(1)));
/// assert_eq!(conditions[0].type_, "Available");
/// ```
pub fn condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: impl Into<String>,
    observed_generation: Option<i64>,
) -> Condition {
    let message = message.into();
    condition_at(
        type_,
        status,
        reason,
        message,
        observed_generation,
        Timestamp::now(),
    )
}

/// [`condition`] stamped `at`: for a reconcile that takes the current time as a parameter,
/// so that its tests control the clock.
pub fn condition_at(
    type_: &str,
    status: &str,
    reason: &str,
    message: impl Into<String>,
    observed_generation: Option<i64>,
    at: Timestamp,
) -> Condition {
    Condition {
        type_: type_.into(),
        status: status.into(),
        reason: reason.into(),
        message: message.into(),
        observed_generation,
        last_transition_time: Time(at),
    }
}

/// `Degraded=True` reporting a failed reconcile: the reason is [`Error::reason`] (`NotOwned`
/// for a child another owner controls), the message the error's text. Set it with
/// [`set_condition`]; the other conditions keep what was last observed.
///
/// ```
/// use opgen_runtime::{Error, degraded};
///
/// let error = Error::other("invalid_spec", "spec.size must be positive");
/// let condition = degraded(&error, Some(3));
/// assert_eq!(
///     (condition.type_.as_str(), condition.status.as_str(), condition.reason.as_str()),
///     ("Degraded", "True", "InvalidSpec")
/// );
/// assert_eq!(condition.message, "spec.size must be positive");
/// ```
pub fn degraded(error: &Error, observed_generation: Option<i64>) -> Condition {
    condition(
        "Degraded",
        "True",
        &error.reason(),
        error.to_string(),
        observed_generation,
    )
}

/// Adds `condition`, or replaces the one of the same type.
///
/// Like apimachinery's `meta.SetStatusCondition`, the existing
/// `lastTransitionTime` is kept unless the status changes, so reconciling an
/// unchanged object yields an identical status and no write.
pub fn set_condition(conditions: &mut Vec<Condition>, condition: Condition) {
    match conditions.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) if existing.status == condition.status => {
            *existing = Condition {
                last_transition_time: existing.last_transition_time.clone(),
                ..condition
            };
        }
        Some(existing) => *existing = condition,
        None => conditions.push(condition),
    }
}

/// The conditions of a status being written for `obj`: each [`Conditions::set`] is a
/// [`set_condition`] of a [`condition`] observed at `obj`'s generation, stamped now (or
/// [`Conditions::at`] a time of the reconcile's own).
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use opgen_runtime::{Conditions, is_condition_true};
///
/// let mut obj = ConfigMap::default();
/// obj.metadata.generation = Some(7);
/// let mut conditions = Vec::new();
/// let mut set = Conditions::of(&mut conditions, &obj);
/// set.set("Available", "True", "Reconciled", "3 of 3 replicas ready");
/// set.set("Degraded", "False", "Reconciled", "up to date");
/// assert!(is_condition_true(&conditions, "Available"));
/// assert_eq!(conditions[1].observed_generation, Some(7));
/// ```
pub struct Conditions<'a> {
    conditions: &'a mut Vec<Condition>,
    observed_generation: Option<i64>,
    now: Timestamp,
}

impl<'a> Conditions<'a> {
    /// The `conditions` of `obj`'s status (usually a copy being brought up to date).
    pub fn of(conditions: &'a mut Vec<Condition>, obj: &impl Resource) -> Self {
        Conditions {
            conditions,
            observed_generation: obj.meta().generation,
            now: Timestamp::now(),
        }
    }

    /// Stamps the conditions set from now on `now` (a reconcile's own clock, for its tests).
    pub fn at(self, now: Timestamp) -> Self {
        Conditions { now, ..self }
    }

    /// Sets the condition of `type_` ([`set_condition`]: its `lastTransitionTime` moves only
    /// when `status` changes).
    pub fn set(&mut self, type_: &str, status: &str, reason: &str, message: impl Into<String>) {
        let message = message.into();
        let generation = self.observed_generation;
        let condition = condition_at(type_, status, reason, message, generation, self.now);
        set_condition(self.conditions, condition);
    }
}

/// The condition of `type_`, if any (apimachinery's `meta.FindStatusCondition`).
pub fn find_condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of `type_` is there with status "True" (`meta.IsStatusConditionTrue`).
///
/// ```
/// use opgen_runtime::{condition, is_condition_true};
///
/// let conditions = vec![condition("Available", "True", "Reconciled", "ready", Some(1))];
/// assert!(is_condition_true(&conditions, "Available"));
/// assert!(!is_condition_true(&conditions, "Degraded"));
/// ```
pub fn is_condition_true(conditions: &[Condition], type_: &str) -> bool {
    find_condition(conditions, type_).is_some_and(|c| c.status == "True")
}

/// Removes the condition of `type_`; whether there was one (`meta.RemoveStatusCondition`).
pub fn remove_condition(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_are_found_tested_and_removed_by_type() {
        let mut conditions = vec![condition("True", "Ready", 10)];
        assert_eq!(
            find_condition(&conditions, "Available").map(|c| c.reason.as_str()),
            Some("Ready")
        );
        assert!(find_condition(&conditions, "Degraded").is_none());
        assert!(is_condition_true(&conditions, "Available"));
        conditions[0].status = "Unknown".into();
        assert!(!is_condition_true(&conditions, "Available"));
        assert!(!remove_condition(&mut conditions, "Degraded"));
        assert!(remove_condition(&mut conditions, "Available"));
        assert!(conditions.is_empty());
    }

    fn condition(status: &str, reason: &str, at_second: i64) -> Condition {
        Condition {
            type_: "Available".into(),
            status: status.into(),
            reason: reason.into(),
            message: String::new(),
            observed_generation: Some(1),
            last_transition_time: Time(Timestamp::from_second(at_second).expect("valid timestamp")),
        }
    }

    #[test]
    fn a_condition_is_stamped_when_asked() {
        let at = Timestamp::from_second(1_700_000_000).expect("valid timestamp");
        let stamped = condition_at("Ready", "False", "Waiting", "not yet", Some(4), at);
        assert_eq!(stamped.last_transition_time, Time(at));
        assert_eq!(stamped.observed_generation, Some(4));
        let before = Timestamp::now();
        let now = super::condition("Ready", "False", "Waiting", "not yet", Some(4));
        assert!(now.last_transition_time.0 >= before);
    }

    #[test]
    fn conditions_of_an_object_carry_its_generation_and_keep_their_time() {
        let mut obj = k8s_openapi::api::core::v1::ConfigMap::default();
        obj.metadata.generation = Some(3);
        let mut conditions = vec![condition("True", "Old", 10)];
        let at = |second| Timestamp::from_second(second).expect("valid timestamp");

        let mut set = Conditions::of(&mut conditions, &obj).at(at(20));
        set.set("Available", "True", "New", "same status");
        set.set("Degraded", "False", "Fine", "new type");

        assert_eq!(conditions[0].last_transition_time, Time(at(10)));
        assert_eq!(conditions[0].reason, "New");
        assert_eq!(conditions[0].observed_generation, Some(3));
        assert_eq!(conditions[1].last_transition_time, Time(at(20)));
        assert_eq!(conditions[1].observed_generation, Some(3));
    }

    #[test]
    fn adds_a_new_type() {
        let mut conditions = vec![];
        set_condition(&mut conditions, condition("True", "Reconciling", 10));
        assert_eq!(conditions, vec![condition("True", "Reconciling", 10)]);
    }

    #[test]
    fn keeps_the_transition_time_while_the_status_is_unchanged() {
        let mut conditions = vec![condition("True", "Old", 10)];
        set_condition(&mut conditions, condition("True", "New", 20));
        assert_eq!(conditions, vec![condition("True", "New", 10)]);
    }

    #[test]
    fn moves_the_transition_time_when_the_status_changes() {
        let mut conditions = vec![condition("True", "Reconciling", 10)];
        set_condition(&mut conditions, condition("False", "Failed", 20));
        assert_eq!(conditions, vec![condition("False", "Failed", 20)]);
    }
}
