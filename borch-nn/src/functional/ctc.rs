//! torch's `F.ctc_loss`: the connectionist temporal classification loss, forward and backward on
//! the device. The alpha (forward) and beta (backward) recursions run one time step at a time
//! over every sample and every position of the blank-extended target at once; lengths and
//! targets stay tensors, so nothing is read back. The gradient is torch's formula (for a leaf
//! `log_probs` it includes torch's `exp(log_probs)` term and is zero past each input length).
//! torch's checks on the length values (at most T, at most the target width) read the data and
//! are not made.

use borch_autograd::{Ctx, Function, apply};
use borch_tensor::{BorchError, DType, Result, Tensor, arange, cat, full, stack, where_cond};

use crate::reduction::Reduction;

const NEG: f64 = f64::NEG_INFINITY;

fn runtime<T>(msg: String) -> Result<T> {
    Err(BorchError::Runtime(msg))
}

/// `log(Σ exp(x))` over a few tensors of one shape, -inf where all are -inf (unrecorded).
fn logsumexp(xs: &[&Tensor]) -> Result<Tensor> {
    let mut m = xs[0].clone();
    for x in &xs[1..] {
        m = m.maximum(*x)?;
    }
    let m = m.masked_fill(&m.eq(NEG)?, 0.0)?;
    let mut sum = xs[0].sub(&m)?.exp()?;
    for x in &xs[1..] {
        sum = sum.add(&x.sub(&m)?.exp()?)?;
    }
    sum.log()?.add(&m)
}

/// `x` shifted by `by` along dim 1 (towards higher positions when `by > 0`), filled with `fill`.
fn shift(x: &Tensor, by: isize, fill: f64) -> Result<Tensor> {
    let (n, w) = (x.shape()[0], x.shape()[1]);
    let k = by.unsigned_abs().min(w);
    let pad = full(&[n, k], fill, Some(x.dtype()))?;
    if by > 0 {
        cat(&[pad, x.narrow(1, 0, w - k)?], 1)
    } else {
        cat(&[x.narrow(1, k as isize, w - k)?, pad], 1)
    }
}

/// The per-sample data of one call: the blank-extended targets and what the recursions need.
struct Prepared {
    /// `log_probs` at each extended label: `[T, N, S']`.
    lpe: Tensor,
    /// Extended labels `[N, S']` (blank, y1, blank, y2, …, blank).
    ext: Tensor,
    /// Transition `s - 2 → s` allowed: `[N, S']`.
    skip: Tensor,
    /// Positions `s` as a row `[1, S']` (int64).
    positions: Tensor,
}

fn prepare(lp: &Tensor, targets: &Tensor, blank: i64) -> Result<Prepared> {
    let (t, n) = (lp.shape()[0], lp.shape()[1]);
    let s = targets.shape()[1];
    let blanks = full(&[n, s], blank, Some(DType::Int64))?;
    let pairs = stack(&[blanks, targets.clone()], 2)?.reshape(&[n as isize, 2 * s as isize])?;
    let ext = cat(&[pairs, full(&[n, 1], blank, Some(DType::Int64))?], 1)?;
    let width = 2 * s + 1;
    let index = ext
        .unsqueeze(0)?
        .expand(&[t as isize, n as isize, width as isize])?;
    let lpe = lp.gather(2, &index.contiguous()?)?;
    let before = shift(&ext, 2, -1.0)?;
    let skip = ext.ne(blank)?.logical_and(&ext.ne(&before)?)?;
    let positions = arange(0, width as i64, 1)?.unsqueeze(0)?;
    Ok(Prepared {
        lpe,
        ext,
        skip,
        positions,
    })
}

/// The per-sample CTC negative log likelihood over (log_probs `[T, N, C]`, padded targets
/// `[N, S]`, input lengths `[N]`, target lengths `[N]`).
struct CtcLoss {
    blank: i64,
    zero_infinity: bool,
}

impl Function for CtcLoss {
    fn name(&self) -> &str {
        "CtcLossBackward"
    }

    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor> {
        let (lp, targets, input_lengths, target_lengths) =
            (&inputs[0], &inputs[1], &inputs[2], &inputs[3]);
        let p = prepare(lp, targets, self.blank)?;
        let t_max = lp.shape()[0];
        let start = where_cond(&p.positions.lt(2)?, p.lpe.select(0, 0)?.into(), NEG.into())?;
        let mut alphas = vec![start];
        for t in 1..t_max {
            let prev = &alphas[t - 1];
            let one = shift(prev, 1, NEG)?;
            let two = where_cond(&p.skip, shift(prev, 2, NEG)?.into(), NEG.into())?;
            let next = p
                .lpe
                .select(0, t as isize)?
                .add(&logsumexp(&[prev, &one, &two])?)?;
            let running = input_lengths.gt(t as i64)?.unsqueeze(1)?;
            alphas.push(where_cond(&running, next.into(), prev.into())?);
        }
        let last = &alphas[t_max - 1];
        let end = target_lengths.mul(2)?.unsqueeze(1)?;
        let l1 = last.gather(1, &end)?;
        let l2 = last.gather(1, &end.sub(1)?.clamp_min(0)?)?;
        let l2 = where_cond(&end.gt(0)?, l2.into(), NEG.into())?;
        let nll = logsumexp(&[&l1, &l2])?.neg()?.squeeze_dims(&[1])?;
        let alpha = stack(&alphas, 0)?;
        ctx.save_for_backward(&[lp, targets, input_lengths, target_lengths, &alpha, &nll]);
        if self.zero_infinity {
            return nll.masked_fill(&nll.isinf()?, 0.0);
        }
        Ok(nll)
    }

    fn backward(&self, ctx: &Ctx, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let saved = ctx.saved_tensors();
        let (lp, targets, input_lengths, target_lengths) =
            (&saved[0], &saved[1], &saved[2], &saved[3]);
        let (alpha, nll) = (&saved[4], &saved[5]);
        let p = prepare(lp, targets, self.blank)?;
        let (t_max, n, classes) = (lp.shape()[0], lp.shape()[1], lp.shape()[2]);
        let width = p.ext.shape()[1];
        let ends = target_lengths.mul(2)?.unsqueeze(1)?;
        let at_end = p
            .positions
            .eq(&ends)?
            .logical_or(&p.positions.eq(&ends.sub(1)?)?)?;
        let skip_next = shift(&p.skip.to_dtype(DType::Float32)?, -2, 0.0)?.gt(0.0)?;
        let last_t = input_lengths.sub(1)?.unsqueeze(1)?;
        let mut beta = full(&[n, width], NEG, Some(DType::Float32))?;
        let mut grads = vec![None; t_max];
        // An infinite loss (no alignment) gets no gradient with zero_infinity, as torch.
        let finite = nll.isinf()?.logical_not()?.unsqueeze(1)?;
        for t in (0..t_max).rev() {
            let lpe_t = p.lpe.select(0, t as isize)?;
            let one = shift(&beta, -1, NEG)?;
            let two = where_cond(&skip_next, shift(&beta, -2, NEG)?.into(), NEG.into())?;
            let next = lpe_t.add(&logsumexp(&[&beta, &one, &two])?)?;
            let init = where_cond(&at_end, lpe_t.into(), NEG.into())?;
            let ti = t as i64;
            let later = where_cond(&last_t.gt(ti)?, next.into(), NEG.into())?;
            beta = where_cond(&last_t.eq(ti)?, init.into(), later.into())?;
            // log Σ_{s: ext(s) = c} alpha_t(s) beta_t(s), per class c.
            let ab = alpha.select(0, t as isize)?.add(&beta)?;
            let m = ab.amax(Some(&[1]), true)?;
            let m = m.masked_fill(&m.eq(NEG)?, 0.0)?;
            let per_class = borch_tensor::zeros(&[n, classes], DType::Float32)?.scatter_add(
                1,
                &p.ext,
                &ab.sub(&m)?.exp()?,
            )?;
            let lcab = per_class.log()?.add(&m)?;
            let lp_t = lp.select(0, t as isize)?;
            let g = lp_t
                .exp()?
                .sub(&lcab.add(&nll.unsqueeze(1)?)?.sub(&lp_t)?.exp()?)?;
            let mut keep = input_lengths.gt(ti)?.unsqueeze(1)?;
            if self.zero_infinity {
                keep = keep.logical_and(&finite)?;
            }
            let g = where_cond(&keep, g.into(), 0.0.into())?;
            grads[t] = Some(g.mul(&grad.unsqueeze(1)?)?);
        }
        let grads: Vec<Tensor> = grads.into_iter().map(|g| g.expect("every step")).collect();
        Ok(vec![Some(stack(&grads, 0)?), None, None, None])
    }
}

/// A length argument: a tensor, or a list of ints (torch takes both).
pub enum Lengths {
    /// A tensor of lengths.
    Tensor(Tensor),
    /// A list of lengths.
    Ints(Vec<i64>),
}

impl Lengths {
    fn tensor(&self) -> Result<Tensor> {
        match self {
            Lengths::Tensor(t) => Ok(t.clone()),
            Lengths::Ints(v) => Tensor::new(v.clone()),
        }
    }
}

/// The 1-D concatenated targets of torch as a padded `[N, total]` matrix (each sample's
/// targets start at the sum of the earlier lengths; positions past a length are unused).
fn padded(targets: &Tensor, lengths: &Tensor) -> Result<Tensor> {
    let total = targets.numel().max(1);
    let n = lengths.numel();
    let starts = lengths.cumsum(0)?.sub(lengths)?.unsqueeze(1)?;
    let index = arange(0, total as i64, 1)?.unsqueeze(0)?.add(&starts)?;
    let index = index.clamp_max(targets.numel().saturating_sub(1) as i64)?;
    let source = if targets.numel() == 0 {
        full(&[1], 0, Some(DType::Int64))?
    } else {
        targets.clone()
    };
    source
        .index_select(0, &index.reshape(&[-1])?)?
        .reshape(&[n as isize, total as isize])
}

/// torch's `F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
/// zero_infinity)`: `log_probs` `(T, N, C)` or unbatched `(T, C)`; targets padded `(N, S)` or
/// concatenated 1-D.
pub fn ctc_loss(
    log_probs: &Tensor,
    targets: &Tensor,
    input_lengths: &Lengths,
    target_lengths: &Lengths,
    blank: i64,
    reduction: Reduction,
    zero_infinity: bool,
) -> Result<Tensor> {
    reduction.plain()?;
    let batched = log_probs.dim() == 3;
    if !matches!(log_probs.dim(), 2 | 3) {
        return runtime(format!(
            "ctc_loss: expected log_probs to be 2-D or 3-D, but got {}-D",
            log_probs.dim()
        ));
    }
    let lp = if batched {
        log_probs.clone()
    } else {
        log_probs.unsqueeze(1)?
    };
    let input_lengths = input_lengths.tensor()?.reshape(&[-1])?;
    let target_lengths = target_lengths.tensor()?.reshape(&[-1])?;
    for (t, name) in [(&input_lengths, "input"), (&target_lengths, "target")] {
        if t.dtype() != DType::Int64 {
            return runtime(format!(
                "ctc_loss: {name}_lengths must be integral, but got {}",
                t.dtype().scalar_type_name()
            ));
        }
    }
    let (n, classes) = (lp.shape()[1], lp.shape()[2]);
    if blank < 0 || blank >= classes as i64 {
        return runtime("blank must be in label range".into());
    }
    if input_lengths.numel() != n {
        return runtime("input_lengths must be of size batch_size".into());
    }
    if target_lengths.numel() != n {
        return runtime("target_lengths must be of size batch_size".into());
    }
    if targets.dtype() != DType::Int64 {
        return runtime(format!(
            "ctc_loss: targets must be integral, but got {}",
            targets.dtype().scalar_type_name()
        ));
    }
    let targets = match (batched, targets.dim()) {
        (_, 1) if !batched => targets.unsqueeze(0)?,
        (true, 1) => padded(targets, &target_lengths)?,
        (true, 2) if targets.shape()[0] == n => targets.clone(),
        _ => {
            return runtime(format!(
                "ctc_loss: expected targets of shape (N, S) or concatenated 1-D, but got {:?}",
                targets.shape()
            ));
        }
    };
    let nll = apply(
        CtcLoss {
            blank,
            zero_infinity,
        },
        &[lp, targets, input_lengths, target_lengths.clone()],
    )?;
    let per_sample = if batched { nll } else { nll.reshape(&[])? };
    match reduction {
        Reduction::Mean => {
            let lengths = target_lengths.to_dtype(DType::Float32)?.clamp_min(1.0)?;
            let lengths = if batched {
                lengths
            } else {
                lengths.reshape(&[])?
            };
            per_sample.div(&lengths)?.mean(None, false)
        }
        r => r.apply(&per_sample),
    }
}
