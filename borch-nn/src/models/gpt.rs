//! nanoGPT's `GPT` (Karpathy's nanoGPT `model.py`, minGPT's shape): token and position
//! embeddings, pre-norm blocks of causal self-attention (`F.scaled_dot_product_attention` with
//! `is_causal`) and a GELU MLP, a final LayerNorm and an untied `lm_head`. The children and
//! state_dict keys are nanoGPT's (`transformer.wte`, `transformer.wpe`,
//! `transformer.h.N.{ln_1,attn.c_attn,attn.c_proj,ln_2,mlp.c_fc,mlp.c_proj}`, `transformer.ln_f`,
//! `lm_head`).
//!
//! Every module draws torch's default initialisation as it is built, in nanoGPT's order, so after
//! `manual_seed(s)` the parameters equal those of torch's model built after
//! `torch.manual_seed(s)` (`tests/trajectories/char_gpt.py` holds the torch side). nanoGPT's own
//! `_init_weights` (normal 0.02) and its weight tying are left out: with them a module's init
//! would not be torch's.

use crate::functional::{self as F, Sdpa};
use crate::{
    Embedding, GELU, LayerNorm, Linear, Module, ModuleList, Reduction, child_fields, training_flag,
};
use borch_tensor::{BorchError, DType, Result, Tensor, arange};

/// The shape of a [`Gpt`] (nanoGPT's `GPTConfig` without dropout and bias options: no
/// dropout, biases everywhere but `lm_head`).
#[derive(Debug, Clone, PartialEq)]
pub struct GptConfig {
    /// Tokens in the vocabulary (`wte` rows, `lm_head` outputs).
    pub vocab_size: usize,
    /// The longest context (`wpe` rows).
    pub block_size: usize,
    /// Transformer blocks.
    pub n_layer: usize,
    /// Attention heads per block (`n_embd` must be a multiple).
    pub n_head: usize,
    /// Token width.
    pub n_embd: usize,
}

impl GptConfig {
    fn check(&self) -> Result<()> {
        if self.n_head == 0 || !self.n_embd.is_multiple_of(self.n_head) {
            return Err(BorchError::Value(format!(
                "GPT: n_embd {} is not a multiple of n_head {}",
                self.n_embd, self.n_head
            )));
        }
        if self.vocab_size == 0 || self.block_size == 0 || self.n_layer == 0 {
            return Err(BorchError::Value(
                "GPT: vocab_size, block_size and n_layer must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// nanoGPT's `CausalSelfAttention`: one `c_attn` Linear giving queries, keys and values, causal
/// attention over the heads, then `c_proj`.
pub struct CausalSelfAttention {
    /// `Linear(n_embd, 3·n_embd)`.
    pub c_attn: Linear,
    /// `Linear(n_embd, n_embd)`.
    pub c_proj: Linear,
    n_head: usize,
    training: bool,
}

impl Module for CausalSelfAttention {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let s = x.shape();
        let (b, t, c) = (s[0] as isize, s[1] as isize, s[2]);
        let h = self.n_head as isize;
        let heads = |u: &Tensor| u.view(&[b, t, h, c as isize / h])?.transpose(1, 2);
        let qkv = self.c_attn.forward(x)?.split(c, 2)?;
        let (q, k, v) = (heads(&qkv[0])?, heads(&qkv[1])?, heads(&qkv[2])?);
        let opts = Sdpa {
            is_causal: true,
            ..Sdpa::default()
        };
        let y = F::scaled_dot_product_attention(&q, &k, &v, &opts)?
            .transpose(1, 2)?
            .contiguous()?
            .view(&[b, t, c as isize])?;
        self.c_proj.forward(&y)
    }
    fn name(&self) -> String {
        "CausalSelfAttention".into()
    }
    child_fields!(c_attn, c_proj);
    training_flag!();
}

/// nanoGPT's `MLP`: `c_fc` (to 4·n_embd), exact GELU, `c_proj`.
pub struct Mlp {
    /// `Linear(n_embd, 4·n_embd)`.
    pub c_fc: Linear,
    /// `GELU()` (approximate `'none'`).
    pub gelu: GELU,
    /// `Linear(4·n_embd, n_embd)`.
    pub c_proj: Linear,
    training: bool,
}

impl Module for Mlp {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.c_proj
            .forward(&self.gelu.forward(&self.c_fc.forward(x)?)?)
    }
    fn name(&self) -> String {
        "MLP".into()
    }
    child_fields!(c_fc, gelu, c_proj);
    training_flag!();
}

/// nanoGPT's `Block` (pre-norm): `x + attn(ln_1(x))`, then `x + mlp(ln_2(x))`.
pub struct Block {
    /// LayerNorm before attention.
    pub ln_1: LayerNorm,
    /// Causal self-attention.
    pub attn: CausalSelfAttention,
    /// LayerNorm before the MLP.
    pub ln_2: LayerNorm,
    /// The feed-forward block.
    pub mlp: Mlp,
    training: bool,
}

impl Block {
    fn new(c: &GptConfig) -> Result<Block> {
        let d = c.n_embd;
        // Field by field in nanoGPT's order: the draws must come in torch's order.
        let ln_1 = LayerNorm::new(&[d])?;
        let attn = CausalSelfAttention {
            c_attn: Linear::new(d, 3 * d)?,
            c_proj: Linear::new(d, d)?,
            n_head: c.n_head,
            training: true,
        };
        let ln_2 = LayerNorm::new(&[d])?;
        let mlp = Mlp {
            c_fc: Linear::new(d, 4 * d)?,
            gelu: GELU::new("none"),
            c_proj: Linear::new(4 * d, d)?,
            training: true,
        };
        Ok(Block {
            ln_1,
            attn,
            ln_2,
            mlp,
            training: true,
        })
    }
}

impl Module for Block {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = x.add(&self.attn.forward(&self.ln_1.forward(x)?)?)?;
        x.add(&self.mlp.forward(&self.ln_2.forward(&x)?)?)
    }
    fn name(&self) -> String {
        "Block".into()
    }
    child_fields!(ln_1, attn, ln_2, mlp);
    training_flag!();
}

/// nanoGPT's `transformer` ModuleDict: `wte`, `wpe`, the blocks `h`, `ln_f`.
pub struct Transformer {
    /// Token embedding `Embedding(vocab_size, n_embd)`.
    pub wte: Embedding,
    /// Position embedding `Embedding(block_size, n_embd)`.
    pub wpe: Embedding,
    /// The blocks.
    pub h: ModuleList,
    /// The final LayerNorm.
    pub ln_f: LayerNorm,
    training: bool,
}

impl Module for Transformer {
    /// A ModuleDict is not callable in torch either: [`Gpt::forward`] walks the children.
    fn forward(&self, _: &Tensor) -> Result<Tensor> {
        Err(BorchError::NotImplemented(
            "Module [ModuleDict] is missing the required \"forward\" function".into(),
        ))
    }
    fn name(&self) -> String {
        "ModuleDict".into()
    }
    child_fields!(wte, wpe, h, ln_f);
    training_flag!();
}

/// nanoGPT's `GPT`: `forward(idx)` maps `(B, T)` int64 token ids (`T <= block_size`) to
/// `(B, T, vocab_size)` logits.
pub struct Gpt {
    /// Embeddings, blocks and the final norm.
    pub transformer: Transformer,
    /// `Linear(n_embd, vocab_size, bias=False)`, not tied to `wte`.
    pub lm_head: Linear,
    config: GptConfig,
    training: bool,
}

impl Gpt {
    /// Builds the model, drawing every module's torch init in nanoGPT's order.
    pub fn new(config: GptConfig) -> Result<Gpt> {
        config.check()?;
        let c = &config;
        let wte = Embedding::new(c.vocab_size, c.n_embd)?;
        let wpe = Embedding::new(c.block_size, c.n_embd)?;
        let blocks = (0..c.n_layer)
            .map(|_| Ok(Box::new(Block::new(c)?) as Box<dyn Module>))
            .collect::<Result<Vec<_>>>()?;
        let transformer = Transformer {
            wte,
            wpe,
            h: ModuleList::new(blocks),
            ln_f: LayerNorm::new(&[c.n_embd])?,
            training: true,
        };
        let lm_head = Linear::with_bias(c.n_embd, c.vocab_size, false)?;
        Ok(Gpt {
            transformer,
            lm_head,
            config,
            training: true,
        })
    }

    /// The shape it was built with.
    pub fn config(&self) -> &GptConfig {
        &self.config
    }

    /// nanoGPT's training loss: `cross_entropy(logits.view(-1, V), targets.view(-1))`.
    pub fn loss(&self, idx: &Tensor, targets: &Tensor) -> Result<Tensor> {
        let logits = self.forward(idx)?;
        let v = self.config.vocab_size as isize;
        F::cross_entropy(
            &logits.view(&[-1, v])?,
            &targets.view(&[-1])?,
            None,
            -100,
            Reduction::Mean,
            0.0,
        )
    }
}

impl Module for Gpt {
    fn forward(&self, idx: &Tensor) -> Result<Tensor> {
        let s = idx.shape();
        if s.len() != 2 || idx.dtype() != DType::Int64 {
            return Err(BorchError::Value(format!(
                "GPT: expected (B, T) int64 token ids, got {:?} {s:?}",
                idx.dtype()
            )));
        }
        if s[1] > self.config.block_size {
            return Err(BorchError::Value(format!(
                "Cannot forward sequence of length {}, block size is only {}",
                s[1], self.config.block_size
            )));
        }
        let pos = arange(0i64, s[1] as i64, 1i64)?;
        let tr = &self.transformer;
        let mut x = tr.wte.forward(idx)?.add(&tr.wpe.forward(&pos)?)?;
        for block in tr.h.iter() {
            x = block.forward(&x)?;
        }
        self.lm_head.forward(&tr.ln_f.forward(&x)?)
    }
    fn name(&self) -> String {
        "GPT".into()
    }
    child_fields!(transformer, lm_head);
    training_flag!();
}
