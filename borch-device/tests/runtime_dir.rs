//! Without `XDG_RUNTIME_DIR`, opening the device prints nothing about it (the Wayland client
//! behind EGL would print "error: XDG_RUNTIME_DIR is invalid or not set in the environment."
//! twice): borch-device points it at a private folder first. The check runs this test binary
//! again as a child process with the variable removed and reads the child's stderr.

use std::process::Command;

const CHILD: &str = "BORCH_RUNTIME_DIR_CHILD";

/// In the child: open the device and print what `XDG_RUNTIME_DIR` became.
#[test]
fn child_opens_the_device() {
    if std::env::var_os(CHILD).is_none() {
        return; // only meaningful as the child of the test below
    }
    let device = borch_device::default_device().expect("an adapter");
    println!("adapter: {}", device.adapter_info().short());
    println!(
        "XDG_RUNTIME_DIR={}",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_default()
    );
}

#[test]
#[cfg(all(unix, not(target_vendor = "apple")))]
fn no_runtime_dir_lines_without_xdg_runtime_dir() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_opens_the_device",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("XDG_RUNTIME_DIR")
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        !stderr.contains("XDG_RUNTIME_DIR"),
        "the child printed about XDG_RUNTIME_DIR:\n{stderr}"
    );
    let dir = stdout
        .lines()
        .find_map(|l| l.strip_prefix("XDG_RUNTIME_DIR="))
        .expect("the child printed its XDG_RUNTIME_DIR");
    let name = std::path::Path::new(dir)
        .file_name()
        .unwrap()
        .to_string_lossy();
    assert!(name.starts_with("borch-xdg-"), "XDG_RUNTIME_DIR={dir}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{dir} has mode {mode:o}");
}
