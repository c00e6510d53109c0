//! `XDG_RUNTIME_DIR` for processes started without one (a container, `env -i`, cron): while wgpu
//! probes its backends, the Wayland client library behind EGL prints "error: XDG_RUNTIME_DIR is
//! invalid or not set in the environment." (twice). Before the first instance is created, an
//! unset variable is pointed at a private folder, `$TMPDIR/borch-xdg-<uid>` (mode 700), quietly;
//! when that folder cannot be made, the variable stays unset and the library's lines remain.

#[cfg(all(unix, not(target_vendor = "apple")))]
pub(crate) fn ensure() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
            return;
        }
        if let Some(dir) = private_dir() {
            // SAFETY: `set_var` races with C code reading the environment on another thread.
            // This runs once, before borch's first wgpu instance; other threads that open a
            // device wait on `ONCE` until it is done, and Rust's own `env::var` takes std's lock.
            unsafe { std::env::set_var("XDG_RUNTIME_DIR", dir) };
        }
    });
}

#[cfg(not(all(unix, not(target_vendor = "apple"))))]
pub(crate) fn ensure() {}

/// `$TMPDIR/borch-xdg-<uid>`, made with mode 700 and owned by this user, or `None`.
#[cfg(all(unix, not(target_vendor = "apple")))]
fn private_dir() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let dir = std::env::temp_dir().join(format!("borch-xdg-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0).then_some(dir)
}
