//! Random ops after `manual_seed` (torch's CPU algorithms, so the values are torch's).

use borch_tensor::{Operand, Result, Tensor, manual_seed, normal, rand, randint, randn, randperm};

use crate::case::Args;

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    const OPS: &[&str] = &[
        "rand",
        "randn",
        "randint",
        "normal",
        "randperm",
        "randn_sequence",
        "mixed_sequence",
        "uniform_",
        "normal_",
        "bernoulli_",
        "random_",
        "rand_like",
        "randn_like",
        "randint_like",
    ];
    if !OPS.contains(&op) {
        return None;
    }
    manual_seed(a.get("seed").as_u64().unwrap_or(0));
    let input = || match inputs.first() {
        Some(Operand::Tensor(t)) => t.clone(),
        _ => panic!("{op} needs a tensor input"),
    };
    let int = |k: &str| a.int(k) as i64;
    let filled = |r: Result<()>, t: Tensor| r.map(|()| vec![t]);
    Some(match op {
        "rand" => rand(&a.shape("shape"), None).map(|t| vec![t]),
        "randn" => randn(&a.shape("shape"), None).map(|t| vec![t]),
        "randint" => randint(int("low"), int("high"), &a.shape("shape"), None).map(|t| vec![t]),
        "normal" => normal(a.f64("mean"), a.f64("std"), &a.shape("shape"), None).map(|t| vec![t]),
        "randperm" => randperm(a.usize("n"), None).map(|t| vec![t]),
        "randn_sequence" => a
            .get("shapes")
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                let s: Vec<usize> = s
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| d.as_u64().unwrap_or(0) as usize)
                    .collect();
                randn(&s, None)
            })
            .collect(),
        "mixed_sequence" => (|| {
            Ok(vec![
                rand(&[5], None)?,
                randn(&[7], None)?,
                randint(0, 10, &[6], None)?,
                randperm(10, None)?,
                randn(&[20], None)?,
                rand(&[3], None)?,
            ])
        })(),
        "uniform_" => {
            let t = input();
            filled(t.uniform_(a.f64("from"), a.f64("to"), None), t)
        }
        "normal_" => {
            let t = input();
            filled(t.normal_(a.f64("mean"), a.f64("std"), None), t)
        }
        "bernoulli_" => {
            let t = input();
            filled(t.bernoulli_(a.f64("p"), None), t)
        }
        "random_" => {
            let t = input();
            filled(t.random_(int("from"), int("to"), None), t)
        }
        "rand_like" => input().rand_like(None).map(|t| vec![t]),
        "randn_like" => input().randn_like(None).map(|t| vec![t]),
        "randint_like" => input()
            .randint_like(int("low"), int("high"), None)
            .map(|t| vec![t]),
        _ => unreachable!(),
    })
}
