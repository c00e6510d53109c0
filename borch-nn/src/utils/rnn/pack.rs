//! torch's `PackedSequence`: the time steps of a batch of sequences sorted by length,
//! concatenated (step 0 of every sequence, then step 1 of those that have one, …), with the
//! number of sequences at each step (`batch_sizes`) and the sorting permutation. Packing and
//! unpacking are one `index_select` each (host-computed rows), so gradients flow through them.

use borch_tensor::{BorchError, Result, Tensor, cat, full};

use super::pad::pad_sequence;
use crate::functional::padding::index_tensor as index;

/// torch's `nn.utils.rnn.PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)`.
/// `batch_sizes`, `sorted_indices` and `unsorted_indices` live on the host (torch keeps
/// `batch_sizes` on the CPU too); the `*_tensor` methods give them as int64 tensors.
#[derive(Clone)]
pub struct PackedSequence {
    /// torch's `data`: the packed time steps.
    pub data: Tensor,
    /// torch's `batch_sizes`: the batch size at each time step.
    pub batch_sizes: Vec<i64>,
    /// torch's `sorted_indices`: the order the sequences were sorted into, if sorted.
    pub sorted_indices: Option<Vec<i64>>,
    /// torch's `unsorted_indices`: the inverse of `sorted_indices`.
    pub unsorted_indices: Option<Vec<i64>>,
}

fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}

impl PackedSequence {
    /// torch's `PackedSequence(data, batch_sizes, sorted_indices)`: `unsorted_indices` is the
    /// inverse permutation of `sorted_indices`.
    pub fn new(
        data: Tensor,
        batch_sizes: Vec<i64>,
        sorted_indices: Option<Vec<i64>>,
    ) -> Result<PackedSequence> {
        let rows: i64 = batch_sizes.iter().sum();
        if data.dim() == 0 || data.shape()[0] as i64 != rows {
            return runtime(format!(
                "PackedSequence: data has {} rows but batch_sizes sum to {rows}",
                data.shape().first().copied().unwrap_or(0)
            ));
        }
        if batch_sizes.windows(2).any(|w| w[1] > w[0]) || batch_sizes.iter().any(|&b| b <= 0) {
            return runtime("PackedSequence: batch_sizes must be positive and non-increasing");
        }
        let unsorted_indices = match &sorted_indices {
            Some(s) => Some(invert_permutation(s, batch_sizes[0])?),
            None => None,
        };
        Ok(PackedSequence {
            data,
            batch_sizes,
            sorted_indices,
            unsorted_indices,
        })
    }

    /// `batch_sizes` as an int64 tensor (torch's attribute is one).
    pub fn batch_sizes_tensor(&self) -> Result<Tensor> {
        index(&self.batch_sizes)
    }

    /// `sorted_indices` as an int64 tensor.
    pub fn sorted_indices_tensor(&self) -> Result<Option<Tensor>> {
        self.sorted_indices.as_deref().map(index).transpose()
    }

    /// `unsorted_indices` as an int64 tensor.
    pub fn unsorted_indices_tensor(&self) -> Result<Option<Tensor>> {
        self.unsorted_indices.as_deref().map(index).transpose()
    }

    /// The number of sequences (`batch_sizes[0]`).
    pub fn batch(&self) -> usize {
        self.batch_sizes.first().copied().unwrap_or(0) as usize
    }

    /// Each sequence's length, in sorted order.
    pub fn sorted_lengths(&self) -> Vec<i64> {
        (0..self.batch() as i64)
            .map(|b| self.batch_sizes.iter().filter(|&&s| s > b).count() as i64)
            .collect()
    }

    /// The same sequence with other data of the same number of rows (a recurrent layer's
    /// output).
    pub fn with_data(&self, data: Tensor) -> PackedSequence {
        PackedSequence {
            data,
            ..self.clone()
        }
    }
}

/// torch's `invert_permutation`.
fn invert_permutation(perm: &[i64], n: i64) -> Result<Vec<i64>> {
    let mut inv = vec![-1i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        if p < 0 || p >= perm.len() as i64 || inv[p as usize] != -1 || perm.len() as i64 != n {
            return runtime("PackedSequence: sorted_indices must be a permutation of the batch");
        }
        inv[p as usize] = i as i64;
    }
    Ok(inv)
}

/// `lengths` sorted in decreasing order (ties keep their order, as torch's CPU sort does) and
/// the permutation that sorts them.
fn sort_descending(lengths: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut order: Vec<i64> = (0..lengths.len() as i64).collect();
    order.sort_by(|&a, &b| lengths[b as usize].cmp(&lengths[a as usize]));
    (order.iter().map(|&i| lengths[i as usize]).collect(), order)
}

/// torch's `pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True)`.
pub fn pack_padded_sequence(
    input: &Tensor,
    lengths: &[i64],
    batch_first: bool,
    enforce_sorted: bool,
) -> Result<PackedSequence> {
    if input.dim() < 2 {
        return runtime(format!(
            "pack_padded_sequence: expected input of at least 2 dimensions (time and batch), got \
             {}D",
            input.dim()
        ));
    }
    let batch_dim = if batch_first { 0 } else { 1 };
    let (lengths, sorted) = if enforce_sorted {
        (lengths.to_vec(), None)
    } else {
        let (l, order) = sort_descending(lengths);
        (l, Some(order))
    };
    // As torch: the batch is whatever the sorted lengths select.
    let input = match &sorted {
        Some(order) => input.index_select(batch_dim as isize, &index(order)?)?,
        None => input.clone(),
    };
    let x = if batch_first {
        input.transpose(0, 1)?
    } else {
        input
    };
    if x.numel() == 0 {
        return runtime("Cannot pack empty tensors.");
    }
    let (steps, batch) = (x.shape()[0], x.shape()[1]);
    if lengths.len() != batch {
        return runtime(format!(
            "Expected `len(lengths)` to be equal to batch_size, but got {} (batch_size={batch})",
            lengths.len()
        ));
    }
    if lengths[batch - 1] <= 0 {
        return runtime(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' \
             that is <= 0",
        );
    }
    if lengths.windows(2).any(|w| w[1] > w[0]) {
        return runtime(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. \
             You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to \
             sidestep this requirement if you do not need ONNX exportability.",
        );
    }
    if lengths[0] as usize > steps {
        return runtime(format!(
            "pack_padded_sequence: a length ({}) is longer than the padded sequence ({steps} \
             steps)",
            lengths[0]
        ));
    }
    let batch_sizes: Vec<i64> = (0..lengths[0])
        .map(|t| lengths.iter().filter(|&&l| l > t).count() as i64)
        .collect();
    let rows: Vec<i64> = batch_sizes
        .iter()
        .enumerate()
        .flat_map(|(t, &bs)| (0..bs).map(move |b| t as i64 * batch as i64 + b))
        .collect();
    let mut flat = vec![(steps * batch) as isize];
    flat.extend(x.shape()[2..].iter().map(|&d| d as isize));
    let data = x.reshape(&flat)?.index_select(0, &index(&rows)?)?;
    PackedSequence::new(data, batch_sizes, sorted)
}

/// torch's `pad_packed_sequence(sequence, batch_first=False, padding_value=0.0,
/// total_length=None) -> (padded, lengths)`.
pub fn pad_packed_sequence(
    sequence: &PackedSequence,
    batch_first: bool,
    padding_value: f64,
    total_length: Option<usize>,
) -> Result<(Tensor, Vec<i64>)> {
    let longest = sequence.batch_sizes.len();
    let steps = match total_length {
        Some(t) if t < longest => {
            return Err(BorchError::Value(format!(
                "Expected total_length to be at least the length of the longest sequence in \
                 input, but got total_length={t} and max sequence length being {longest}"
            )));
        }
        Some(t) => t,
        None => longest,
    };
    let batch = sequence.batch();
    let data = &sequence.data;
    let tail: Vec<usize> = data.shape()[1..].to_vec();
    let filler = data.shape()[0] as i64;
    let mut rows = vec![filler; steps * batch];
    let mut next = 0i64;
    for (t, &bs) in sequence.batch_sizes.iter().enumerate() {
        for b in 0..bs as usize {
            rows[t * batch + b] = next;
            next += 1;
        }
    }
    let mut fill_shape = vec![1];
    fill_shape.extend(&tail);
    let fill = full(&fill_shape, padding_value, Some(data.dtype()))?;
    let mut shape = vec![steps as isize, batch as isize];
    shape.extend(tail.iter().map(|&d| d as isize));
    let mut padded = cat(&[data.clone(), fill], 0)?
        .index_select(0, &index(&rows)?)?
        .reshape(&shape)?;
    if batch_first {
        padded = padded.transpose(0, 1)?;
    }
    let mut lengths = sequence.sorted_lengths();
    if let Some(unsorted) = &sequence.unsorted_indices {
        let batch_dim = if batch_first { 0 } else { 1 };
        padded = padded.index_select(batch_dim, &index(unsorted)?)?;
        lengths = unsorted.iter().map(|&i| lengths[i as usize]).collect();
    }
    Ok((padded, lengths))
}

/// torch's `pack_sequence(sequences, enforce_sorted=True)`.
pub fn pack_sequence(sequences: &[Tensor], enforce_sorted: bool) -> Result<PackedSequence> {
    let lengths: Vec<i64> = sequences
        .iter()
        .map(|s| s.shape().first().copied().unwrap_or(0) as i64)
        .collect();
    let padded = pad_sequence(sequences, false, 0.0, "right")?;
    pack_padded_sequence(&padded, &lengths, false, enforce_sorted)
}

/// torch's `unpad_sequence(padded_sequences, lengths, batch_first=False)`.
pub fn unpad_sequence(padded: &Tensor, lengths: &[i64], batch_first: bool) -> Result<Vec<Tensor>> {
    let x = if batch_first {
        padded.clone()
    } else {
        padded.transpose(0, 1)?
    };
    if x.dim() < 2 || lengths.len() != x.shape()[0] {
        return runtime(format!(
            "unpad_sequence: {} lengths for a batch of {}",
            lengths.len(),
            x.shape().first().copied().unwrap_or(0)
        ));
    }
    lengths
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            if l < 0 || l as usize > x.shape()[1] {
                return runtime(format!(
                    "unpad_sequence: length {l} of a sequence padded to {}",
                    x.shape()[1]
                ));
            }
            x.select(0, i as isize)?.narrow(0, 0, l as usize)
        })
        .collect()
}

/// torch's `unpack_sequence(packed_sequences)`: the sequences, in their original order.
pub fn unpack_sequence(packed: &PackedSequence) -> Result<Vec<Tensor>> {
    let (padded, lengths) = pad_packed_sequence(packed, true, 0.0, None)?;
    unpad_sequence(&padded, &lengths, true)
}
