//! README.md's Rust quick start is examples/quickstart.rs word for word, and it runs (its own
//! assert checks that the loss falls tenfold).

mod quickstart {
    include!("../examples/quickstart.rs");
    pub fn run() -> borch_tensor::Result<()> {
        main()
    }
}

#[test]
fn readme_quick_start_is_the_example_and_it_trains() {
    let readme = include_str!("../../README.md");
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README.md has a ```rust block");
    assert_eq!(
        block,
        include_str!("../examples/quickstart.rs"),
        "README.md's Rust quick start must be borch-nn/examples/quickstart.rs"
    );
    quickstart::run().unwrap();
}
