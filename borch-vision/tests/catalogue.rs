//! The model catalogue (`catalogue/` at the repo's root, written by `cargo xtask
//! train-catalogue`): both shipped entries load and reproduce their sample; a tampered weights
//! byte, a wrong size, a changed expected output and malformed manifests are refused, each with
//! the error naming its step. Tampered copies are written to a fresh temp dir.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use borch_tensor::{Result, default_device};
use borch_vision::catalogue::{self, Manifest};

const ENTRIES: [&str; 2] = ["digits_mlp", "digits_cnn"];

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../catalogue")
        .join(format!("{name}.json"))
}

fn manifest_text(name: &str) -> String {
    std::fs::read_to_string(shipped(name)).expect("shipped manifest")
}

fn weights(name: &str) -> Vec<u8> {
    std::fs::read(shipped(name).with_extension("safetensors")).expect("shipped weights")
}

/// A fresh directory under the temp dir, unique per process and call.
fn temp_dir(what: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "borch-catalogue-{}-{}-{what}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes `manifest` and `weights` as `<dir>/<name>.json` and the weights file it names, and
/// loads the copy from disk; returns the error text (the load must fail).
fn refused(what: &str, manifest: &str, weights: &[u8], file: &str) -> String {
    let dir = temp_dir(what);
    let json = dir.join("entry.json");
    std::fs::write(&json, manifest).expect("write manifest");
    std::fs::write(dir.join(file), weights).expect("write weights");
    let err = match catalogue::load(&json) {
        Ok(l) => panic!("{what}: a tampered copy loaded: {l:?}"),
        Err(e) => e.to_string(),
    };
    std::fs::remove_dir_all(&dir).ok();
    println!("{what}: refused: {err}");
    err
}

#[test]
fn shipped_entries_load_and_reproduce_their_sample() -> Result<()> {
    let adapter = default_device()?.adapter_info().short();
    for name in ENTRIES {
        let loaded = catalogue::load(shipped(name))?;
        let m = &loaded.manifest;
        assert_eq!(m.name, name);
        assert_eq!(m.licence, "MIT OR Apache-2.0");
        assert_eq!(m.sample.tolerance, 1e-4);
        assert_eq!(m.weights.bytes, weights(name).len() as u64);
        assert!(loaded.max_sample_diff <= m.sample.tolerance);
        let modules = loaded.model.named_modules();
        assert!(
            modules.iter().all(|(_, m)| !m.is_training()),
            "{name}: not in eval mode"
        );
        println!(
            "{name}: loaded and verified, {} bytes of weights, sample {:?} -> {:?}, max sample \
             diff {:.2e} (tolerance {:e}) [{adapter}]",
            m.weights.bytes,
            m.sample.input_shape,
            m.sample.output_shape,
            loaded.max_sample_diff,
            m.sample.tolerance
        );
    }
    Ok(())
}

#[test]
fn a_flipped_weights_byte_is_refused_at_the_sha256_step() {
    for name in ENTRIES {
        let mut w = weights(name);
        let i = w.len() - 7; // inside the last tensor's data: still a valid safetensors file
        w[i] ^= 0x01;
        let m = Manifest::from_json(&manifest_text(name)).expect("manifest");
        let err = refused("flipped byte", &manifest_text(name), &w, &m.weights.file);
        assert!(
            err.starts_with(&format!(
                "catalogue '{name}': weights sha256: mismatch: expected "
            )),
            "{err}"
        );
        assert!(err.contains(&m.weights.sha256), "{err}");
    }
}

#[test]
fn a_wrong_byte_size_is_refused() {
    let name = "digits_mlp";
    let mut w = weights(name);
    w.push(0);
    let m = Manifest::from_json(&manifest_text(name)).expect("manifest");
    let err = refused("extra byte", &manifest_text(name), &w, &m.weights.file);
    let want = format!(
        "catalogue '{name}': weights size: expected {} bytes, got {}",
        m.weights.bytes,
        w.len()
    );
    assert_eq!(err, want);
}

#[test]
fn a_changed_expected_output_is_refused_at_the_sample_step() {
    for name in ENTRIES {
        let mut m = Manifest::from_json(&manifest_text(name)).expect("manifest");
        m.sample.expected_output[3] += 0.01;
        let err = refused(
            "changed output",
            &m.to_json(),
            &weights(name),
            &m.weights.file,
        );
        assert!(
            err.starts_with(&format!("catalogue '{name}': sample: output differs")),
            "{err}"
        );
        assert!(err.contains("at element 3"), "{err}");
    }
}

#[test]
fn malformed_manifests_are_refused_naming_the_manifest_step() {
    let text = manifest_text("digits_cnn");
    let w = weights("digits_cnn");
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut j = json.clone();
        f(&mut j);
        serde_json::to_string(&j).expect("json")
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "missing field",
            edit(&|j| {
                j["weights"]
                    .as_object_mut()
                    .expect("weights")
                    .remove("sha256");
            }),
            "catalogue 'digits_cnn': manifest is not valid: missing field `sha256`",
        ),
        (
            "bad hex",
            edit(&|j| j["weights"]["sha256"] = "zz".repeat(32).into()),
            "catalogue 'digits_cnn': manifest: weights sha256 'zzzz",
        ),
        (
            "unknown architecture",
            edit(&|j| j["architecture"]["name"] = "digits_transformer".into()),
            "catalogue 'digits_cnn': manifest: unknown architecture 'digits_transformer'",
        ),
        (
            "sample size",
            edit(&|j| {
                j["sample"]["input"].as_array_mut().expect("input").pop();
            }),
            "catalogue 'digits_cnn': manifest: sample input has 127 values",
        ),
        (
            "bad keyword",
            edit(&|j| j["architecture"]["kwargs"]["num_classes"] = "ten".into()),
            "catalogue 'digits_cnn': build: ",
        ),
        (
            "path in file name",
            edit(&|j| j["weights"]["file"] = "../digits_cnn.safetensors".into()),
            "catalogue 'digits_cnn': manifest: weights file '../digits_cnn.safetensors' must be",
        ),
        (
            "not json",
            "{\"format\": 1,".into(),
            "catalogue: manifest is not valid: ",
        ),
        ("empty", String::new(), "catalogue: manifest is not valid: "),
    ];
    for (what, manifest, want) in cases {
        let err = refused(what, &manifest, &w, "digits_cnn.safetensors");
        assert!(err.starts_with(want), "{what}: {err}");
    }
}

#[test]
fn load_from_checks_bytes_held_in_memory_too() {
    let m = Manifest::from_json(&manifest_text("digits_mlp")).expect("manifest");
    let err = catalogue::load_from(m.clone(), &weights("digits_cnn")).expect_err("wrong file");
    assert!(err.to_string().contains("weights size"), "{err}");
    let mut m = m;
    m.architecture.kwargs.insert("hidden".into(), 32.into());
    let err = catalogue::load_from(m, &weights("digits_mlp")).expect_err("wrong hidden size");
    assert!(
        err.to_string()
            .starts_with("catalogue 'digits_mlp': weights: "),
        "{err}"
    );
    println!("hidden=32 for hidden=64 weights: refused: {err}");
}
