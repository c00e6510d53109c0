pub mod arg_reduce;
pub mod checks;
pub mod conv;
pub mod creation;
pub mod einsum;
pub mod elementwise;
pub mod index;
pub mod index_put;
pub mod indexing;
pub mod inplace_ops;
pub mod join;
pub mod linalg;
pub mod matmul;
pub mod moments;
pub mod nonzero;
pub mod one_hot;
pub mod pool;
pub mod random;
pub mod rearrange;
pub mod reduce;
pub(crate) mod reduce_specs;
pub mod scan;
pub mod scatter;
pub mod sequence;
pub mod softmax;
pub mod sort;
pub mod split;
pub mod stats;
pub mod table;
pub mod triangle;
pub mod unfold;
pub mod view;

pub use nonzero::{
    nonzero_all, nonzero_masked_select, nonzero_repeat, nonzero_tuple, nonzero_unique,
};
