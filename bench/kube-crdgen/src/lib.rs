//! One kind, as a kube-rs operator declares it.

pub mod types;
