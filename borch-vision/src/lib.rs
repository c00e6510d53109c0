//! borch's torchvision: `models` (ResNet-18/34/50 with torchvision's structure, state_dict keys
//! and default initialisation bit for bit after `manual_seed`, and borch's CIFAR ResNet-18) over
//! borch-nn; `transforms` (torchvision's tensor transforms, seeded as torchvision draws) and
//! `datasets` (CIFAR-10/100 binary batches, MNIST/Fashion-MNIST IDX files, the bundled digits)
//! over borch-data's `Dataset`. Nothing here reaches past borch-nn, borch-data and borch-tensor; the bindings (borch-js,
//! borch-py) build the models through [`models::catalog`].
//!
//! ```no_run
//! use borch_nn::Module;
//! # fn main() -> borch_tensor::Result<()> {
//! borch_tensor::manual_seed(0);
//! let model = borch_vision::models::resnet18()?; // torchvision's parameters after manual_seed(0)
//! let x = borch_tensor::randn(&[1, 3, 224, 224], None)?;
//! let logits = model.forward(&x)?; // (1, 1000)
//! # Ok(())
//! # }
//! ```

#[warn(missing_docs)]
pub mod datasets;
pub mod models;
#[warn(missing_docs)]
pub mod transforms;
