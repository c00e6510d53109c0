//! torch's `nn.CrossMapLRN2d` (the legacy `_functions.CrossMapLRN2d` autograd function): its
//! forward and its hand-written backward, each reproduced as torch computes it. Both use a window
//! over channels that is not the one `F.local_response_norm` uses, and not each other's: the
//! forward's running sum adds channel `c + pre_pad - 1` and removes channel `c - pre_pad` only
//! for `c > pre_pad` (so channel 0 stays in every sum past it), and the backward sums the ratios
//! of channels `c - inversePrePad ..= c - inversePrePad + size - 1`. Both windows are written as
//! a `C × C` matrix applied along the channel dim.

use borch_autograd::{Ctx, Function, apply};
use borch_tensor::{BorchError, Result, Tensor};

use super::normalization_batch::along;

/// The forward's window: row `c` of the matrix holds how often channel `j`'s square is in the
/// scale of channel `c` (torch's running-sum loop, replayed).
fn forward_window(size: usize, c: usize) -> Vec<f32> {
    let pre_pad = ((size as f64 - 1.0) / 2.0 + 1.0) as usize;
    let mut w = vec![0f32; c * c];
    w[..pre_pad.min(c)].fill(1.0);
    for ch in 1..c {
        for j in 0..c {
            w[ch * c + j] = w[(ch - 1) * c + j];
        }
        if ch + pre_pad < c + 1 {
            w[ch * c + ch + pre_pad - 1] += 1.0;
        }
        if ch > pre_pad {
            w[ch * c + ch - pre_pad] -= 1.0;
        }
    }
    w
}

/// The backward's window: row `c` holds the channels whose ratio `grad * output / scale` enters
/// channel `c`'s gradient.
fn backward_window(size: usize, c: usize) -> Vec<f32> {
    let inverse_pre_pad = (size as f64 - (size as f64 - 1.0) / 2.0) as isize;
    let mut w = vec![0f32; c * c];
    for ch in 0..c as isize {
        for j in ch - inverse_pre_pad..ch - inverse_pre_pad + size as isize {
            if (0..c as isize).contains(&j) {
                w[ch as usize * c + j as usize] = 1.0;
            }
        }
    }
    w
}

struct CrossMapLrn {
    size: usize,
    alpha: f64,
    beta: f64,
    k: f64,
}

impl Function for CrossMapLrn {
    fn name(&self) -> &str {
        "CrossMapLRN2dBackward"
    }

    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor> {
        let x = &inputs[0];
        let c = x.shape()[1];
        let sums = along(&x.mul(x)?, 1, &forward_window(self.size, c), c)?;
        let scale = sums.mul(self.alpha / self.size as f64)?.add(self.k)?;
        let output = scale.pow(-self.beta)?.mul(x)?;
        ctx.save_for_backward(&[x, &output, &scale]);
        Ok(output)
    }

    fn backward(&self, ctx: &Ctx, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let [x, output, scale] = ctx.saved_tensors() else {
            return Err(BorchError::Runtime(
                "CrossMapLRN2d: saved tensors missing".into(),
            ));
        };
        let c = x.shape()[1];
        // torch narrows a buffer of `channels + size - 1` from `inversePrePad` for `channels`:
        // with size 1 that start is past the end.
        let inverse_pre_pad = (self.size as f64 - (self.size as f64 - 1.0) / 2.0) as usize;
        if inverse_pre_pad + c > c + self.size - 1 {
            return Err(BorchError::Runtime(format!(
                "start ({inverse_pre_pad}) + length ({c}) exceeds dimension size ({}).",
                c + self.size - 1
            )));
        }
        let ratio = g.mul(output)?.div(scale)?;
        let accum = along(&ratio, 1, &backward_window(self.size, c), c)?;
        let cache = 2.0 * self.alpha * self.beta / self.size as f64;
        let grad = scale
            .pow(-self.beta)?
            .mul(g)?
            .sub(&x.mul(&accum)?.mul(cache)?)?;
        Ok(vec![Some(grad)])
    }
}

/// torch's `nn.CrossMapLRN2d(size, alpha, beta, k)` forward on a 4-D input.
pub fn cross_map_lrn2d(
    input: &Tensor,
    size: usize,
    alpha: f64,
    beta: f64,
    k: f64,
) -> Result<Tensor> {
    if input.dim() != 4 {
        return Err(BorchError::Value(format!(
            "CrossMapLRN2d: Expected input to be 4D, got {}D instead.",
            input.dim()
        )));
    }
    if input.numel() == 0 {
        return Ok(input.clone());
    }
    apply(
        CrossMapLrn {
            size,
            alpha,
            beta,
            k,
        },
        std::slice::from_ref(input),
    )
}
