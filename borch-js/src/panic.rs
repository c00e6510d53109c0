//! A Rust panic in the browser is printed to the console with its message and place before the
//! instance traps (the default prints nothing useful). Bad input is an error, never a panic: a
//! message here is a bug in borch.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Runs once when the wasm instance starts.
#[wasm_bindgen(start)]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("borch panicked (a bug in borch): {info}"));
    }));
}
