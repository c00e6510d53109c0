//! The package's `utils` namespace: torch.utils.checkpoint's `checkpoint`
//! (`utils.checkpoint.checkpoint(fn, ...inputs, { useReentrant: false })`, borch-js's
//! `checkpointCore`), its options' type generated from the core's signature
//! (`borch_autograd::CHECKPOINT_OPTIONS`). torch.utils.data stays the package's `data`.

use borch_tensor::api::parse_params;

use super::types;

/// The object in index.js: one forwarding member.
pub fn utils_js() -> String {
    "\n// torch.utils.checkpoint (borch-js/src/grad_checkpoint.rs).\n\
     export const utils = Object.freeze({\n  checkpoint: Object.freeze({\n    \
     checkpoint: function (fn, ...args) { ready('checkpoint'); return wasm.checkpointCore(fn, args); },\n  \
     }),\n});\n"
        .into()
}

/// `{ useReentrant?: boolean; … }` from the core's signature.
fn options_type() -> String {
    let forms = types::constructor_forms(&parse_params(borch_autograd::CHECKPOINT_OPTIONS));
    let last = forms.last().cloned().unwrap_or_default();
    last.trim_start_matches("options: ").to_string()
}

/// The declarations in index.d.ts.
pub fn utils_dts() -> String {
    format!(
        "\n/** torch.utils.checkpoint.checkpoint's keyword options (camelCase), from the core's \
         signature. borch has torch's non-reentrant variant: pass `useReentrant: false`. */\n\
         export type CheckpointOptions = {};\n\
         /** torch.utils: `checkpoint` (torch.utils.data is the package's `data`). */\n\
         export declare const utils: {{\n  readonly checkpoint: {{\n    \
         /** torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=False): `fn(...inputs)` \
         run without keeping its intermediate values, and run again in the backward to \
         differentiate it (the tensors it captures, a module's parameters, get their gradients). \
         `fn` must return one Tensor; a throw of it (in the forward or the backward's recompute) \
         is thrown as it was. */\n    \
         checkpoint(fn: (...inputs: Tensor[]) => Tensor, ...args: [...inputs: Tensor[], options: CheckpointOptions]): Tensor;\n  \
         }};\n}};\n",
        options_type()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_follow_the_core_signature() {
        let d = utils_dts();
        assert!(d.contains("export type CheckpointOptions = { useReentrant?: boolean; preserveRngState?: boolean; determinismCheck?: string; debug?: boolean; earlyStop?: boolean };"), "{d}");
        assert!(utils_js().contains("return wasm.checkpointCore(fn, args);"));
    }
}
