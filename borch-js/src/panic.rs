//! A Rust panic in the browser is printed to the console with its message and place before the
//! instance traps (the default prints nothing useful), and handed to `js/guard.js`, which names it
//! in the error every later call throws (the trapped instance cannot run again). Bad input is an
//! error, never a panic: a message here is a bug in borch.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

#[wasm_bindgen(module = "/js/guard.js")]
extern "C" {
    #[wasm_bindgen(js_name = notePanic)]
    fn note_panic(message: &str);
}

/// Runs once when the wasm instance starts.
#[wasm_bindgen(start)]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("borch panicked (a bug in borch): {info}");
        console_error(&message);
        note_panic(&message);
    }));
}
