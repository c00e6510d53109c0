use std::fmt;

/// Which adapter to prefer when several are present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PowerPreference {
    /// The high-performance adapter (a discrete GPU when there is one).
    #[default]
    HighPerformance,
    /// The low-power adapter (an integrated GPU when there is one).
    LowPower,
}

/// How to choose the adapter. `backend` overrides `BORCH_BACKEND` (e.g. "vulkan", "gl").
#[derive(Debug, Clone, Default)]
pub struct DeviceOptions {
    /// Prefer the high-performance or the low-power adapter (wgpu's `PowerPreference`).
    pub power_preference: PowerPreference,
    /// Ask for wgpu's fallback (software) adapter.
    pub force_fallback_adapter: bool,
    /// A backend by name ("vulkan", "metal", "dx12", "gl", "webgpu"); `None` reads `BORCH_BACKEND`.
    pub backend: Option<String>,
}

/// The adapter, described for people: every report line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterInfo {
    /// The vendor, lower case ("nvidia", "amd", "intel", "apple", "mesa", "google", ...).
    pub vendor: String,
    /// The architecture when recognised ("llvmpipe", "swiftshader", "hopper", ...), else "unknown".
    pub architecture: String,
    /// The device name the driver reports.
    pub device: String,
    /// The backend ("Vulkan", "Metal", "Dx12", "Gl", "BrowserWebGpu").
    pub backend: String,
    /// The driver's name and version.
    pub driver: String,
    /// wgpu's device type ("DiscreteGpu", "IntegratedGpu", "Cpu", ...).
    pub device_type: String,
    /// Judged, not just reported: lavapipe, llvmpipe, SwiftShader, WARP or a CPU device type.
    pub is_software: bool,
}

const SOFTWARE_NAMES: [&str; 5] = ["llvmpipe", "lavapipe", "swiftshader", "warp", "softpipe"];

impl AdapterInfo {
    pub(crate) fn from_wgpu(info: &wgpu::AdapterInfo) -> Self {
        let lower = format!("{} {}", info.name, info.driver).to_lowercase();
        let is_software = info.device_type == wgpu::DeviceType::Cpu
            || SOFTWARE_NAMES.iter().any(|n| lower.contains(n));
        AdapterInfo {
            vendor: vendor_name(info.vendor, &lower),
            architecture: architecture_name(&lower),
            device: info.name.clone(),
            backend: format!("{:?}", info.backend),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            device_type: format!("{:?}", info.device_type),
            is_software,
        }
    }

    /// A browser's adapter, from its `GPUAdapterInfo` strings (wgpu's WebGPU backend passes only
    /// the description through). Judged software when the browser reports a fallback adapter or
    /// a name is a software rasteriser's (Chromium's WebGPU without a GPU is SwiftShader).
    pub fn from_browser(
        vendor: &str,
        architecture: &str,
        device: &str,
        description: &str,
        is_fallback: bool,
    ) -> Self {
        let or_unknown = |s: &str| if s.is_empty() { "unknown" } else { s }.to_string();
        let lower = format!("{vendor} {architecture} {device} {description}").to_lowercase();
        AdapterInfo {
            vendor: or_unknown(vendor),
            architecture: or_unknown(architecture),
            device: [device, description]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or("")
                .to_string(),
            backend: format!("{:?}", wgpu::Backend::BrowserWebGpu),
            driver: description.to_string(),
            device_type: if is_fallback { "Cpu" } else { "Other" }.to_string(),
            is_software: is_fallback || SOFTWARE_NAMES.iter().any(|n| lower.contains(n)),
        }
    }

    /// `vendor / architecture (backend)`, the form report lines end with.
    pub fn short(&self) -> String {
        let soft = if self.is_software { ", software" } else { "" };
        format!(
            "{} / {} ({}{})",
            self.vendor, self.architecture, self.backend, soft
        )
    }
}

impl fmt::Display for AdapterInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}; {}; {}]",
            self.device,
            self.short(),
            self.device_type,
            self.driver
        )
    }
}

fn vendor_name(id: u32, lower: &str) -> String {
    match id {
        0x10de => "nvidia".into(),
        0x1002 | 0x1022 => "amd".into(),
        0x8086 => "intel".into(),
        0x106b => "apple".into(),
        0x13b5 => "arm".into(),
        0x5143 => "qualcomm".into(),
        0x1414 => "microsoft".into(),
        0x10005 => "mesa".into(),
        0x1ae0 => "google".into(),
        _ if lower.contains("llvmpipe") || lower.contains("lavapipe") => "mesa".into(),
        _ if lower.contains("swiftshader") => "google".into(),
        0 => "unknown".into(),
        other => format!("0x{other:04x}"),
    }
}

fn architecture_name(lower: &str) -> String {
    for (needle, arch) in [
        ("llvmpipe", "llvmpipe"),
        ("lavapipe", "llvmpipe"),
        ("swiftshader", "swiftshader"),
        ("h200", "hopper"),
        ("h100", "hopper"),
        ("a100", "ampere"),
        ("rtx 40", "ada"),
        ("rtx 30", "ampere"),
        ("apple m", "apple"),
    ] {
        if lower.contains(needle) {
            return arch.into();
        }
    }
    "unknown".into()
}

pub(crate) fn backends_from(options: &DeviceOptions) -> wgpu::Backends {
    let env = std::env::var("BORCH_BACKEND").ok();
    match options.backend.as_deref().or(env.as_deref()) {
        Some(list) if !list.is_empty() => wgpu::Backends::from_comma_list(list),
        _ => wgpu::Backends::all(),
    }
}

#[cfg(test)]
mod tests {
    use super::AdapterInfo;

    #[test]
    fn browser_adapters_are_judged_by_name_and_fallback_flag() {
        let swiftshader = AdapterInfo::from_browser("google", "swiftshader", "", "", false);
        assert!(swiftshader.is_software);
        assert_eq!(
            swiftshader.short(),
            "google / swiftshader (BrowserWebGpu, software)"
        );
        let fallback = AdapterInfo::from_browser("", "", "", "", true);
        assert!(fallback.is_software);
        assert_eq!(fallback.vendor, "unknown");
        let gpu = AdapterInfo::from_browser("nvidia", "hopper", "", "NVIDIA H200", false);
        assert!(!gpu.is_software);
        assert_eq!(gpu.device, "NVIDIA H200");
    }
}
