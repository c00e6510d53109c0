//! Linear, Bilinear, Identity, Flatten, Unflatten, Embedding and Dropout.

use borch_tensor::BorchError;

use super::{ModuleClass, boxed, class, factory};
use crate::{Bilinear, Dropout, Embedding, Flatten, Identity, Linear, Unflatten};

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("Linear", "in_features: Int, out_features: Int, bias: Bool = True, device: Str = None, dtype: DType = None",
            |a| { factory(a, 3)?; boxed(Linear::with_bias(a.usize(0)?, a.usize(1)?, a.bool(2)?)?) }),
        class("Bilinear", "in1_features: Int, in2_features: Int, out_features: Int, bias: Bool = True, \
                           device: Str = None, dtype: DType = None",
            |a| { factory(a, 4)?; boxed(Bilinear::with_bias(a.usize(0)?, a.usize(1)?, a.usize(2)?, a.bool(3)?)?) }),
        class("Identity", "", |_| boxed(Identity::new())),
        class("Flatten", "start_dim: Int = 1, end_dim: Int = -1",
            |a| boxed(Flatten::with_dims(a.int(0)?, a.int(1)?))),
        class("Unflatten", "dim: Int, unflattened_size: Ints",
            |a| boxed(Unflatten::new(a.int(0)?, &a.ints(1)?))),
        class("Embedding", "num_embeddings: Int, embedding_dim: Int, padding_idx: Int = None, max_norm: Float = None, \
                            norm_type: Float = 2.0, scale_grad_by_freq: Bool = False, sparse: Bool = False, \
                            _weight: Tensor = None, _freeze: Bool = False, device: Str = None, dtype: DType = None",
            |a| {
                factory(a, 9)?;
                if !a.get(3).is_none() || a.bool(5)? || a.bool(6)? || !a.get(7).is_none() || a.bool(8)? {
                    return Err(BorchError::NotImplemented(
                        "Embedding(): borch has no max_norm, scale_grad_by_freq, sparse, _weight or _freeze".into()));
                }
                let padding_idx = a.opt_int(2)?.map(|p| p as i64);
                boxed(Embedding::with_padding_idx(a.usize(0)?, a.usize(1)?, padding_idx)?)
            }),
        class("Dropout", "p: Float = 0.5, inplace: Bool = False",
            |a| { super::no_inplace(a, 1)?; boxed(Dropout::new(a.f64(0)?)?) }),
    ]
}
