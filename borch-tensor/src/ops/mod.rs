pub mod checks;
pub mod creation;
pub mod elementwise;
pub mod table;
pub mod view;
pub mod matmul;
