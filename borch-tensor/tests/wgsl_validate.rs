//! Every generated kernel parses and validates with naga, without a GPU.

#[test]
fn every_kernel_validates() {
    let sources = borch_tensor::kernel_sources();
    assert!(sources.len() > 100, "the table generates kernels");
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
        "wgsl: {} kernels validated by naga, {} failed",
        sources.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
