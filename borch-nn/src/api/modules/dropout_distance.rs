//! Channel-wise and alpha dropouts, the distance modules, EmbeddingBag, ParameterList and the
//! recurrent cells.

use borch_tensor::BorchError;

use super::{ModuleClass, boxed, class, factory, no_inplace};
use crate::functional::BagMode;
use crate::layers::recurrent::{GRU_CELL_FORWARD, RNN_CELL_FORWARD};
use crate::{
    AlphaDropout, CosineSimilarity, Dropout1d, Dropout2d, Dropout3d, EmbeddingBag,
    FeatureAlphaDropout, GRUCell, PairwiseDistance, ParameterList, RNNCell,
};

const DROPOUT: &str = "p: Float = 0.5, inplace: Bool = False";

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("Dropout1d", DROPOUT, |a| { no_inplace(a, 1)?; boxed(Dropout1d::new(a.f64(0)?)?) }),
        class("Dropout2d", DROPOUT, |a| { no_inplace(a, 1)?; boxed(Dropout2d::new(a.f64(0)?)?) }),
        class("Dropout3d", DROPOUT, |a| { no_inplace(a, 1)?; boxed(Dropout3d::new(a.f64(0)?)?) }),
        class("AlphaDropout", DROPOUT, |a| { no_inplace(a, 1)?; boxed(AlphaDropout::new(a.f64(0)?)?) }),
        class("FeatureAlphaDropout", DROPOUT,
            |a| { no_inplace(a, 1)?; boxed(FeatureAlphaDropout::new(a.f64(0)?)?) }),
        class("CosineSimilarity", "dim: Int = 1, eps: Float = 1e-08",
            |a| boxed(CosineSimilarity::new(a.int(0)?, a.f64(1)?))),
        class("PairwiseDistance", "p: Float = 2.0, eps: Float = 1e-06, keepdim: Bool = False",
            |a| boxed(PairwiseDistance::new(a.f64(0)?, a.f64(1)?, a.bool(2)?))),
        class("EmbeddingBag", "num_embeddings: Int, embedding_dim: Int, max_norm: Float = None, \
                               norm_type: Float = 2.0, scale_grad_by_freq: Bool = False, mode: Str = 'mean', \
                               sparse: Bool = False, _weight: Tensor = None, include_last_offset: Bool = False, \
                               padding_idx: Int = None, device: Str = None, dtype: DType = None",
            |a| {
                factory(a, 10)?;
                if !a.get(2).is_none() || a.bool(4)? || a.bool(6)? {
                    return Err(BorchError::NotImplemented(
                        "EmbeddingBag(): borch has no max_norm, scale_grad_by_freq or sparse".into()));
                }
                let (n, d) = (a.usize(0)?, a.usize(1)?);
                let mode = BagMode::parse(a.str(5)?)?;
                let mut bag = EmbeddingBag::new(n, d, mode, a.bool(8)?, a.opt_int(9)?.map(|p| p as i64))?;
                if let Some(w) = a.opt_tensor(7)? {
                    if w.shape() != [n, d] {
                        return Err(BorchError::Runtime(
                            "Shape of weight does not match num_embeddings and embedding_dim".into()));
                    }
                    let w = borch_tensor::keep_alive(&w.detach());
                    w.set_requires_grad(true)?;
                    bag.weight = w;
                }
                boxed(bag)
            }),
        class("ParameterList", "values: Tensors = None",
            |a| boxed(ParameterList::new(if a.get(0).is_none() { Vec::new() } else { a.tensors(0)? })?)),
        class("RNNCell", "input_size: Int, hidden_size: Int, bias: Bool = True, nonlinearity: Str = 'tanh', \
                          device: Str = None, dtype: DType = None",
            |a| { factory(a, 4)?; boxed(RNNCell::new(a.usize(0)?, a.usize(1)?, a.bool(2)?, a.str(3)?)?) })
            .with_forward(&RNN_CELL_FORWARD),
        class("GRUCell", "input_size: Int, hidden_size: Int, bias: Bool = True, device: Str = None, \
                          dtype: DType = None",
            |a| { factory(a, 3)?; boxed(GRUCell::new(a.usize(0)?, a.usize(1)?, a.bool(2)?)?) })
            .with_forward(&GRU_CELL_FORWARD),
    ]
}
