pub mod checks;
pub mod creation;
pub mod elementwise;
pub mod matmul;
pub mod table;
pub mod view;
