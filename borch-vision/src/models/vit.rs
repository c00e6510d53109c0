//! timm's `VisionTransformer` (`timm.models.vision_transformer`) with a class token and token
//! pooling, as `vit_tiny_patch16_224` and its siblings build it: the children, their names and
//! the state_dict keys are timm's (`cls_token`, `pos_embed`, `patch_embed.proj.*`,
//! `blocks.N.{norm1,attn.qkv,attn.proj,norm2,mlp.fc1,mlp.fc2}.*`, `norm.*`, `head.*`), so a
//! state_dict saved from timm loads as it is.
//!
//! Construction follows timm's order and then its `init_weights('')`: the patch convolution and
//! every Linear draw torch's default initialisation as they are built, `pos_embed` starts as
//! `randn * 0.02`; then `trunc_normal_(pos_embed, std=0.02)`, `normal_(cls_token, std=1e-6)`
//! and `trunc_normal_(weight, std=0.02)` with a zero bias on every Linear in `modules()` order.

use borch_nn::functional::{self as F, Sdpa};
use borch_nn::{
    Conv2d, ConvOptions, Dropout, GELU, Identity, LayerNorm, Linear, Module, Sequential,
    child_fields, init, training_flag,
};
use borch_tensor::{BorchError, DType, Result, Tensor, cat, keep_alive, zeros};

/// timm's `VisionTransformer` arguments that borch builds (class token, `'token'` pooling,
/// LayerNorm with eps 1e-6, exact GELU, no LayerScale and no drop path).
#[derive(Debug, Clone, PartialEq)]
pub struct VitConfig {
    /// Input image side (square images).
    pub img_size: usize,
    /// Patch side: the stride and kernel of `patch_embed.proj`.
    pub patch_size: usize,
    /// Input channels.
    pub in_chans: usize,
    /// Output classes of `head` (0: `head` is an Identity, as timm's `num_classes=0`).
    pub num_classes: usize,
    /// Token width.
    pub embed_dim: usize,
    /// Number of transformer blocks.
    pub depth: usize,
    /// Attention heads per block (`embed_dim` must be a multiple).
    pub num_heads: usize,
    /// Hidden width of each MLP as a multiple of `embed_dim`.
    pub mlp_ratio: f64,
    /// Whether `qkv` has a bias.
    pub qkv_bias: bool,
    /// Dropout after the head's pooling (timm's `drop_rate`).
    pub drop_rate: f64,
    /// Dropout after adding the position embedding (timm's `pos_drop_rate`).
    pub pos_drop_rate: f64,
    /// Dropout after each block's projections (timm's `proj_drop_rate`).
    pub proj_drop_rate: f64,
    /// Dropout of the attention weights (timm's `attn_drop_rate`).
    pub attn_drop_rate: f64,
}

impl VitConfig {
    /// timm's `vit_tiny_patch16_224`: patch 16, width 192, 12 blocks of 3 heads.
    pub fn tiny() -> VitConfig {
        VitConfig {
            img_size: 224,
            patch_size: 16,
            in_chans: 3,
            num_classes: 1000,
            embed_dim: 192,
            depth: 12,
            num_heads: 3,
            mlp_ratio: 4.0,
            qkv_bias: true,
            drop_rate: 0.0,
            pos_drop_rate: 0.0,
            proj_drop_rate: 0.0,
            attn_drop_rate: 0.0,
        }
    }

    /// timm's `vit_small_patch16_224`: width 384, 6 heads.
    pub fn small() -> VitConfig {
        VitConfig {
            embed_dim: 384,
            num_heads: 6,
            ..VitConfig::tiny()
        }
    }

    /// timm's `vit_base_patch16_224`: width 768, 12 heads.
    pub fn base() -> VitConfig {
        VitConfig {
            embed_dim: 768,
            num_heads: 12,
            ..VitConfig::tiny()
        }
    }

    fn check(&self) -> Result<()> {
        let fail = |m: String| Err(BorchError::Value(m));
        if self.patch_size == 0 || !self.img_size.is_multiple_of(self.patch_size) {
            return fail(format!(
                "VisionTransformer: img_size {} is not a multiple of patch_size {}",
                self.img_size, self.patch_size
            ));
        }
        if self.num_heads == 0 || !self.embed_dim.is_multiple_of(self.num_heads) {
            return fail(format!(
                "VisionTransformer: embed_dim {} is not a multiple of num_heads {}",
                self.embed_dim, self.num_heads
            ));
        }
        if self.embed_dim == 0 || self.depth == 0 || self.in_chans == 0 {
            return fail(
                "VisionTransformer: embed_dim, depth and in_chans must be positive".into(),
            );
        }
        Ok(())
    }

    /// Patches per image (timm's `patch_embed.num_patches`).
    pub fn num_patches(&self) -> usize {
        (self.img_size / self.patch_size).pow(2)
    }
}

fn dropout(p: f64) -> Result<Dropout> {
    Dropout::new(p)
}

/// timm's `PatchEmbed`: a `proj` convolution with kernel and stride `patch_size`, then the
/// plane flattened into tokens (`(B, C, H, W)` → `(B, H·W / p², embed_dim)`).
pub struct PatchEmbed {
    /// The patch convolution.
    pub proj: Conv2d,
    /// timm's `norm` (an Identity without `norm_layer`).
    pub norm: Identity,
    img_size: usize,
    training: bool,
}

impl PatchEmbed {
    fn new(c: &VitConfig) -> Result<PatchEmbed> {
        let options = ConvOptions::default().stride(&[c.patch_size]);
        Ok(PatchEmbed {
            proj: Conv2d::with_options(c.in_chans, c.embed_dim, &[c.patch_size], options)?,
            norm: Identity::new(),
            img_size: c.img_size,
            training: true,
        })
    }
}

impl Module for PatchEmbed {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let s = x.shape();
        if s.len() != 4 || s[2] != self.img_size || s[3] != self.img_size {
            return Err(BorchError::Value(format!(
                "PatchEmbed: expected input of shape (B, C, {0}, {0}), got {s:?}",
                self.img_size
            )));
        }
        let x = self.proj.forward(x)?.flatten(2, -1)?.transpose(1, 2)?;
        self.norm.forward(&x)
    }
    fn name(&self) -> String {
        "PatchEmbed".into()
    }
    child_fields!(proj, norm);
    training_flag!();
}

/// timm's `Attention`: one `qkv` Linear, scaled dot-product attention over the heads, `proj`.
pub struct Attention {
    /// `Linear(dim, 3·dim)`: queries, keys and values of every head.
    pub qkv: Linear,
    /// timm's `q_norm` (an Identity without `qk_norm`).
    pub q_norm: Identity,
    /// timm's `k_norm`.
    pub k_norm: Identity,
    /// Dropout of the attention weights.
    pub attn_drop: Dropout,
    /// timm's `norm` (an Identity without `scale_norm`).
    pub norm: Identity,
    /// The output projection.
    pub proj: Linear,
    /// Dropout after `proj`.
    pub proj_drop: Dropout,
    num_heads: usize,
    attn_drop_rate: f64,
    training: bool,
}

impl Attention {
    fn new(c: &VitConfig) -> Result<Attention> {
        Ok(Attention {
            qkv: Linear::with_bias(c.embed_dim, 3 * c.embed_dim, c.qkv_bias)?,
            q_norm: Identity::new(),
            k_norm: Identity::new(),
            attn_drop: dropout(c.attn_drop_rate)?,
            norm: Identity::new(),
            proj: Linear::new(c.embed_dim, c.embed_dim)?,
            proj_drop: dropout(c.proj_drop_rate)?,
            num_heads: c.num_heads,
            attn_drop_rate: c.attn_drop_rate,
            training: true,
        })
    }
}

impl Module for Attention {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let s = x.shape();
        let (b, n, c) = (s[0] as isize, s[1] as isize, s[2] as isize);
        let h = self.num_heads as isize;
        let qkv = self
            .qkv
            .forward(x)?
            .reshape(&[b, n, 3, h, c / h])?
            .permute(&[2, 0, 3, 1, 4])?
            .unbind(0)?;
        let q = self.q_norm.forward(&qkv[0])?;
        let k = self.k_norm.forward(&qkv[1])?;
        let opts = Sdpa {
            attn_mask: None,
            dropout_p: if self.training {
                self.attn_drop_rate
            } else {
                0.0
            },
            is_causal: false,
            scale: None,
            enable_gqa: false,
        };
        let x = F::scaled_dot_product_attention(&q, &k, &qkv[2], &opts)?
            .transpose(1, 2)?
            .reshape(&[b, n, c])?;
        let x = self.proj.forward(&self.norm.forward(&x)?)?;
        self.proj_drop.forward(&x)
    }
    fn name(&self) -> String {
        "Attention".into()
    }
    child_fields!(qkv, q_norm, k_norm, attn_drop, norm, proj, proj_drop);
    training_flag!();
}

/// timm's `Mlp`: `fc1`, GELU, `fc2`, with dropouts after each.
pub struct Mlp {
    /// `Linear(dim, hidden)`.
    pub fc1: Linear,
    /// Exact GELU.
    pub act: GELU,
    /// Dropout after the activation.
    pub drop1: Dropout,
    /// timm's `norm` (an Identity).
    pub norm: Identity,
    /// `Linear(hidden, dim)`.
    pub fc2: Linear,
    /// Dropout after `fc2`.
    pub drop2: Dropout,
    training: bool,
}

impl Mlp {
    fn new(c: &VitConfig) -> Result<Mlp> {
        let hidden = (c.embed_dim as f64 * c.mlp_ratio) as usize;
        Ok(Mlp {
            fc1: Linear::new(c.embed_dim, hidden)?,
            act: GELU::new("none"),
            drop1: dropout(c.proj_drop_rate)?,
            norm: Identity::new(),
            fc2: Linear::new(hidden, c.embed_dim)?,
            drop2: dropout(c.proj_drop_rate)?,
            training: true,
        })
    }
}

impl Module for Mlp {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = self
            .drop1
            .forward(&self.act.forward(&self.fc1.forward(x)?)?)?;
        self.drop2
            .forward(&self.fc2.forward(&self.norm.forward(&x)?)?)
    }
    fn name(&self) -> String {
        "Mlp".into()
    }
    child_fields!(fc1, act, drop1, norm, fc2, drop2);
    training_flag!();
}

/// timm's `Block` (pre-norm): `x + attn(norm1(x))`, then `x + mlp(norm2(x))`.
pub struct VitBlock {
    /// LayerNorm before attention (eps 1e-6).
    pub norm1: LayerNorm,
    /// Self-attention.
    pub attn: Attention,
    /// timm's `ls1` (an Identity without `init_values`).
    pub ls1: Identity,
    /// timm's `drop_path1` (an Identity: no stochastic depth).
    pub drop_path1: Identity,
    /// LayerNorm before the MLP.
    pub norm2: LayerNorm,
    /// The feed-forward block.
    pub mlp: Mlp,
    /// timm's `ls2`.
    pub ls2: Identity,
    /// timm's `drop_path2`.
    pub drop_path2: Identity,
    training: bool,
}

fn layer_norm(dim: usize) -> Result<LayerNorm> {
    LayerNorm::with_options(&[dim], 1e-6, true, true)
}

impl VitBlock {
    fn new(c: &VitConfig) -> Result<VitBlock> {
        Ok(VitBlock {
            norm1: layer_norm(c.embed_dim)?,
            attn: Attention::new(c)?,
            ls1: Identity::new(),
            drop_path1: Identity::new(),
            norm2: layer_norm(c.embed_dim)?,
            mlp: Mlp::new(c)?,
            ls2: Identity::new(),
            drop_path2: Identity::new(),
            training: true,
        })
    }
}

impl Module for VitBlock {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let attn = self.attn.forward(&self.norm1.forward(x)?)?;
        let x = x.add(&self.drop_path1.forward(&self.ls1.forward(&attn)?)?)?;
        let mlp = self.mlp.forward(&self.norm2.forward(&x)?)?;
        x.add(&self.drop_path2.forward(&self.ls2.forward(&mlp)?)?)
    }
    fn name(&self) -> String {
        "Block".into()
    }
    child_fields!(norm1, attn, ls1, drop_path1, norm2, mlp, ls2, drop_path2);
    training_flag!();
}

/// timm's `VisionTransformer` with a class token and `global_pool='token'`.
pub struct VisionTransformer {
    /// `(1, 1, embed_dim)`, prepended to the patch tokens.
    pub cls_token: Tensor,
    /// `(1, 1 + num_patches, embed_dim)`, added to the tokens.
    pub pos_embed: Tensor,
    /// Patches to tokens.
    pub patch_embed: PatchEmbed,
    /// Dropout after the position embedding.
    pub pos_drop: Dropout,
    /// timm's `patch_drop` (an Identity: no patch dropout).
    pub patch_drop: Identity,
    /// timm's `norm_pre` (an Identity without `pre_norm`).
    pub norm_pre: Identity,
    /// The transformer blocks (`blocks.0` …).
    pub blocks: Sequential,
    /// The final LayerNorm.
    pub norm: LayerNorm,
    /// timm's `fc_norm` (an Identity with token pooling).
    pub fc_norm: Identity,
    /// Dropout before the head.
    pub head_drop: Dropout,
    /// The classifier (an Identity for `num_classes == 0`).
    pub head: Box<dyn Module>,
    /// What it was built from.
    pub config: VitConfig,
    training: bool,
}

fn parameter(t: Tensor) -> Result<Tensor> {
    let t = keep_alive(&t);
    t.set_requires_grad(true)?;
    Ok(t)
}

impl VisionTransformer {
    /// Build as timm's `VisionTransformer.__init__` and `init_weights('')` do (module docs).
    pub fn new(config: VitConfig) -> Result<VisionTransformer> {
        config.check()?;
        let c = &config;
        let patch_embed = PatchEmbed::new(c)?;
        let cls_token = parameter(zeros(&[1, 1, c.embed_dim], DType::Float32)?)?;
        let tokens = 1 + c.num_patches();
        let pos_embed = parameter(zeros(&[1, tokens, c.embed_dim], DType::Float32)?)?;
        let pos_drop = dropout(c.pos_drop_rate)?;
        let blocks = (0..c.depth)
            .map(|_| Ok(Box::new(VitBlock::new(c)?) as Box<dyn Module>))
            .collect::<Result<Vec<_>>>()?;
        let norm = layer_norm(c.embed_dim)?;
        let head: Box<dyn Module> = if c.num_classes > 0 {
            Box::new(Linear::new(c.embed_dim, c.num_classes)?)
        } else {
            Box::new(Identity::new())
        };
        let model = VisionTransformer {
            cls_token,
            pos_embed,
            patch_embed,
            pos_drop,
            patch_drop: Identity::new(),
            norm_pre: Identity::new(),
            blocks: Sequential::new(blocks),
            norm,
            fc_norm: Identity::new(),
            head_drop: dropout(c.drop_rate)?,
            head,
            config,
            training: true,
        };
        model.init_weights()?;
        Ok(model)
    }

    /// timm's `init_weights(mode='')` after construction.
    fn init_weights(&self) -> Result<()> {
        init::trunc_normal_(&self.pos_embed, 0.0, 0.02, -2.0, 2.0)?;
        init::normal_(&self.cls_token, 0.0, 1e-6)?;
        for m in self.modules() {
            if let Some(linear) = m.as_any().downcast_ref::<Linear>() {
                init::trunc_normal_(&linear.weight, 0.0, 0.02, -2.0, 2.0)?;
                if let Some(b) = &linear.bias {
                    init::zeros_(b)?;
                }
            }
        }
        Ok(())
    }

    /// timm's `forward_features`: tokens after the blocks and the final norm,
    /// `(B, 1 + num_patches, embed_dim)`.
    pub fn forward_features(&self, x: &Tensor) -> Result<Tensor> {
        let x = self.patch_embed.forward(x)?;
        let b = x.shape()[0] as isize;
        let cls = self.cls_token.expand(&[b, -1, -1])?;
        let x = cat(&[&cls, &x], 1)?.add(&self.pos_embed)?;
        let x = self.patch_drop.forward(&self.pos_drop.forward(&x)?)?;
        let x = self.blocks.forward(&self.norm_pre.forward(&x)?)?;
        self.norm.forward(&x)
    }
}

impl Module for VisionTransformer {
    /// timm's `forward`: `forward_features`, the class token (`x[:, 0]`), `head`.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = self
            .fc_norm
            .forward(&self.forward_features(x)?.select(1, 0)?)?;
        self.head.forward(&self.head_drop.forward(&x)?)
    }
    fn name(&self) -> String {
        "VisionTransformer".into()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        vec![
            ("cls_token".into(), self.cls_token.clone()),
            ("pos_embed".into(), self.pos_embed.clone()),
        ]
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![
            ("patch_embed".into(), &self.patch_embed),
            ("pos_drop".into(), &self.pos_drop),
            ("patch_drop".into(), &self.patch_drop),
            ("norm_pre".into(), &self.norm_pre),
            ("blocks".into(), &self.blocks),
            ("norm".into(), &self.norm),
            ("fc_norm".into(), &self.fc_norm),
            ("head_drop".into(), &self.head_drop),
            ("head".into(), self.head.as_ref()),
        ]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![
            ("patch_embed".into(), &mut self.patch_embed),
            ("pos_drop".into(), &mut self.pos_drop),
            ("patch_drop".into(), &mut self.patch_drop),
            ("norm_pre".into(), &mut self.norm_pre),
            ("blocks".into(), &mut self.blocks),
            ("norm".into(), &mut self.norm),
            ("fc_norm".into(), &mut self.fc_norm),
            ("head_drop".into(), &mut self.head_drop),
            ("head".into(), self.head.as_mut()),
        ]
    }
    training_flag!();
}

borch_nn::display_as_repr!(VisionTransformer);

/// timm's `vit_tiny_patch16_224()` (not pretrained).
pub fn vit_tiny_patch16_224() -> Result<VisionTransformer> {
    VisionTransformer::new(VitConfig::tiny())
}
