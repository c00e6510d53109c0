//! The dataset readers against what torchvision 0.29's CIFAR10 / CIFAR100 / MNIST classes read
//! from the same synthetic files (`tests/vision/files/`, written by
//! `tests/vision/fixtures_torchvision.py`), a DataLoader over them, and malformed files.

mod common;

use std::rc::Rc;

use borch_data::{DataLoader, DataLoaderOptions, Dataset, Sample};
use borch_tensor::Result;
use borch_vision::datasets::{
    CIFAR10, CIFAR100, Digits, FashionMNIST, MNIST, VisionOptions, read_idx,
};
use borch_vision::transforms::RandomHorizontalFlip;

fn options(train: bool) -> VisionOptions {
    VisionOptions {
        train,
        ..Default::default()
    }
}

fn open(class: &str, train: bool) -> Result<Rc<dyn Dataset>> {
    let root = common::files();
    Ok(match class {
        "CIFAR10" => Rc::new(CIFAR10::new(&root, options(train))?),
        "CIFAR100" => Rc::new(CIFAR100::new(&root, options(train))?),
        "MNIST" => Rc::new(MNIST::new(&root, options(train))?),
        other => panic!("{other}"),
    })
}

#[test]
fn readers_match_torchvision() -> Result<()> {
    let (mut samples, mut datasets) = (0, 0);
    for case in common::cases().iter().filter(|c| c["kind"] == "dataset") {
        let (class, train) = (
            case["class"].as_str().unwrap(),
            case["train"].as_bool().unwrap(),
        );
        let ds = open(class, train)?;
        assert_eq!(
            ds.len() as u64,
            case["len"].as_u64().unwrap(),
            "{class} train={train}"
        );
        for (i, item) in case["items"].as_array().unwrap().iter().enumerate() {
            let s = ds.get(i as i64)?;
            let parts = s.items()?;
            let x = parts[0].tensor()?;
            let Sample::Int(label) = parts[1] else {
                panic!("label")
            };
            assert_eq!(label, item["label"].as_i64().unwrap(), "{class} {i}");
            let shape: Vec<usize> = item["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(x.shape(), shape.as_slice());
            let v: Vec<f32> = x.to_vec_blocking()?;
            let sum: f64 = v.iter().map(|&p| p as f64).sum();
            assert!(
                (sum - item["sum"].as_f64().unwrap()).abs() < 1e-3,
                "{class} {i}: sum {sum}"
            );
            for (k, want) in item["first"].as_array().unwrap().iter().enumerate() {
                assert_eq!(v[k], want.as_f64().unwrap() as f32, "{class} {i} value {k}");
            }
            samples += 1;
        }
        datasets += 1;
    }
    println!(
        "vision dataset fixtures: {datasets} splits, {samples} samples agreeing with torchvision"
    );
    assert_eq!(datasets, 6);
    Ok(())
}

#[test]
fn raw_bytes_and_byte_sums_match() -> Result<()> {
    let case = common::cases()
        .into_iter()
        .find(|c| c["class"] == "CIFAR10" && c["train"] == true)
        .unwrap();
    let ds = CIFAR10::new(common::files(), options(true))?;
    for (i, item) in case["items"].as_array().unwrap().iter().enumerate() {
        let hwc = ds.data(i).unwrap();
        assert_eq!(hwc.len(), 32 * 32 * 3);
        let sum: u64 = hwc.iter().map(|&b| b as u64).sum();
        assert_eq!(sum, item["byte_sum"].as_u64().unwrap());
    }
    assert_eq!(ds.targets().len(), 5);
    let c100 = CIFAR100::new(common::files(), options(false))?;
    assert_eq!(c100.coarse_targets().len(), 2);
    Ok(())
}

#[test]
fn from_bytes_and_fashion_mnist() -> Result<()> {
    let raw = common::files().join("MNIST/raw");
    let images = std::fs::read(raw.join("t10k-images-idx3-ubyte.gz")).unwrap();
    let labels = std::fs::read(raw.join("t10k-labels-idx1-ubyte.gz")).unwrap();
    let a = MNIST::from_bytes(&images, &labels, VisionOptions::default())?;
    let b = MNIST::new(common::files(), VisionOptions::test())?;
    assert_eq!(a.targets(), b.targets());
    assert_eq!(a.data(2), b.data(2));
    let f = FashionMNIST::from_bytes(&images, &labels, VisionOptions::default())?;
    assert_eq!(f.len(), 3);
    let e = FashionMNIST::new(common::files(), VisionOptions::default())
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .starts_with("Dataset not found: FashionMNIST expects train-images-idx3-ubyte"),
        "{e}"
    );
    let batches: Vec<Vec<u8>> = (1..=5)
        .map(|k| {
            std::fs::read(common::files().join(format!("cifar-10-batches-bin/data_batch_{k}.bin")))
                .unwrap()
        })
        .collect();
    let refs: Vec<&[u8]> = batches.iter().map(Vec::as_slice).collect();
    let c = CIFAR10::from_bytes(&refs, VisionOptions::default())?;
    assert_eq!(
        c.targets(),
        CIFAR10::new(common::files(), options(true))?.targets()
    );
    Ok(())
}

#[test]
fn a_dataloader_batches_them() -> Result<()> {
    let ds = Rc::new(CIFAR10::new(common::files(), options(true))?);
    let loader = DataLoader::new(
        ds.clone(),
        DataLoaderOptions {
            batch_size: Some(2),
            ..Default::default()
        },
    )?;
    let batches: Vec<Sample> = loader.iter()?.collect::<Result<_>>()?;
    assert_eq!(batches.len(), 3);
    let xy = batches[0].tensors()?;
    assert_eq!(xy[0].shape(), &[2, 3, 32, 32]);
    assert_eq!(xy[1].to_vec_blocking::<i64>()?, ds.targets()[..2].to_vec());
    // the gathered batch equals get + stack
    let one = ds.get(1)?.items()?[0].tensor()?.to_vec_blocking::<f32>()?;
    let gathered = xy[0]
        .narrow(0, 1, 1)?
        .contiguous()?
        .to_vec_blocking::<f32>()?;
    assert_eq!(one, gathered);
    // with a transform, sample by sample
    let flipped = Rc::new(MNIST::new(
        common::files(),
        VisionOptions {
            transform: Some(Box::new(RandomHorizontalFlip::new(1.0))),
            ..Default::default()
        },
    )?);
    let loader = DataLoader::new(
        flipped,
        DataLoaderOptions {
            batch_size: Some(4),
            ..Default::default()
        },
    )?;
    let xy = loader.iter()?.next().unwrap()?.tensors()?;
    assert_eq!(xy[0].shape(), &[4, 1, 28, 28]);
    let digits = Digits::new(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../data/digits/digits.csv.gz"),
        VisionOptions::default(),
    )?;
    assert_eq!(digits.len(), 1797);
    let x = digits.get(0)?.items()?[0]
        .tensor()?
        .to_vec_blocking::<f32>()?;
    assert_eq!(x[2], 5.0 / 16.0); // first row of the file: 0,0,5,13,...
    assert_eq!(digits.targets()[0], 0);
    Ok(())
}

#[test]
fn malformed_files_are_clear_errors() {
    let err = |r: Result<()>| r.unwrap_err().to_string();
    let idx = |dims: &[u32], data: usize| {
        let mut b = vec![0, 0, 8, dims.len() as u8];
        for d in dims {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b.extend(std::iter::repeat_n(7u8, data));
        b
    };
    assert!(err(read_idx(&[0, 0], "f").map(drop)).contains("too short"));
    assert!(
        err(read_idx(&[1, 2, 8, 1, 0, 0, 0, 1, 5], "f").map(drop))
            .contains("wrong magic number 01020801")
    );
    assert!(
        err(read_idx(&[0, 0, 0x0d, 1, 0, 0, 0, 1, 5, 5, 5, 5], "f").map(drop))
            .contains("IDX type 0x0d")
    );
    assert!(err(read_idx(&[0, 0, 8, 3, 0, 0], "f").map(drop)).contains("truncated"));
    assert!(
        err(read_idx(&idx(&[3, 28, 28], 100), "f").map(drop))
            .contains("truncated: dims [3, 28, 28] need 2352 bytes")
    );
    assert!(err(read_idx(&idx(&[1, 2], 3), "f").map(drop)).contains("trailing bytes"));
    assert!(
        err(read_idx(&idx(&[u32::MAX, u32::MAX, u32::MAX], 0), "f").map(drop)).contains("overflow")
    );
    assert!(
        err(read_idx(&[0x1f, 0x8b, 1, 2, 3], "f").map(drop)).contains("not a valid gzip stream")
    );
    let o = VisionOptions::default;
    assert!(
        err(MNIST::from_bytes(&idx(&[2, 2], 4), &idx(&[2], 2), o()).map(drop))
            .contains("x should have 3 dimension instead of 2")
    );
    assert!(
        err(MNIST::from_bytes(&idx(&[2, 1, 1], 2), &idx(&[3], 3), o()).map(drop))
            .contains("3 labels for 2 images")
    );
    assert!(
        err(CIFAR10::from_bytes(&[&[0u8; 3000]], o()).map(drop))
            .contains("3000 bytes is not a whole number of CIFAR records of 3073")
    );
    let mut rec = vec![12u8];
    rec.extend([0u8; 3072]);
    assert!(
        err(CIFAR10::from_bytes(&[&rec], o()).map(drop))
            .contains("label 12 at byte 0, out of range 0..10")
    );
    assert!(err(CIFAR100::from_bytes(&[], o()).map(drop)).contains("0 bytes"));
    let dl = VisionOptions {
        download: true,
        ..Default::default()
    };
    assert!(
        err(CIFAR10::new("/nowhere", dl).map(drop))
            .contains("download=True is not supported: borch downloads nothing")
    );
    assert!(
        err(CIFAR10::new("/nowhere", o()).map(drop))
            .starts_with("Dataset not found: CIFAR10 expects data_batch_1.bin")
    );
    assert!(
        err(Digits::from_bytes(b"1,2,3\n", "d", o()).map(drop))
            .contains("d line 1: expected 64 pixels")
    );
    let ds = MNIST::from_bytes(&idx(&[1, 1, 1], 1), &idx(&[1], 1), o()).unwrap();
    assert!(
        ds.get(1)
            .unwrap_err()
            .to_string()
            .contains("index 1 is out of bounds")
    );
    assert!(ds.get(-1).is_ok());
}
