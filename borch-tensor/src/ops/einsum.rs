//! torch's `einsum(equation, *operands)`, composed from recorded views, sums and `bmm`: each
//! operand's labels found only in it are summed out, then operands are contracted pairwise, left
//! to right, as one batched matrix product each. `...` stands for broadcast dims. A label
//! repeated within one operand (a diagonal) is refused.

use crate::error::{BorchError, Result, not_impl};
use crate::tensor::Tensor;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(format!("einsum(): {}", msg.into())))
}

/// An operand with one label per dim.
struct Labelled {
    t: Tensor,
    labels: Vec<char>,
}

/// Ellipsis dims become the labels '0', '1', … (right-aligned across operands).
fn parse_term(term: &str, rank: usize, ell: usize, index: usize) -> Result<Vec<char>> {
    let mut labels = Vec::new();
    let mut rest = term;
    let mut seen_ellipsis = false;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if seen_ellipsis {
                return err("found more than one '...' in an operand's subscripts");
            }
            seen_ellipsis = true;
            let named = term
                .replace("...", "")
                .chars()
                .filter(|c| !c.is_whitespace())
                .count();
            if rank < named {
                return err(format!(
                    "the number of subscripts in the equation ({named}) is more than the number \
                     of dimensions ({rank}) for operand {index}"
                ));
            }
            let covered = rank - named;
            for k in 0..covered {
                labels.push(char::from(b'0' + (ell - covered + k) as u8));
            }
            rest = r;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        rest = &rest[c.len_utf8()..];
        if c.is_whitespace() {
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return err(format!(
                "invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]",
                term.find(c).unwrap_or(0)
            ));
        }
        labels.push(c);
    }
    if !seen_ellipsis && labels.len() != rank {
        return err(format!(
            "the number of subscripts in the equation ({}) does not match the number of \
             dimensions ({rank}) for operand {index} and no ellipsis was given",
            labels.len()
        ));
    }
    Ok(labels)
}

fn size_of(ops: &[Labelled], label: char) -> usize {
    ops.iter()
        .flat_map(|o| {
            o.labels
                .iter()
                .zip(o.t.shape())
                .filter(|(l, _)| **l == label)
                .map(|(_, s)| *s)
        })
        .max()
        .unwrap_or(1)
}

/// Sum out `op`'s labels not in `keep`.
fn sum_out(op: Labelled, keep: &[char]) -> Result<Labelled> {
    let dims: Vec<isize> = op
        .labels
        .iter()
        .enumerate()
        .filter(|(_, l)| !keep.contains(l))
        .map(|(i, _)| i as isize)
        .collect();
    if dims.is_empty() {
        return Ok(op);
    }
    let labels = op
        .labels
        .iter()
        .copied()
        .filter(|l| keep.contains(l))
        .collect();
    Ok(Labelled {
        t: op.t.sum(Some(&dims), false)?,
        labels,
    })
}

/// `op` with its dims in the order `order` (every label of `op`), sizes broadcast to `sizes`.
fn arrange(op: &Labelled, order: &[char], sizes: &[usize]) -> Result<Tensor> {
    let perm: Vec<isize> = order
        .iter()
        .map(|l| op.labels.iter().position(|x| x == l).unwrap_or(0) as isize)
        .collect();
    op.t.permute(&perm)?
        .expand(&sizes.iter().map(|&s| s as isize).collect::<Vec<_>>())
}

fn contract(a: Labelled, b: Labelled, keep: &[char], all: &[Labelled]) -> Result<Labelled> {
    let batch: Vec<char> = a
        .labels
        .iter()
        .copied()
        .filter(|l| b.labels.contains(l) && keep.contains(l))
        .collect();
    let summed: Vec<char> = a
        .labels
        .iter()
        .copied()
        .filter(|l| b.labels.contains(l) && !keep.contains(l))
        .collect();
    let left: Vec<char> = a
        .labels
        .iter()
        .copied()
        .filter(|l| !b.labels.contains(l))
        .collect();
    let right: Vec<char> = b
        .labels
        .iter()
        .copied()
        .filter(|l| !a.labels.contains(l))
        .collect();
    let sz = |ls: &[char]| ls.iter().map(|&l| size_of(all, l)).collect::<Vec<usize>>();
    let (bs, ss, ls, rs) = (sz(&batch), sz(&summed), sz(&left), sz(&right));
    let prod = |v: &[usize]| v.iter().product::<usize>() as isize;
    let a_order = [batch.clone(), left.clone(), summed.clone()].concat();
    let b_order = [batch.clone(), summed.clone(), right.clone()].concat();
    let at = arrange(&a, &a_order, &[bs.clone(), ls.clone(), ss.clone()].concat())?.reshape(&[
        prod(&bs),
        prod(&ls),
        prod(&ss),
    ])?;
    let bt = arrange(&b, &b_order, &[bs.clone(), ss.clone(), rs.clone()].concat())?.reshape(&[
        prod(&bs),
        prod(&ss),
        prod(&rs),
    ])?;
    let out_shape: Vec<isize> = [bs, ls, rs].concat().iter().map(|&s| s as isize).collect();
    let t = at.bmm(&bt)?.reshape(&out_shape)?;
    Ok(Labelled {
        t,
        labels: [batch, left, right].concat(),
    })
}

/// torch's `einsum(equation, operands)`.
pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    let (lhs, rhs) = match equation.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (equation, None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != operands.len() {
        return err("more operands were provided than specified in the equation");
    }
    if operands.is_empty() {
        return err("must provide at least one operand");
    }
    let ell = terms
        .iter()
        .zip(operands)
        .filter(|(t, _)| t.contains("..."))
        .map(|(t, o)| {
            o.dim()
                - t.replace("...", "")
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .count()
                    .min(o.dim())
        })
        .max()
        .unwrap_or(0);
    let mut ops = Vec::new();
    for (index, (term, t)) in terms.iter().zip(operands).enumerate() {
        let labels = parse_term(term, t.dim(), ell, index)?;
        for (i, l) in labels.iter().enumerate() {
            if labels[..i].contains(l) {
                return not_impl(format!(
                    "einsum with the subscript '{l}' repeated within one operand (a diagonal)"
                ));
            }
        }
        ops.push(Labelled {
            t: t.clone(),
            labels,
        });
    }
    let ell_labels: Vec<char> = (0..ell).map(|k| char::from(b'0' + k as u8)).collect();
    let output: Vec<char> = match rhs {
        Some(r) => {
            let mut out = Vec::new();
            let mut rest = r.trim();
            while !rest.is_empty() {
                if let Some(x) = rest.strip_prefix("...") {
                    out.extend(&ell_labels);
                    rest = x;
                    continue;
                }
                let c = rest.chars().next().unwrap_or(' ');
                rest = &rest[c.len_utf8()..];
                if c.is_whitespace() {
                    continue;
                }
                if !ops.iter().any(|o| o.labels.contains(&c)) {
                    return err(format!(
                        "output subscript {c} does not appear in the equation for any input operand"
                    ));
                }
                if out.contains(&c) {
                    return err(format!(
                        "output subscript {c} appears more than once in the output"
                    ));
                }
                out.push(c);
            }
            out
        }
        None => {
            let mut once: Vec<char> = ops
                .iter()
                .flat_map(|o| o.labels.iter().copied())
                .filter(|c| c.is_ascii_alphabetic())
                .collect();
            once.sort_unstable();
            let counted: Vec<char> = once
                .iter()
                .copied()
                .filter(|c| once.iter().filter(|x| *x == c).count() == 1)
                .collect();
            [ell_labels.clone(), counted].concat()
        }
    };
    // Check sizes agree (or broadcast from 1), in torch's order and words.
    let mut seen: Vec<(char, usize)> = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        for (l, &s) in o.labels.iter().zip(o.t.shape()) {
            match seen.iter_mut().find(|(x, _)| x == l) {
                None => seen.push((*l, s)),
                Some((_, prev)) if *prev == 1 => *prev = s,
                Some((_, prev)) if s != 1 && s != *prev => {
                    return err(format!(
                        "subscript {l} has size {s} for operand {k} which does not broadcast \
                         with previously seen size {prev}"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    let sizes_ops: Vec<Labelled> = ops
        .iter()
        .map(|o| Labelled {
            t: o.t.detach(),
            labels: o.labels.clone(),
        })
        .collect();
    let mut pending: Vec<Labelled> = ops;
    let mut acc: Option<Labelled> = None;
    while !pending.is_empty() {
        let next = pending.remove(0);
        let later: Vec<char> = pending
            .iter()
            .flat_map(|o| o.labels.iter().copied())
            .collect();
        let keep_for = |other: &[char]| -> Vec<char> {
            let mut k = output.clone();
            k.extend(later.iter().copied());
            k.extend(other.iter().copied());
            k
        };
        acc = Some(match acc.take() {
            None => sum_out(next, &keep_for(&[]))?,
            Some(a) => {
                let next = sum_out(next, &keep_for(&a.labels))?;
                let mut keep = output.clone();
                keep.extend(later.iter().copied());
                contract(a, next, &keep, &sizes_ops)?
            }
        });
    }
    let result = sum_out(acc.expect("at least one operand"), &output)?;
    let sizes: Vec<usize> = output.iter().map(|&l| size_of(&sizes_ops, l)).collect();
    let perm: Vec<isize> = output
        .iter()
        .map(|l| result.labels.iter().position(|x| x == l).unwrap_or(0) as isize)
        .collect();
    let t = result.t.permute(&perm)?;
    if t.shape() != sizes.as_slice() {
        return t
            .expand(&sizes.iter().map(|&s| s as isize).collect::<Vec<_>>())?
            .contiguous();
    }
    Ok(t)
}
