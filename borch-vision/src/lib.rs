#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod catalogue;
pub mod datasets;
pub mod models;
pub mod transforms;
