//! MNIST and Fashion-MNIST from IDX files (`root/MNIST/raw/`, `root/FashionMNIST/raw/`), raw or
//! gzip-compressed: two zero bytes, a type byte (0x08: unsigned bytes), the number of dims, each
//! dim a big-endian u32, then the values.

use std::path::Path;

use borch_tensor::{BorchError, Result};

use super::{Images, VisionOptions, image_dataset, maybe_gunzip, read_file};

fn bad<T>(what: &str, msg: impl std::fmt::Display) -> Result<T> {
    Err(BorchError::Runtime(format!("{what}: {msg}")))
}

/// Parses an IDX file of unsigned bytes (gunzipping it first if it is compressed): its dims and
/// values. `what` names the file in errors.
pub fn read_idx(bytes: &[u8], what: &str) -> Result<(Vec<usize>, Vec<u8>)> {
    let bytes = maybe_gunzip(bytes, what)?;
    if bytes.len() < 4 {
        return bad(
            what,
            format!("{} bytes is too short for an IDX header", bytes.len()),
        );
    }
    if bytes[0] != 0 || bytes[1] != 0 {
        return bad(
            what,
            format!(
                "wrong magic number {:02x}{:02x}{:02x}{:02x}: not an IDX file",
                bytes[0], bytes[1], bytes[2], bytes[3]
            ),
        );
    }
    let ty = bytes[2];
    if ty != 0x08 {
        return bad(
            what,
            format!("IDX type 0x{ty:02x}; MNIST files hold unsigned bytes (0x08)"),
        );
    }
    let nd = bytes[3] as usize;
    let header = 4 + 4 * nd;
    if bytes.len() < header {
        return bad(
            what,
            format!(
                "truncated: {} bytes, but {nd} dims need a {header}-byte header",
                bytes.len()
            ),
        );
    }
    let dims: Vec<usize> = bytes[4..header]
        .chunks_exact(4)
        .map(|d| u32::from_be_bytes([d[0], d[1], d[2], d[3]]) as usize)
        .collect();
    let count = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| BorchError::Runtime(format!("{what}: dims {dims:?} overflow")))?;
    let data = &bytes[header..];
    if data.len() != count {
        let fault = if data.len() < count {
            "truncated"
        } else {
            "trailing bytes"
        };
        return bad(
            what,
            format!(
                "{fault}: dims {dims:?} need {count} bytes of data, the file has {}",
                data.len()
            ),
        );
    }
    Ok((dims, data.to_vec()))
}

/// Images `(n, h, w)` and labels `(n,)` from the bytes of the two IDX files.
fn load(images: &[u8], labels: &[u8], names: [&str; 2], options: VisionOptions) -> Result<Images> {
    let (idims, pixels) = read_idx(images, names[0])?;
    if idims.len() != 3 {
        return bad(
            names[0],
            format!("x should have 3 dimension instead of {}", idims.len()),
        );
    }
    let (ldims, label_bytes) = read_idx(labels, names[1])?;
    if ldims.len() != 1 {
        return bad(
            names[1],
            format!("x should have 1 dimension instead of {}", ldims.len()),
        );
    }
    if ldims[0] != idims[0] {
        return bad(
            names[1],
            format!(
                "{} labels for {} images in {}",
                ldims[0], idims[0], names[0]
            ),
        );
    }
    let labels = label_bytes.into_iter().map(i64::from).collect();
    Ok(Images::new(
        pixels,
        [1, idims[1], idims[2]],
        labels,
        255.0,
        options,
    ))
}

/// Reads `<prefix>-images-idx3-ubyte` and `<prefix>-labels-idx1-ubyte` (or their `.gz`) from
/// `root/<folder>/raw/`.
fn from_folder(root: &Path, folder: &str, options: VisionOptions) -> Result<Images> {
    let dir = root.join(folder).join("raw");
    options.check_download(&dir)?;
    let prefix = if options.train { "train" } else { "t10k" };
    let mut found = Vec::new();
    for kind in ["images-idx3-ubyte", "labels-idx1-ubyte"] {
        let name = format!("{prefix}-{kind}");
        let path = [dir.join(&name), dir.join(format!("{name}.gz"))]
            .into_iter()
            .find(|p| p.is_file());
        match path {
            Some(p) => found.push((p.display().to_string(), read_file(&p)?)),
            None => {
                return Err(BorchError::Runtime(format!(
                    "Dataset not found: {folder} expects {name} (or {name}.gz) in {}; borch \
                     downloads nothing",
                    dir.display()
                )));
            }
        }
    }
    load(
        &found[0].1,
        &found[1].1,
        [&found[0].0, &found[1].0],
        options,
    )
}

/// `MNIST(root, train=True, transform=None, target_transform=None, download=False)`: 28×28
/// grey handwritten digits, read from `root/MNIST/raw/` (`train-images-idx3-ubyte`,
/// `train-labels-idx1-ubyte`, `t10k-…` for testing; each raw or `.gz`).
pub struct MNIST {
    images: Images,
}

impl MNIST {
    /// Reads the split `options.train` selects from `root/MNIST/raw/`.
    pub fn new(root: impl AsRef<Path>, options: VisionOptions) -> Result<MNIST> {
        Ok(MNIST {
            images: from_folder(root.as_ref(), "MNIST", options)?,
        })
    }

    /// From the bytes of an images file and a labels file (raw or gzip-compressed).
    pub fn from_bytes(images: &[u8], labels: &[u8], options: VisionOptions) -> Result<MNIST> {
        options.check_download(Path::new("MNIST/raw"))?;
        Ok(MNIST {
            images: load(images, labels, ["images file", "labels file"], options)?,
        })
    }
}

image_dataset!(MNIST);

/// `FashionMNIST(root, train=True, transform=None, target_transform=None, download=False)`: the
/// same IDX files as MNIST, from `root/FashionMNIST/raw/`.
pub struct FashionMNIST {
    images: Images,
}

impl FashionMNIST {
    /// Reads the split `options.train` selects from `root/FashionMNIST/raw/`.
    pub fn new(root: impl AsRef<Path>, options: VisionOptions) -> Result<FashionMNIST> {
        Ok(FashionMNIST {
            images: from_folder(root.as_ref(), "FashionMNIST", options)?,
        })
    }

    /// From the bytes of an images file and a labels file (raw or gzip-compressed).
    pub fn from_bytes(
        images: &[u8],
        labels: &[u8],
        options: VisionOptions,
    ) -> Result<FashionMNIST> {
        options.check_download(Path::new("FashionMNIST/raw"))?;
        Ok(FashionMNIST {
            images: load(images, labels, ["images file", "labels file"], options)?,
        })
    }
}

image_dataset!(FashionMNIST);
