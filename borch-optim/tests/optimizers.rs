//! Every optimizer configuration of `tests/optim/cases.json` replayed, each optimizer built
//! through the catalog by torch's name: after each step the parameters and every state entry
//! agree with torch's (atol 1e-6, rtol 1e-5).

mod common;

use borch_optim::StateValue;
use serde_json::Value as Json;

use common::{assert_close, catalog_optimizer, floats, params};

fn replay(case: &Json) {
    let name = case["name"].as_str().expect("name");
    let params = params(case);
    let mut opt = catalog_optimizer(case, &params);
    for (s, step) in case["steps"].as_array().expect("steps").iter().enumerate() {
        for (p, g) in params.iter().zip(step["grads"].as_array().expect("grads")) {
            let grad = if g.is_null() {
                None
            } else {
                Some(borch_tensor::Tensor::from_slice(&floats(g), p.shape()).expect("grad"))
            };
            p.set_grad(grad);
        }
        opt.step().expect("step");
        for (i, (p, want)) in params
            .iter()
            .zip(step["params"].as_array().unwrap())
            .enumerate()
        {
            let got = p.to_vec_blocking::<f32>().expect("read param");
            assert_close(
                &format!("{name} step {s} param {i}"),
                &got,
                &floats(want),
                1e-6,
                1e-5,
            );
        }
        let dict = opt.state_dict();
        let want_state = step["state"].as_object().expect("state");
        let got_keys: Vec<String> = dict.state.keys().map(|k| k.to_string()).collect();
        let want_keys: Vec<String> = want_state.keys().cloned().collect();
        assert_eq!(got_keys, want_keys, "{name} step {s}: params with state");
        for (i, want) in want_state {
            let got = &dict.state[&i.parse::<usize>().unwrap()];
            let want = want.as_object().unwrap();
            let keys: Vec<&String> = got.entries.keys().collect();
            assert_eq!(
                keys,
                want.keys().collect::<Vec<_>>(),
                "{name} step {s}: state keys of {i}"
            );
            for (key, value) in &got.entries {
                let what = format!("{name} step {s} state[{i}][{key}]");
                match value {
                    StateValue::Step(x) if key == "step" => {
                        assert_eq!(*x, want[key].as_f64().unwrap(), "{what}")
                    }
                    StateValue::Step(x) => {
                        let w = want[key].as_f64().unwrap() as f32;
                        assert_close(&what, &[*x as f32], &[w], 1e-6, 1e-5);
                    }
                    StateValue::Tensor(t) => {
                        let got = t.to_vec_blocking::<f32>().expect("read state");
                        assert_close(&what, &got, &floats(&want[key]), 1e-6, 1e-5);
                    }
                }
            }
        }
    }
}

#[test]
fn optimizers_follow_torch_step_for_step() {
    let cases = common::cases();
    let mut n = 0;
    for case in cases["optimizers"].as_array().expect("optimizers") {
        replay(case);
        n += 1;
    }
    println!("optim: {n} optimizer cases agree with torch");
    assert!(n >= 60);
}
