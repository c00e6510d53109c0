//! NLLLoss2d, CrossMapLRN2d, SyncBatchNorm, FractionalMaxPool2d/3d, ParameterDict and
//! AdaptiveLogSoftmaxWithLoss.

use borch_tensor::api::{Args, Value};
use borch_tensor::{BorchError, Result, Tensor};

use super::{ModuleClass, boxed, class, factory, legacy, reduction};
use crate::api::functional::fractional::ratio;
use crate::{
    ADAPTIVE_LOG_SOFTMAX_FORWARD, AdaptiveLogSoftmaxWithLoss, CrossMapLRN2d, FractionalMaxPool2d,
    FractionalMaxPool3d, NLLLoss, NLLLoss2d, ParameterDict, SyncBatchNorm,
};

const FRACTIONAL: &str = "kernel_size: Ints, output_size: Ints = None, output_ratio: Float = None, \
                          return_indices: Bool = False, _random_samples: Tensor = None";

/// `ParameterDict(parameters)`: None, or `(key, tensor)` pairs.
fn pairs(a: &Args) -> Result<Vec<(String, Tensor)>> {
    let refuse = |got: &str| {
        Err(BorchError::Type(format!(
            "ParameterDict(): borch takes parameters as a list of (key, tensor) pairs (torch's \
             iterable form), not {got}"
        )))
    };
    let items = match a.get(0) {
        Value::None => return Ok(Vec::new()),
        Value::List(items) => items,
        other => return refuse(other.type_name()),
    };
    let mut out = Vec::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        match item {
            Value::List(kv) => match kv.as_slice() {
                [Value::Str(k), Value::Tensor(t)] => out.push((k.clone(), t.clone())),
                [_, _] => return refuse("a pair that is not (str, Tensor)"),
                _ => {
                    return Err(BorchError::Value(format!(
                        "dictionary update sequence element #{j} has length {}; 2 is required",
                        kv.len()
                    )));
                }
            },
            other => return refuse(&format!("a list holding {}", other.type_name())),
        }
    }
    Ok(out)
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("NLLLoss2d", "weight: Tensor = None, size_average: Bool = None, ignore_index: Int = -100, \
                            reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 3)?;
                let mut l = NLLLoss::new().ignore_index(a.i64(2)?).reduction(reduction(a, 4)?);
                l.weight = a.opt_tensor(0)?;
                boxed(NLLLoss2d { loss: l })
            }),
        class("CrossMapLRN2d", "size: Int, alpha: Scalar = 0.0001, beta: Scalar = 0.75, k: Scalar = 1",
            |a| boxed(CrossMapLRN2d::new(a.usize(0)?, a.scalar(1)?, a.scalar(2)?, a.scalar(3)?))),
        class("SyncBatchNorm", "num_features: Int, eps: Float = 1e-05, momentum: Float = 0.1 | None, \
                                affine: Bool = True, track_running_stats: Bool = True, \
                                process_group: Str = None, device: Str = None, dtype: DType = None, \
                                bias: Bool = True",
            |a| {
                factory(a, 6)?;
                if !a.get(5).is_none() {
                    return Err(BorchError::NotImplemented(
                        "SyncBatchNorm(process_group=...): borch is one process and has no \
                         torch.distributed process groups; leave process_group out".into()));
                }
                let momentum = match a.get(2) { Value::None => None, _ => Some(a.f64(2)?) };
                boxed(SyncBatchNorm::with_options(a.usize(0)?, a.f64(1)?, momentum, a.bool(3)?,
                    a.bool(4)?, a.bool(8)?)?)
            }),
        class("FractionalMaxPool2d", FRACTIONAL,
            |a| boxed(FractionalMaxPool2d::new(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(),
                ratio(a, 2)?.as_deref(), a.bool(3)?, a.opt_tensor(4)?)?)),
        class("FractionalMaxPool3d", FRACTIONAL,
            |a| boxed(FractionalMaxPool3d::new(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(),
                ratio(a, 2)?.as_deref(), a.bool(3)?, a.opt_tensor(4)?)?)),
        class("ParameterDict", "parameters: NamedTensors = None",
            |a| boxed(ParameterDict::new(pairs(a)?)?)),
        class("AdaptiveLogSoftmaxWithLoss", "in_features: Int, n_classes: Int, cutoffs: Ints, div_value: Float = 4.0, \
                                             head_bias: Bool = False, device: Str = None, dtype: DType = None",
            |a| {
                factory(a, 5)?;
                let cutoffs: Vec<i64> = a.ints(2)?.into_iter().map(|c| c as i64).collect();
                boxed(AdaptiveLogSoftmaxWithLoss::new(a.usize(0)?, a.usize(1)?, &cutoffs, a.f64(3)?, a.bool(4)?)?)
            })
            .with_forward(&ADAPTIVE_LOG_SOFTMAX_FORWARD),
    ]
}

#[cfg(test)]
mod tests {
    use borch_tensor::api::Value;
    use borch_tensor::{Tensor, manual_seed};

    use super::super::build_module;

    fn kw(items: Vec<(&str, Value)>) -> Vec<(String, Value)> {
        items.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn reprs_are_torchs() {
        let m = build_module("CrossMapLRN2d", vec![Value::Int(3)], vec![]).unwrap();
        assert_eq!(m.repr(), "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)");
        let m = build_module("NLLLoss2d", vec![], vec![]).unwrap();
        assert_eq!(m.repr(), "NLLLoss2d()");
        let m = build_module("SyncBatchNorm", vec![Value::Int(3)], vec![]).unwrap();
        assert_eq!(
            m.repr(),
            "SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, \
             track_running_stats=True)"
        );
        let m = build_module(
            "FractionalMaxPool2d",
            vec![Value::Int(2)],
            kw(vec![("output_ratio", Value::Float(0.5))]),
        )
        .unwrap();
        assert_eq!(m.repr(), "FractionalMaxPool2d()");
    }

    #[test]
    fn constructor_errors_are_torchs() {
        let err = |name: &str, k: Vec<(&str, Value)>| {
            build_module(name, vec![Value::Int(2)], kw(k))
                .err()
                .unwrap()
                .to_string()
        };
        assert!(err("FractionalMaxPool2d", vec![]).contains(
            "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"
        ));
        assert!(
            err(
                "FractionalMaxPool3d",
                vec![
                    ("output_size", Value::Int(2)),
                    ("output_ratio", Value::Float(0.5))
                ]
            )
            .contains("only one of output_size and output_ratio may be specified")
        );
        assert!(
            err(
                "FractionalMaxPool2d",
                vec![(
                    "output_ratio",
                    Value::List(vec![Value::Float(0.5), Value::Float(1.0)])
                )]
            )
            .contains("output_ratio must be between 0 and 1 (got (0.5, 1.0))")
        );
        assert!(
            err(
                "SyncBatchNorm",
                vec![("process_group", Value::Str("g".into()))]
            )
            .contains("process_group")
        );
    }

    #[test]
    fn return_indices_gives_the_pair_through_forward_values() {
        let _ = manual_seed(0);
        let m = build_module(
            "FractionalMaxPool2d",
            vec![Value::Int(2)],
            kw(vec![
                ("output_size", Value::Int(2)),
                ("return_indices", Value::Bool(true)),
            ]),
        )
        .unwrap();
        let x =
            Tensor::from_slice(&(0..32).map(|v| v as f32).collect::<Vec<_>>(), &[2, 4, 4]).unwrap();
        assert!(m.forward(&x).is_err());
        match m.forward_values(vec![Value::Tensor(x)], vec![]).unwrap() {
            Value::List(v) => {
                assert_eq!(v.len(), 2);
                match (&v[0], &v[1]) {
                    (Value::Tensor(y), Value::Tensor(i)) => {
                        assert_eq!(y.shape(), [2, 2, 2]);
                        assert_eq!(i.shape(), [2, 2, 2]);
                        assert_eq!(i.dtype(), borch_tensor::DType::Int64);
                    }
                    _ => panic!("not two tensors"),
                }
            }
            other => panic!("not a tuple: {}", other.type_name()),
        }
    }

    #[test]
    fn cross_map_lrn2d_of_size_1_refuses_backward_as_torch() {
        let m = build_module("CrossMapLRN2d", vec![Value::Int(1)], vec![]).unwrap();
        let x = Tensor::from_slice(&[0.5f32; 12], &[1, 3, 2, 2]).unwrap();
        x.set_requires_grad(true).unwrap();
        let y = m.forward(&x).unwrap().sum(None, false).unwrap();
        // torch 2.15: RuntimeError from CrossMapLRN2d.backward's narrow.
        let e = borch_autograd::backward(&y, None, false).err().unwrap();
        assert!(
            e.to_string()
                .contains("start (1) + length (3) exceeds dimension size (3)."),
            "{e}"
        );
        let m = build_module(
            "CrossMapLRN2d",
            vec![Value::Int(3)],
            kw(vec![("k", Value::Float(2.0))]),
        )
        .unwrap();
        assert_eq!(m.repr(), "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=2.0)");
        let e = m.forward(&x.reshape(&[3, 2, 2]).unwrap()).err().unwrap();
        assert_eq!(
            e.to_string(),
            "CrossMapLRN2d: Expected input to be 4D, got 3D instead."
        );
    }

    #[test]
    fn adaptive_log_softmax_checks_as_torch() {
        let build = |cutoffs: Vec<i64>| {
            let c = Value::List(cutoffs.into_iter().map(Value::Int).collect());
            build_module(
                "AdaptiveLogSoftmaxWithLoss",
                vec![Value::Int(4), Value::Int(6), c],
                vec![],
            )
        };
        // torch 2.15's messages.
        assert_eq!(
            build(vec![]).err().unwrap().to_string(),
            "cutoffs should be a sequence of length larger than 0"
        );
        for bad in [vec![3, 2], vec![0, 2], vec![2, 6], vec![2, 2]] {
            assert!(
                build(bad)
                    .err()
                    .unwrap()
                    .to_string()
                    .starts_with("cutoffs should be a sequence of unique, positive integers")
            );
        }
        let m = build(vec![2, 4]).unwrap();
        let x = Tensor::from_slice(&[0.5f32; 8], &[2, 4]).unwrap();
        let call = |t: &[i64]| {
            let t = Tensor::from_slice(t, &[t.len()]).unwrap();
            m.forward_values(vec![Value::Tensor(x.clone()), Value::Tensor(t)], vec![])
        };
        assert_eq!(
            call(&[1, 6]).err().unwrap().to_string(),
            "Target values should be in [0, 5], but values in range [1, 6] were found. "
        );
        assert_eq!(
            call(&[1]).err().unwrap().to_string(),
            "Input and target should have the same size in the batch dimension."
        );
        assert!(matches!(call(&[0, 5]).unwrap(), Value::List(v) if v.len() == 2));
    }

    #[test]
    fn parameter_dict_keeps_the_pairs_order() {
        let t = |n: usize| Tensor::from_slice(&vec![1f32; n], &[n]).unwrap();
        let pairs = Value::List(vec![
            Value::List(vec![Value::Str("b".into()), Value::Tensor(t(2))]),
            Value::List(vec![Value::Str("a".into()), Value::Tensor(t(3))]),
        ]);
        let d = build_module("ParameterDict", vec![pairs], vec![]).unwrap();
        let keys: Vec<String> = d.named_parameters().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b", "a"]);
        assert!(d.parameters().iter().all(|p| p.requires_grad()));
        assert_eq!(
            d.repr(),
            "ParameterDict(\n    (b): Parameter containing: [torch.FloatTensor of size 2]\n    \
             (a): Parameter containing: [torch.FloatTensor of size 3]\n)"
        );
        let e = build_module("ParameterDict", vec![Value::Other("dict".into())], vec![]);
        assert!(e.err().unwrap().to_string().contains("(key, tensor) pairs"));
    }
}
