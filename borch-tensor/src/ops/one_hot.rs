//! torch's `nn.functional.one_hot`.

use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::one_hot::one_hot;
use crate::tensor::Tensor;

fn check_index(t: &Tensor) -> Result<()> {
    if t.dtype() != DType::Int64 {
        return runtime("one_hot is only applicable to index tensor of type LongTensor.");
    }
    Ok(())
}

impl Tensor {
    /// torch's `nn.functional.one_hot(self, num_classes)`: an int64 tensor of shape
    /// `self.shape + [num_classes]` with a 1 at each class. The classes live on the GPU, so one
    /// out of `0..num_classes` is reported at the next readback, not by this call (see
    /// `ops::index`). torch's `num_classes=-1` (inferred) needs a readback: `one_hot_infer`.
    pub fn one_hot(&self, num_classes: usize) -> Result<Tensor> {
        check_index(self)?;
        if self.numel() > 0 && num_classes == 0 {
            return runtime("Class values must be smaller than num_classes.");
        }
        if self.numel() == 0 && num_classes == 0 {
            return runtime("Can not infer total number of classes from empty tensor.");
        }
        one_hot(&self.contiguous()?, num_classes)
    }

    /// torch's `nn.functional.one_hot(self)` with `num_classes=-1`: the number of classes is the
    /// largest class plus one, read back from the device first (hence `async`).
    pub async fn one_hot_infer(&self) -> Result<Tensor> {
        check_index(self)?;
        if self.numel() == 0 {
            return runtime("Can not infer total number of classes from empty tensor.");
        }
        let classes = self.to_vec::<i64>().await?;
        if classes.iter().any(|&c| c < 0) {
            return runtime("Class values must be non-negative.");
        }
        let max = classes.iter().copied().max().unwrap_or(0);
        self.one_hot(max as usize + 1)
    }

    /// `one_hot_infer`, blocking (native targets).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn one_hot_infer_blocking(&self) -> Result<Tensor> {
        pollster::block_on(self.one_hot_infer())
    }
}
