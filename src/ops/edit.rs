//! `opgen edit`.
