//! A missing or unusable NVPTX toolchain is an error that says how to get one.
//! (Its own test binary: it sets a process-wide environment variable.)

#[test]
fn an_unusable_toolchain_says_how_to_get_one() {
    std::env::set_var("CG_NVPTX_RUSTC", "/nonexistent/rustc");
    let e = cg_builder::toolchain::Toolchain::find()
        .unwrap_err()
        .to_string();
    assert!(e.contains("CG_NVPTX_RUSTC is set but unusable"), "{e}");
    assert!(e.contains("/nonexistent/rustc does not exist"), "{e}");
    assert!(
        e.contains("apt-get install rustc-web cargo-web rust-web-src"),
        "{e}"
    );
    assert!(
        e.contains("rustup toolchain install nightly --component rust-src"),
        "{e}"
    );
}
