//! What the demo needs before it opens the device: an adapter — lavapipe (Debian's
//! `mesa-vulkan-drivers`, a software Vulkan GPU) is installed when no Vulkan driver for it is
//! present and no other adapter opens. (`XDG_RUNTIME_DIR` is borch-device's business.)

use std::path::Path;
use std::process::Command;

use borch_tensor::{Device, DeviceOptions, default_device};

/// The default device, installing lavapipe first when none can be opened.
pub fn open_device() -> Result<Device, String> {
    if !has_lavapipe() && pollster::block_on(borch_tensor::init(&DeviceOptions::default())).is_err()
    {
        install_lavapipe()?;
    }
    default_device().map_err(|e| format!("no adapter could be opened: {e}"))
}

fn has_lavapipe() -> bool {
    std::fs::read_dir("/usr/share/vulkan/icd.d").is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("lvp_icd") && name.ends_with(".json")
        })
    })
}

fn uid() -> String {
    Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "0".into())
}

fn install_lavapipe() -> Result<(), String> {
    if !Path::new("/usr/bin/apt-get").exists() {
        return Err(
            "no GPU adapter found, and no apt-get to install lavapipe (a software Vulkan \
                    driver): install your system's Vulkan driver and loader"
                .into(),
        );
    }
    println!(
        "no GPU adapter found: installing mesa-vulkan-drivers and libvulkan1 from Debian \
         (the Vulkan loader and lavapipe, a software GPU)"
    );
    let root = uid() == "0";
    let run = |args: &[&str]| -> Result<(), String> {
        let (program, rest) = if root {
            (args[0], &args[1..])
        } else {
            ("sudo", args)
        };
        let status = Command::new(program)
            .args(rest)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("{program}: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("`{}` failed ({status})", args.join(" ")))
        }
    };
    run(&["apt-get", "update", "-qq"])?;
    run(&[
        "apt-get",
        "install",
        "-y",
        "-qq",
        "mesa-vulkan-drivers",
        "libvulkan1",
    ])
}
