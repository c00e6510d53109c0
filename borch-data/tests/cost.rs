//! What a DataLoader batch costs on the GPU: over a `TensorDataset` with the default collation,
//! one gather (`index_select`) per tensor — not a `select` per sample and a copy each into a
//! `stack`.

use std::rc::Rc;

use borch_data::{DataLoader, DataLoaderOptions, TensorDataset, default_collate};
use borch_tensor::{Tensor, default_device};

fn loader(per_sample: bool) -> DataLoader {
    let x = Tensor::from_slice(&(0..64 * 3).map(|v| v as f32).collect::<Vec<_>>(), &[64, 3])
        .expect("x");
    let y = Tensor::from_slice(&(0..64).collect::<Vec<i64>>(), &[64]).expect("y");
    let dataset = Rc::new(TensorDataset::new(vec![x, y]).expect("dataset"));
    let mut options = DataLoaderOptions {
        batch_size: Some(16),
        shuffle: Some(true),
        ..Default::default()
    };
    if per_sample {
        options.collate_fn = Some(Rc::new(default_collate));
    }
    DataLoader::new(dataset, options).expect("loader")
}

/// Dispatches per batch over one pass (4 batches of 16), and the batches' values.
fn pass(per_sample: bool) -> (u64, Vec<Vec<f32>>) {
    let dev = default_device().expect("device");
    let loader = loader(per_sample);
    borch_tensor::manual_seed(3);
    let d0 = dev.dispatches();
    let batches: Vec<_> = loader
        .iter()
        .expect("iter")
        .map(|b| b.expect("batch").tensors().expect("tensors"))
        .collect();
    let per_batch = (dev.dispatches() - d0) / batches.len() as u64;
    let values = batches
        .iter()
        .map(|b| b[0].to_vec_blocking::<f32>().expect("read"))
        .collect();
    (per_batch, values)
}

#[test]
fn a_tensor_dataset_batch_is_one_gather_per_tensor() {
    let (gathered, fast) = pass(false);
    let (stacked, slow) = pass(true);
    println!("dispatches per batch: {gathered} gathered, {stacked} sample by sample");
    assert_eq!(fast, slow, "both paths give the same batches");
    assert!(gathered <= 2, "{gathered} dispatches for a batch of (x, y)");
    assert!(stacked > gathered);
}
