//! Hostile export calls, seeded: every module class of the catalog built with random small
//! arguments and fed random shapes, bad options (opsets, names, dynamic axes), modules in
//! training mode, and forwards that use ops ONNX export does not have. Each call must return
//! (a model or a `BorchError`), never panic; an unsupported op's error names the op and the
//! module path. `BORCH_ONNX_HOSTILE` sets the number of calls (default 10,000).

use std::panic::{AssertUnwindSafe, catch_unwind};

use borch_nn::api::modules::{build_module, names};
use borch_nn::{Linear, Module, ReLU, Sequential, sequential, training_flag};
use borch_onnx::{ExportOptions, trace};
use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor, manual_seed, randn};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A module whose forward uses an op that cannot be exported (`cumprod`, `var`, `sort`).
struct Odd {
    which: usize,
    training: bool,
}
impl Module for Odd {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self.which {
            0 => x.cumprod(-1),
            1 => x.var(Some(&[-1]), 1.0, true),
            _ => Ok(x.sort(-1, false, false)?.0),
        }
    }
    fn name(&self) -> String {
        "Odd".into()
    }
    training_flag!();
}

fn random_shape(rng: &mut Rng) -> Vec<usize> {
    let rank = 1 + rng.below(4);
    (0..rank).map(|_| rng.below(5)).collect()
}

fn random_options(rng: &mut Rng) -> ExportOptions {
    let pick = |rng: &mut Rng| ["input", "output", "", "x", "\u{7}"][rng.below(5)].to_string();
    let mut o = ExportOptions::default();
    if rng.below(2) == 0 {
        o.opset_version = Some(rng.below(30) as i64);
    }
    for _ in 0..rng.below(3) {
        o.input_names.push(pick(rng));
    }
    for _ in 0..rng.below(3) {
        o.output_names.push(pick(rng));
    }
    if rng.below(2) == 0 {
        let axes = (0..rng.below(3))
            .map(|_| (pick(rng), vec![(rng.below(6), pick(rng))]))
            .collect();
        o.dynamic_axes = Some(axes);
    }
    o
}

#[test]
fn hostile_export_calls_never_panic() -> Result<()> {
    manual_seed(0);
    let n: usize = std::env::var("BORCH_ONNX_HOSTILE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let classes = names();
    let mut rng = Rng(0x5eed_0001);
    let (mut ok, mut errors, mut panics, mut not_built) = (0, 0, 0, 0);
    let mut calls = 0;
    while calls < n {
        let kind = rng.below(5);
        let mut module: Box<dyn Module> = match kind {
            0 => {
                let name = classes[rng.below(classes.len())];
                let args = (0..rng.below(4))
                    .map(|_| Value::Int(1 + rng.below(4) as i64))
                    .collect();
                match catch_unwind(AssertUnwindSafe(|| build_module(name, args, vec![]))) {
                    Ok(Ok(m)) => m,
                    Ok(Err(_)) => {
                        not_built += 1;
                        continue;
                    }
                    Err(_) => panic!("building {name} panicked"),
                }
            }
            3 => Box::new(Odd {
                which: rng.below(3),
                training: false,
            }),
            _ => Box::new(sequential![
                Linear::new(3, 4)?,
                ReLU::new(),
                Linear::new(4, 2)?
            ]),
        };
        // Kind 4 exports a module left in training mode.
        if kind != 4 {
            module.eval();
        }
        let shape = if kind == 1 || kind == 4 {
            vec![1 + rng.below(3), 3]
        } else {
            random_shape(&mut rng)
        };
        let options = if kind == 1 {
            random_options(&mut rng)
        } else {
            ExportOptions::default()
        };
        let inputs: Vec<Tensor> = (0..if rng.below(8) == 0 { 0 } else { 1 })
            .map(|_| randn(&shape, None))
            .collect::<Result<_>>()?;
        let refs: Vec<&Tensor> = inputs.iter().collect();
        calls += 1;
        match catch_unwind(AssertUnwindSafe(|| trace(module.as_ref(), &refs, &options))) {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                errors += 1;
                if kind == 3 && !refs.is_empty() && shape.iter().all(|&d| d > 0) {
                    let msg = e.to_string();
                    assert!(
                        matches!(e, BorchError::NotImplemented(_))
                            && msg.contains("root module (Odd)"),
                        "{msg}"
                    );
                }
            }
            Err(_) => panics += 1,
        }
    }
    println!(
        "onnx hostile: {calls} export calls, {ok} exported, {errors} clean errors, {panics} panics \
         ({not_built} catalog constructions refused before export)"
    );
    assert_eq!(panics, 0);
    Ok(())
}

/// An op that cannot be exported, inside a container, is named with its module path.
#[test]
fn unsupported_op_names_op_and_module_path() -> Result<()> {
    let mut m = Sequential::new(vec![
        Box::new(Linear::new(3, 3)?),
        Box::new(Odd {
            which: 0,
            training: false,
        }),
    ]);
    m.eval();
    let x = randn(&[2, 3], None)?;
    let e = match trace(&m, &[&x], &ExportOptions::default()) {
        Err(e) => e,
        Ok(_) => panic!("cumprod exported"),
    };
    assert_eq!(
        e.to_string(),
        "ONNX export: cumprod is not supported (op 'cumprod' in module '1' (Odd))"
    );
    let mut t = sequential![Linear::new(3, 3)?];
    t.train(true);
    let e = trace(&t, &[&x], &ExportOptions::default()).err().unwrap();
    assert!(
        e.to_string()
            .contains("is in training mode: call model.eval() first"),
        "{e}"
    );
    let o = ExportOptions {
        opset_version: Some(18),
        ..ExportOptions::default()
    };
    t.eval();
    let e = trace(&t, &[&x], &o).err().unwrap();
    assert_eq!(
        e.to_string(),
        "ONNX export: opset_version 18 is not supported: borch-onnx writes opset 17"
    );
    Ok(())
}

/// Modules whose ops have no ONNX lowering yet are refused, never frozen into a constant.
#[test]
fn not_yet_modules_are_refused() -> Result<()> {
    // Circular padding is ONNX Pad's 'wrap', which opset 17 does not have; Resize has no
    // 'area' (adaptive average pooling) mode.
    for (name, args) in [
        ("Hardtanh", vec![]),
        ("ELU", vec![]),
        ("CircularPad2d", vec![Value::Int(1)]),
        (
            "Upsample",
            vec![Value::None, Value::Float(2.0), Value::Str("area".into())],
        ),
    ] {
        let mut m = build_module(name, args, vec![])?;
        m.eval();
        let x = randn(&[1, 2, 4, 4], None)?;
        let e = trace(m.as_ref(), &[&x], &ExportOptions::default()).err();
        let msg = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            msg.starts_with("ONNX export: ") && msg.contains(&format!("root module ({name})")),
            "{name}: {msg}"
        );
    }
    Ok(())
}
