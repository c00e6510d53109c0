//! Conversions and normalisation: `ToTensor`, `PILToTensor` (from raw HWC bytes) and
//! `Normalize`.

use borch_tensor::{BorchError, DType, HostData, Result, Tensor};

use super::Transform;

/// Checks raw HWC bytes and returns them in CHW order.
fn chw(bytes: &[u8], height: usize, width: usize, channels: usize) -> Result<Vec<u8>> {
    let n = height
        .checked_mul(width)
        .and_then(|v| v.checked_mul(channels))
        .ok_or_else(|| BorchError::Value("image dimensions overflow".into()))?;
    if bytes.len() != n {
        return Err(BorchError::Value(format!(
            "expected {n} bytes for an HWC image of ({height}, {width}, {channels}), got {}",
            bytes.len()
        )));
    }
    let mut out = vec![0u8; n];
    for (p, px) in bytes.chunks_exact(channels.max(1)).enumerate() {
        for (c, &v) in px.iter().enumerate() {
            out[c * height * width + p] = v;
        }
    }
    Ok(out)
}

/// `ToTensor()` on an HWC uint8 image (a NumPy array in torchvision; here raw bytes, e.g. a
/// `Uint8Array` or an `ImageData`'s RGBA data): a CHW float32 tensor with values ÷ 255.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToTensor;

impl ToTensor {
    /// `ToTensor()`.
    pub fn new() -> ToTensor {
        ToTensor
    }

    /// `ToTensor()(pic)` for `pic` of shape `(height, width, channels)`, given as bytes.
    pub fn call(
        &self,
        bytes: &[u8],
        height: usize,
        width: usize,
        channels: usize,
    ) -> Result<Tensor> {
        let v: Vec<f32> = chw(bytes, height, width, channels)?
            .into_iter()
            .map(|b| b as f32 / 255.0)
            .collect();
        Tensor::from_host(&HostData::F32(v), &[channels, height, width])
    }
}

/// `PILToTensor()` on raw HWC bytes: CHW with the values 0..255 kept. torchvision gives uint8;
/// borch has no uint8, so the tensor is int64 (exact, and refused by `Normalize` as torchvision
/// refuses uint8).
#[derive(Debug, Clone, Copy, Default)]
pub struct PILToTensor;

impl PILToTensor {
    /// `PILToTensor()`.
    pub fn new() -> PILToTensor {
        PILToTensor
    }

    /// `PILToTensor()(pic)` for `pic` of shape `(height, width, channels)`, given as bytes.
    pub fn call(
        &self,
        bytes: &[u8],
        height: usize,
        width: usize,
        channels: usize,
    ) -> Result<Tensor> {
        let v: Vec<i64> = chw(bytes, height, width, channels)?
            .into_iter()
            .map(i64::from)
            .collect();
        Tensor::from_host(&HostData::I64(v), &[channels, height, width])
    }
}

/// `Normalize(mean, std, inplace=False)`: `(img - mean[c]) / std[c]` per channel.
#[derive(Debug, Clone)]
pub struct Normalize {
    mean: Vec<f64>,
    std: Vec<f64>,
    inplace: bool,
}

impl Normalize {
    /// `Normalize(mean, std)`; one value applies to every channel.
    pub fn new(mean: &[f64], std: &[f64]) -> Normalize {
        Normalize {
            mean: mean.to_vec(),
            std: std.to_vec(),
            inplace: false,
        }
    }

    /// `inplace=True`: writes into the input tensor.
    pub fn inplace(mut self, inplace: bool) -> Normalize {
        self.inplace = inplace;
        self
    }
}

impl Transform for Normalize {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        if img.dtype() != DType::Float32 {
            return Err(BorchError::Type(format!(
                "Input tensor should be a float tensor. Got {}.",
                img.dtype().torch_name()
            )));
        }
        if img.dim() < 3 {
            return Err(BorchError::Value(format!(
                "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = \
                 torch.Size({:?})",
                img.shape()
            )));
        }
        // torchvision converts mean and std to the image's dtype before the zero check
        let std32: Vec<f32> = self.std.iter().map(|&s| s as f32).collect();
        if std32.contains(&0.0) {
            return Err(BorchError::Value(
                "std evaluated to zero after conversion to torch.float32, leading to division by \
                 zero."
                    .into(),
            ));
        }
        let mean32: Vec<f32> = self.mean.iter().map(|&m| m as f32).collect();
        let column = |v: Vec<f32>| {
            let n = v.len();
            Tensor::from_host(&HostData::F32(v), &[n, 1, 1])
        };
        let (mean, std) = (column(mean32)?, column(std32)?);
        if self.inplace {
            img.sub_(&mean, 1.0)?;
            img.div_(&std, None)?;
            Ok(img.clone())
        } else {
            img.sub(&mean)?.div(&std)
        }
    }

    /// A batch broadcasts against the per-channel mean and std as one image does.
    fn batches(&self) -> bool {
        true
    }

    fn forward_batch(&self, batch: &Tensor) -> Result<Tensor> {
        self.forward(batch)
    }
}
