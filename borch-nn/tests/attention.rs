//! MultiheadAttention and the Transformer modules: torch's errors (messages as torch 2.15 gives
//! them; torch's AssertionErrors are borch's RuntimeErrors), `generate_square_subsequent_mask`,
//! and TransformerEncoder's deep copies. Forward, backward, init and structure are frozen from
//! torch in `tests/nn/attention_cases.py`.

use borch_nn::api::modules::build_module;
use borch_nn::{
    LayerConfig, Module, TransformerEncoder, TransformerEncoderLayer,
    generate_square_subsequent_mask,
};
use borch_tensor::api::Value;
use borch_tensor::{BorchError, DType, Tensor, manual_seed, randn, zeros};

fn t(shape: &[usize]) -> Value {
    Value::Tensor(randn(shape, None).unwrap())
}

fn message(r: borch_tensor::Result<impl Sized>) -> (String, String) {
    match r {
        Ok(_) => ("Ok".into(), String::new()),
        Err(e) => {
            let kind = match &e {
                BorchError::Runtime(_) => "RuntimeError",
                BorchError::Value(_) => "ValueError",
                BorchError::Type(_) => "TypeError",
                _ => "other",
            };
            (kind.into(), e.to_string())
        }
    }
}

fn kw(name: &str, v: Value) -> Vec<(String, Value)> {
    vec![(name.to_string(), v)]
}

#[test]
fn multihead_attention_errors_are_torchs() {
    manual_seed(0);
    let m = build_module(
        "MultiheadAttention",
        vec![Value::Int(4), Value::Int(2)],
        vec![],
    )
    .unwrap();
    let call = |pos: Vec<Value>, k: Vec<(String, Value)>| message(m.forward_values(pos, k));
    let mask = |shape: &[usize], dtype| Value::Tensor(zeros(shape, dtype).unwrap());
    let cases: Vec<((String, String), &str, &str)> = vec![
        (
            call(vec![t(&[4]), t(&[4]), t(&[4])], vec![]),
            "RuntimeError",
            "query should be unbatched 2D or batched 3D tensor but received 1-D query tensor",
        ),
        (
            call(vec![t(&[3, 2, 4]), t(&[5, 4]), t(&[5, 2, 4])], vec![]),
            "RuntimeError",
            "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 3-D tensors respectively",
        ),
        (
            call(vec![t(&[3, 2, 4]), t(&[5, 2, 4]), t(&[6, 2, 4])], vec![]),
            "RuntimeError",
            "key shape torch.Size([5, 2, 4]) does not match value shape torch.Size([6, 2, 4])",
        ),
        (
            call(
                vec![t(&[3, 2, 4]), t(&[5, 2, 4]), t(&[5, 2, 4])],
                kw("attn_mask", mask(&[3, 4], DType::Float32)),
            ),
            "RuntimeError",
            "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (3, 5).",
        ),
        (
            call(
                vec![t(&[3, 2, 4]), t(&[5, 2, 4]), t(&[5, 2, 4])],
                kw("attn_mask", mask(&[2, 3, 5], DType::Float32)),
            ),
            "RuntimeError",
            "The shape of the 3D attn_mask is torch.Size([2, 3, 5]), but should be (4, 3, 5).",
        ),
        (
            call(
                vec![t(&[3, 2, 4]), t(&[5, 2, 4]), t(&[5, 2, 4])],
                kw("key_padding_mask", mask(&[2, 4], DType::Bool)),
            ),
            "RuntimeError",
            "Expected key_padded_mask.shape[1] to be 5, but got 4",
        ),
        (
            call(
                vec![t(&[3, 2, 4]), t(&[5, 2, 4]), t(&[5, 2, 4])],
                kw("is_causal", Value::Bool(true)),
            ),
            "RuntimeError",
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method `generate_square_subsequent_mask` to create this mask.",
        ),
        (
            call(
                vec![t(&[3, 2, 4]), t(&[5, 2, 4]), t(&[5, 2, 4])],
                kw("attn_mask", mask(&[3, 5], DType::Int64)),
            ),
            "RuntimeError",
            "only bool and floating types of attn_mask are supported",
        ),
        (
            call(vec![t(&[3, 2, 5]), t(&[5, 2, 5]), t(&[5, 2, 5])], vec![]),
            "RuntimeError",
            "was expecting embedding dimension of 4, but got 5",
        ),
        (
            message(build_module(
                "TransformerEncoderLayer",
                vec![Value::Int(4), Value::Int(2)],
                kw("activation", Value::Str("tanh".into())),
            )),
            "RuntimeError",
            "activation should be relu/gelu, not tanh",
        ),
        (
            message(build_module(
                "MultiheadAttention",
                vec![Value::Int(5), Value::Int(2)],
                vec![],
            )),
            "RuntimeError",
            "embed_dim must be divisible by num_heads",
        ),
        (
            message(build_module(
                "MultiheadAttention",
                vec![Value::Int(0), Value::Int(2)],
                vec![],
            )),
            "ValueError",
            "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2 instead",
        ),
    ];
    let mut bad = Vec::new();
    for ((kind, msg), want_kind, want) in cases {
        if kind != want_kind || msg != want {
            bad.push(format!("{kind}: {msg}\n  expected {want_kind}: {want}"));
        }
    }
    let tr = build_module(
        "Transformer",
        vec![
            Value::Int(4),
            Value::Int(2),
            Value::Int(1),
            Value::Int(1),
            Value::Int(8),
        ],
        vec![],
    )
    .unwrap();
    for (src, tgt, want) in [
        (
            &[3, 2, 4],
            &[3, 3, 4],
            "the batch number of src and tgt must be equal",
        ),
        (
            &[3, 2, 4],
            &[3, 2, 5],
            "the feature number of src and tgt must be equal to d_model",
        ),
    ] {
        let (kind, msg) = message(tr.forward_values(vec![t(src), t(tgt)], vec![]));
        if kind != "RuntimeError" || msg != want {
            bad.push(format!("{kind}: {msg}\n  expected RuntimeError: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn square_subsequent_mask_is_torchs() {
    let m = generate_square_subsequent_mask(3).unwrap();
    let ninf = f64::NEG_INFINITY;
    assert_eq!(m.shape(), &[3, 3]);
    assert_eq!(
        m.to_host_blocking().unwrap().to_f64(),
        vec![0.0, ninf, ninf, 0.0, 0.0, ninf, 0.0, 0.0, 0.0]
    );
}

#[test]
fn encoder_layers_are_deep_copies() {
    manual_seed(1);
    let c = LayerConfig {
        dim_feedforward: 6,
        ..LayerConfig::default()
    };
    let layer = TransformerEncoderLayer::new(4, 2, c).unwrap();
    let enc = TransformerEncoder::new(&layer, 2, None).unwrap();
    let sd = enc.state_dict();
    for (k, v) in layer.state_dict().iter() {
        let want = v.to_host_blocking().unwrap().to_f64();
        for i in 0..2 {
            let t: &Tensor = sd.get(&format!("layers.{i}.{k}")).unwrap();
            assert_eq!(
                t.to_host_blocking().unwrap().to_f64(),
                want,
                "layers.{i}.{k}"
            );
        }
    }
    // Copies, not shared storage: changing the layer leaves the encoder's alone.
    borch_autograd::no_grad(|| layer.linear1.weight.fill_(0.0)).unwrap();
    let copy = sd.get("layers.0.linear1.weight").unwrap();
    assert!(
        copy.to_host_blocking()
            .unwrap()
            .to_f64()
            .iter()
            .any(|&x| x != 0.0)
    );
}
