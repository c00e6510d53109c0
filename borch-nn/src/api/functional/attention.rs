//! The catalog entry of `scaled_dot_product_attention` (`functional::attention`), with torch's
//! signature.

use borch_tensor::api::Entry;

use super::{entry, ok};
use crate::functional::{self as F, Sdpa};

/// The entries of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<Entry> {
    vec![
        entry("scaled_dot_product_attention", "query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor = None, \
               dropout_p: Float = 0.0, is_causal: Bool = False, scale: Float = None, enable_gqa: Bool = False",
            |a| {
                let mask = a.opt_tensor(3)?;
                let opts = Sdpa {
                    attn_mask: mask.as_ref(),
                    dropout_p: a.f64(4)?,
                    is_causal: a.bool(5)?,
                    scale: a.opt_f64(6)?,
                    enable_gqa: a.bool(7)?,
                };
                ok(F::scaled_dot_product_attention(&a.tensor(0)?, &a.tensor(1)?, &a.tensor(2)?, &opts))
            }),
    ]
}
