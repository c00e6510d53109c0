//! `PackedSequence` and the recurrent modules over it against torch
//! (tests/nn/rnn_packed_cases.json, made by tests/nn/rnn_packed_cases.py): packed data, batch
//! sizes and permutations, padding back, gradients, torch's errors, and RNN / LSTM / GRU
//! outputs, final states and every gradient.

mod common;

use borch_autograd::backward;
use borch_nn::utils::rnn::{
    PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence, unpack_sequence,
};
use borch_nn::{Module, RNNBase, RnnMode, RnnOptions, StateDict};
use borch_tensor::{BorchError, Result, Tensor};
use common::{compare, tensor};
use serde_json::Value as Json;

fn ints(j: &Json) -> Option<Vec<i64>> {
    j.as_array()
        .map(|a| a.iter().map(|x| x.as_i64().unwrap()).collect())
}

fn check_packed(p: &PackedSequence, want: &Json, out: &mut Vec<String>) {
    out.extend(compare("data", &p.data, &want["data"]));
    for (what, got, key) in [
        ("batch_sizes", Some(p.batch_sizes.clone()), "batch_sizes"),
        ("sorted_indices", p.sorted_indices.clone(), "sorted_indices"),
        (
            "unsorted_indices",
            p.unsorted_indices.clone(),
            "unsorted_indices",
        ),
    ] {
        if got != ints(&want[key]) {
            out.push(format!("{what}: {got:?}, torch {}", want[key]));
        }
    }
}

/// Whether `result` is torch's error of the case (type and message).
fn check_error<T>(result: Result<T>, c: &Json, out: &mut Vec<String>) -> Option<T> {
    match (result, c.get("error")) {
        (Ok(v), None) => Some(v),
        (Ok(_), Some(e)) => {
            out.push(format!("accepted, torch raised {e}"));
            None
        }
        (Err(err), Some(e)) => {
            let (kind, msg) = match &err {
                BorchError::Runtime(m) => ("RuntimeError", m.as_str()),
                BorchError::Value(m) => ("ValueError", m.as_str()),
                _ => ("other", ""),
            };
            if e["type"] != kind || e["message"] != msg {
                out.push(format!("{err:?}, torch {e}"));
            }
            None
        }
        (Err(err), None) => {
            out.push(format!("error {err:?}"));
            None
        }
    }
}

fn loss_of(pairs: &[(&Tensor, Tensor)]) -> Result<Tensor> {
    let mut total: Option<Tensor> = None;
    for (y, g) in pairs {
        let s = y.mul(g)?.sum(None, false)?;
        total = Some(match total {
            Some(t) => t.add(&s)?,
            None => s,
        });
    }
    Ok(total.expect("at least one output"))
}

fn pack_case(c: &Json, out: &mut Vec<String>) -> Result<()> {
    let x = tensor(&c["input"]);
    x.set_requires_grad(true)?;
    let lengths = ints(&c["lengths"]).unwrap();
    let batch_first = c["batch_first"].as_bool().unwrap();
    let packed = pack_padded_sequence(
        &x,
        &lengths,
        batch_first,
        c["enforce_sorted"].as_bool().unwrap(),
    );
    let has_packed = c.get("packed").is_some();
    let Some(p) = (if has_packed {
        packed.ok()
    } else {
        check_error(packed, c, out)
    }) else {
        if has_packed {
            out.push("pack_padded_sequence failed".into());
        }
        return Ok(());
    };
    check_packed(&p, &c["packed"], out);
    let total = c["total_length"].as_u64().map(|t| t as usize);
    let padded = pad_packed_sequence(&p, batch_first, c["padding_value"].as_f64().unwrap(), total);
    let Some((padded, lens)) = check_error(padded, c, out) else {
        return Ok(());
    };
    out.extend(compare("padded", &padded, &c["padded"]));
    if Some(lens.clone()) != ints(&c["padded_lengths"]) {
        out.push(format!("lengths {lens:?}, torch {}", c["padded_lengths"]));
    }
    backward(&loss_of(&[(&padded, tensor(&c["gout"]))])?, None, false)?;
    match x.grad() {
        Some(g) => out.extend(compare("input grad", &g, &c["input_grad"])),
        None => out.push("no input grad".into()),
    }
    Ok(())
}

fn sequence_case(c: &Json, out: &mut Vec<String>) -> Result<()> {
    let seqs: Vec<Tensor> = c["sequences"]
        .as_array()
        .unwrap()
        .iter()
        .map(tensor)
        .collect();
    let Some(p) = check_error(
        pack_sequence(&seqs, c["enforce_sorted"].as_bool().unwrap()),
        c,
        out,
    ) else {
        return Ok(());
    };
    check_packed(&p, &c["packed"], out);
    let back = unpack_sequence(&p)?;
    for (i, (s, want)) in back
        .iter()
        .zip(c["unpacked"].as_array().unwrap())
        .enumerate()
    {
        out.extend(compare(&format!("unpacked {i}"), s, want));
    }
    Ok(())
}

fn module_case(c: &Json, out: &mut Vec<String>) -> Result<()> {
    let o = &c["options"];
    let mode = match (c["class"].as_str().unwrap(), o["nonlinearity"].as_str()) {
        ("LSTM", _) => RnnMode::Lstm,
        ("GRU", _) => RnnMode::Gru,
        (_, Some("relu")) => RnnMode::Relu,
        _ => RnnMode::Tanh,
    };
    let options = RnnOptions {
        num_layers: o["num_layers"].as_u64().unwrap_or(1) as usize,
        bias: o["bias"].as_bool().unwrap_or(true),
        bidirectional: o["bidirectional"].as_bool().unwrap_or(false),
        proj_size: o["proj_size"].as_u64().unwrap_or(0) as usize,
        ..RnnOptions::default()
    };
    let m = RNNBase::new(mode, 3, 4, options)?;
    let sd: StateDict = c["state_dict"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), tensor(v)))
        .collect();
    m.load_state_dict(&sd, true)?;
    let want = &c["packed"];
    let data = tensor(&want["data"]);
    data.set_requires_grad(true)?;
    let p = PackedSequence::new(
        data.clone(),
        ints(&want["batch_sizes"]).unwrap(),
        ints(&want["sorted_indices"]),
    )?;
    let hx = c
        .get("hx")
        .map(|h| h.as_array().unwrap().iter().map(tensor).collect());
    let (y, finals) = m.forward_packed(&p, hx)?;
    out.extend(compare("output", &y.data, &c["output"]));
    let mut pairs = vec![(&y.data, tensor(&c["gout"]))];
    for (i, (f, (w, g))) in finals
        .iter()
        .zip(
            c["finals"]
                .as_array()
                .unwrap()
                .iter()
                .zip(c["gfinals"].as_array().unwrap()),
        )
        .enumerate()
    {
        out.extend(compare(&format!("final state {i}"), f, w));
        pairs.push((f, tensor(g)));
    }
    backward(&loss_of(&pairs)?, None, false)?;
    match data.grad() {
        Some(g) => out.extend(compare("input grad", &g, &c["input_grad"])),
        None => out.push("no input grad".into()),
    }
    for (name, p) in m.named_parameters() {
        match p.grad() {
            Some(g) => out.extend(compare(
                &format!("grad {name}"),
                &g,
                &c["param_grads"][&name],
            )),
            None => out.push(format!("no grad for {name}")),
        }
    }
    Ok(())
}

#[test]
fn packed_sequences_match_torch() -> Result<()> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/rnn_packed_cases.json"
    );
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = data["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    for c in cases {
        let mut out = Vec::new();
        match c["kind"].as_str().unwrap() {
            "pack" => pack_case(c, &mut out)?,
            "sequence" => sequence_case(c, &mut out)?,
            _ => module_case(c, &mut out)?,
        }
        let name = c["name"].as_str().unwrap();
        failures.extend(out.into_iter().map(|m| format!("{name}: {m}")));
    }
    assert_eq!(cases.len(), 24);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

/// A packed input whose feature size is not the module's is refused with torch's message.
#[test]
fn packed_input_checks() -> Result<()> {
    let m = RNNBase::new(RnnMode::Lstm, 3, 4, RnnOptions::default())?;
    let p = PackedSequence::new(
        borch_tensor::zeros(&[3, 5], borch_tensor::DType::Float32)?,
        vec![2, 1],
        None,
    )?;
    let e = m.forward_packed(&p, None).err().unwrap();
    assert_eq!(
        e.to_string(),
        "input.size(-1) must be equal to input_size. Expected 3, got 5"
    );
    assert!(
        PackedSequence::new(
            borch_tensor::zeros(&[4, 3], borch_tensor::DType::Float32)?,
            vec![2, 1],
            None
        )
        .is_err()
    );
    Ok(())
}
