//! The batched path of the transforms (`Transform::forward_batch`, what a dataset uses to
//! transform a whole minibatch): for the same seed it gives exactly what `forward` gives each
//! image in turn (the per-image path is the one checked against torchvision in
//! transforms_fixtures.rs), leaves the generator in the same state, and costs a few dispatches
//! per batch instead of a few per image.

use std::rc::Rc;

use borch_data::{DataLoader, DataLoaderOptions, Dataset, Sample};
use borch_tensor::{Result, Tensor, default_device, default_generator, manual_seed, rand, stack};
use borch_vision::datasets::{Digits, VisionOptions};
use borch_vision::transforms::{
    Compose, Normalize, RandomCrop, RandomHorizontalFlip, RandomVerticalFlip, Transform,
};

const DIGITS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/digits/digits.csv.gz");

/// Per image and batched from the same seed: the outputs and the generator's next draw.
fn both_ways(t: &dyn Transform, batch: &Tensor) -> Result<()> {
    manual_seed(7);
    let n = batch.shape()[0];
    let images = (0..n)
        .map(|i| t.forward(&batch.select(0, i as isize)?))
        .collect::<Result<Vec<_>>>()?;
    let per_image = stack(&images, 0)?.to_vec_blocking::<f32>()?;
    let next_per_image = default_generator().get_state();
    manual_seed(7);
    let batched = t.forward_batch(batch)?;
    assert_eq!(batched.shape(), stack(&images, 0)?.shape());
    assert!(
        batched.to_vec_blocking::<f32>()? == per_image,
        "values differ"
    );
    assert_eq!(default_generator().get_state(), next_per_image);
    Ok(())
}

// One test: the default generator is shared by the test threads.
#[test]
fn batched_transforms() -> Result<()> {
    batched_transforms_equal_per_image()?;
    digits_loader_crops_in_batches()
}

fn batched_transforms_equal_per_image() -> Result<()> {
    manual_seed(0);
    let batch = rand(&[6, 2, 5, 7], None)?;
    let cases: Vec<(&str, Box<dyn Transform>)> = vec![
        ("RandomCrop(4)", Box::new(RandomCrop::new(&[4]))),
        (
            "RandomCrop((5, 7), padding=2)",
            Box::new(RandomCrop::new(&[5, 7]).padding(&[2])),
        ),
        (
            "RandomCrop(6, padding=(1, 2), padding_mode='reflect')",
            Box::new(
                RandomCrop::new(&[6])
                    .padding(&[1, 2])
                    .padding_mode("reflect"),
            ),
        ),
        (
            "RandomCrop(8, pad_if_needed=True, fill=0.5)",
            Box::new(RandomCrop::new(&[8]).pad_if_needed(true).fill(0.5)),
        ),
        (
            "RandomHorizontalFlip(0.5)",
            Box::new(RandomHorizontalFlip::new(0.5)),
        ),
        (
            "RandomVerticalFlip(0.3)",
            Box::new(RandomVerticalFlip::new(0.3)),
        ),
        (
            "Compose([RandomCrop(5, padding=1, padding_mode='edge'), Normalize])",
            Box::new(Compose::new(vec![
                Box::new(RandomCrop::new(&[5]).padding(&[1]).padding_mode("edge")),
                Box::new(Normalize::new(&[0.5, 0.25], &[0.2, 0.4])),
            ])),
        ),
    ];
    for (name, t) in &cases {
        assert!(t.batches(), "{name} has a batched path");
        both_ways(t.as_ref(), &batch).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("batched = per image: {name}");
    }
    // Two random transforms would draw in another order batched: the per-image path is kept.
    let two = Compose::new(vec![
        Box::new(RandomCrop::new(&[4])),
        Box::new(RandomHorizontalFlip::new(0.5)),
    ]);
    assert!(!two.batches());
    assert!(
        RandomCrop::new(&[4])
            .forward_batch(&batch.select(0, 0)?)
            .is_err()
    );
    Ok(())
}

/// A DataLoader over the digits with a RandomCrop: batches equal the per-image path's
/// (`default_collate` of `get`), at a handful of dispatches per batch.
fn digits_loader_crops_in_batches() -> Result<()> {
    let crop =
        || -> Option<Box<dyn Transform>> { Some(Box::new(RandomCrop::new(&[8]).padding(&[1]))) };
    let digits = Rc::new(Digits::new(
        DIGITS,
        VisionOptions {
            transform: crop(),
            ..VisionOptions::default()
        },
    )?);
    let indices: Vec<usize> = (100..132).collect();
    manual_seed(3);
    let device = default_device()?;
    let d0 = device.dispatches();
    let Some(batch) = digits.get_batch(&indices) else {
        panic!("a RandomCrop dataset batches")
    };
    let batched = batch?.tensors()?;
    let dispatches = device.dispatches() - d0;
    manual_seed(3);
    let d1 = device.dispatches();
    let mut images = Vec::new();
    for &i in &indices {
        let Sample::Tuple(s) = digits.get(i as i64)? else {
            panic!("a digits sample is a tuple")
        };
        images.push(s[0].tensor()?.clone());
    }
    let per_image = stack(&images, 0)?;
    let per_image_dispatches = device.dispatches() - d1;
    assert_eq!(batched[0].shape(), &[32, 1, 8, 8]);
    assert!(
        batched[0].to_vec_blocking::<f32>()? == per_image.to_vec_blocking::<f32>()?,
        "a batch differs from its images"
    );
    println!(
        "a cropped batch of 32 digits: {dispatches} dispatches (image by image, then stacked: \
         {per_image_dispatches})"
    );
    assert!(
        dispatches <= 4,
        "{dispatches} dispatches for a cropped batch"
    );

    let loader = DataLoader::new(
        digits,
        DataLoaderOptions {
            batch_size: Some(64),
            shuffle: Some(true),
            ..DataLoaderOptions::default()
        },
    )?;
    let first = loader.iter()?.next().expect("a batch")?.tensors()?;
    assert_eq!(first[0].shape(), &[64, 1, 8, 8]);
    Ok(())
}
