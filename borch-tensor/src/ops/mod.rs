pub mod checks;
pub mod creation;
pub mod elementwise;
pub mod random;
pub mod table;
pub mod view;
