//! Every specialisation of every optimizer kernel parses and validates with naga, without a GPU.

#[test]
fn every_optimizer_kernel_validates() {
    let sources = borch_optim::kernel_sources();
    let mut failures = Vec::new();
    for (name, source) in &sources {
        let module = match naga::front::wgsl::parse_str(source) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {}", e.emit_to_string(source)));
                continue;
            }
        };
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        );
        if let Err(e) = validator.validate(&module) {
            failures.push(format!("{name}: {e:?}"));
        }
    }
    println!(
        "wgsl: {} optimizer kernels validated by naga",
        sources.len()
    );
    // sgd, adam, rmsprop, adagrad; adamax, nadam, radam, adadelta, asgd, rprop.
    assert_eq!(sources.len(), 16 + 16 + 16 + 4 + 4 + 8 + 16 + 4 + 8 + 2);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
