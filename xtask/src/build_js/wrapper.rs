//! The package's public surface: `index.js` over wasm-bindgen's glue and `index.d.ts` with its
//! types. The hand-written part loads the wasm once and refuses calls before `init()`; every
//! tensor op (method and function) is generated from the core's op catalog by `js_api`.

use std::fs;
use std::path::Path;

use super::data_js;
use crate::js_api;

/// Write `index.js` and `index.d.ts` into `pkg_dir`, which holds wasm-bindgen's output.
pub fn write(pkg_dir: &Path) -> Result<(), String> {
    let snippets = snippets_dir(pkg_dir)?;
    let js = INDEX_JS.replace("{snippets}", &snippets)
        + data_js::DATA_JS
        + &js_api::forwarding_js()
        + &js_api::module_functions::objects_js()
        + &js_api::namespaces::objects_js()
        + &js_api::classes_js()
        + &namespaces_js()
        + js_api::vision::catalogue_js()
        + &js_api::vision::objects_js()
        + &js_api::checkpoint::utils_js()
        + GUARD_CATALOG_JS;
    write_file(&pkg_dir.join("index.js"), &js)?;
    let dts = INDEX_D_TS.replace("  {tensor_methods}\n", &js_api::method_declarations())
        + data_js::DATA_D_TS
        + &js_api::function_declarations()
        + &js_api::functional_declarations()
        + &js_api::namespaces::declarations()
        + &js_api::module_functions::declarations()
        + &js_api::classes_dts()
        + &namespaces_dts()
        + &js_api::vision::declarations()
        + &js_api::checkpoint::utils_dts();
    write_file(&pkg_dir.join("index.d.ts"), &dts)?;
    write_file(&pkg_dir.join("signatures.json"), &js_api::signatures_json())
}

/// `nn`, `optim` and `optim.lrScheduler`: the exported classes grouped by the lists borch-js
/// derives from the macros that define them (`borch_js::namespace_lists`).
fn groups() -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for (namespace, classes) in borch_js::namespace_lists() {
        let names = classes.into_iter().map(str::to_string).collect();
        match namespace {
            "nn" => out.0 = names,
            "optim" => out.1 = names,
            _ => out.2 = names,
        }
    }
    out
}

/// `<indent>Name: value(Name)<end>` lines; a class of the module catalog is the generated one
/// (`js_api::classes_js`), declared in `catalog`.
fn members(classes: &[String], indent: &str, value: &str, end: &str) -> String {
    classes
        .iter()
        .map(|c| {
            let v = match (js_api::is_catalog(c), value.starts_with("typeof")) {
                (true, true) => format!("typeof catalog.{c}"),
                (true, false) => c.clone(),
                _ => value.replace("{}", c),
            };
            format!("{indent}{c}: {v}{end}\n")
        })
        .collect()
}

fn namespaces_js() -> String {
    let (nn, _, _) = groups();
    format!(
        "\n// The classes of borch_js::namespace_lists, grouped as torch's modules.\n\
         export const nn = Object.freeze({{\n{}  functional,\n{}  intrinsic: {},\n}});\n",
        members(&nn, "  ", "classes.{}", ","),
        js_api::namespaces::nested_members("nn", false),
        js_api::INTRINSIC_OBJECT,
    ) + &js_api::optim_classes::namespace_js()
}

fn namespaces_dts() -> String {
    let (nn, _, _) = groups();
    format!(
        "\nimport type * as glue from './borch_js.js';\n\
         export declare const nn: {{\n{}  readonly functional: Functional;\n{}{}}};\n",
        members(&nn, "  readonly ", "typeof glue.{}", ";"),
        js_api::namespaces::nested_members("nn", true),
        js_api::intrinsic_member_dts(),
    ) + &js_api::optim_classes::namespace_dts()
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `./snippets/<crate-hash>/js`: wasm-bindgen copies the crate's JS snippets under a hashed
/// folder; index.js imports the same modules (errors.js, guard.js) so that `BorchError` is the
/// class the glue throws and the brands the glue's objects get are the ones Rust asks about.
fn snippets_dir(pkg_dir: &Path) -> Result<String, String> {
    let snippets = pkg_dir.join("snippets");
    let entries = fs::read_dir(&snippets).map_err(|e| format!("{}: {e}", snippets.display()))?;
    for entry in entries.flatten() {
        if entry.path().join("js/errors.js").is_file() && entry.path().join("js/guard.js").is_file()
        {
            return Ok(format!(
                "./snippets/{}/js",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    Err(format!(
        "no js/errors.js and js/guard.js under {}",
        snippets.display()
    ))
}

/// The catalog's methods were added to `Tensor.prototype` after the first `guardClasses`: guard
/// them too (it wraps only what is not wrapped yet).
const GUARD_CATALOG_JS: &str = "\n// Receiver checks for the catalog's methods too (borch-js/js/guard.js).\nguardClasses(glue);\n";

const INDEX_JS: &str = r#"// borch-ts: borch (a PyTorch-shaped deep-learning library on WebGPU) for JavaScript.
// Generated by `cargo xtask build-js`; do not edit.

import initWasm, * as glue from './borch_js.js';
import { BorchError } from '{snippets}/errors.js';
import { adopt, guardClasses, guardFunctions } from '{snippets}/guard.js';

// Every method, getter and setter of every class checks its receiver (a live object of that
// class), and what `new` makes is branded; after a trap (a borch bug) every call throws a clear
// error instead of running on a broken heap (borch-js/js/guard.js).
const classes = guardClasses(glue);
const wasm = guardFunctions(glue);

export { BorchError };
export const Tensor = classes.Tensor;

// torch.utils.data: `data` and `Generator` (data_js.rs).

let loading = null;
let loaded = false;

// The .wasm beside this file: fetched in a browser, read from disk under Node (whose fetch has
// no file: URLs).
async function wasmSource() {
  const url = new URL('./borch_js_bg.wasm', import.meta.url);
  if (url.protocol === 'file:') {
    const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
    return readFile(url);
  }
  return url;
}

// Instantiate the wasm module once.
function loadWasm() {
  loading ??= (async () => {
    await initWasm({ module_or_path: await wasmSource() });
    loaded = true;
  })();
  return loading;
}

function ready(name) {
  if (!loaded) {
    throw new BorchError(
      'DeviceError',
      `the default device is not initialised: call borch's init() first (before ${name}())`,
    );
  }
}

/** Open the default WebGPU device (later calls return the first); resolves to its adapter. */
export async function init(options) {
  await loadWasm();
  return wasm.init(options);
}

/** Whether WebGPU is usable here, without opening a device. Works before init(). */
export async function probe(options) {
  await loadWasm();
  return wasm.probe(options);
}

export function tensor(data, options) {
  ready('tensor');
  return wasm.tensor(data, options);
}

export function memory() {
  ready('memory');
  return wasm.memoryStats();
}

export function pooled() {
  ready('pooled');
  return wasm.pooled();
}

export function emptyCache() {
  ready('emptyCache');
  return wasm.emptyCache();
}

export function manualSeed(seed) {
  ready('manualSeed');
  return wasm.manualSeed(seed);
}

export function save(obj) {
  ready('save');
  return wasm.saveStateDict(obj);
}

export function load(bytes) {
  ready('load');
  return wasm.loadStateDict(bytes);
}

export function saveCheckpoint(model, optimizer, scheduler, epoch) {
  ready('saveCheckpoint');
  return wasm.saveCheckpoint(model, optimizer, scheduler, epoch);
}

export function loadCheckpoint(bytes, model, optimizer, scheduler) {
  ready('loadCheckpoint');
  return wasm.loadCheckpoint(bytes, model, optimizer, scheduler);
}

export function dispatches() {
  ready('dispatches');
  return wasm.dispatches();
}

export function submits() {
  ready('submits');
  return wasm.submits();
}

export function bindGroupsCreated() {
  ready('bindGroupsCreated');
  return wasm.bindGroupsCreated();
}

/** upstream's `compiled(fn)` / `compiled(module)`: a function (also reachable as `.forward`)
 * whose device work is recorded on the first call per input shapes and replayed later. */
export function compiled(target) {
  ready('compiled');
  const core = wasm.compiledCore(target);
  const call = (...args) => core.call(args);
  return Object.assign(call, {
    forward: call,
    module: target,
    replays: () => core.replays(),
    recordings: () => core.recordings(),
    divergences: () => core.divergences(),
  });
}

export const Scope = classes.Scope;

/** Run `callback(scope)` in a memory scope; tensors made inside are released when it settles. */
export function scope(callback) {
  ready('scope');
  return wasm.scope(callback);
}

export function keepAlive(t) {
  return wasm.keepAlive(t);
}

export function asFloat(x) {
  ready('asFloat');
  return wasm.asFloat(x);
}

export function noGrad(fn) {
  ready('noGrad');
  return wasm.noGrad(fn);
}

export function enableGrad(fn) {
  ready('enableGrad');
  return wasm.enableGrad(fn);
}

export function setGradEnabled(mode) {
  ready('setGradEnabled');
  return wasm.setGradEnabled(mode);
}

export function enterScope() {
  ready('enterScope');
  return wasm.enterScope();
}

const callMethod = (name, self, args) => wasm.callMethod(name, self, args);

function callFunction(name, args) {
  ready(name);
  return wasm.callFunction(name, args);
}

// Async entries of the catalog (the result's shape depends on the values): a Promise.
const callMethodAsync = (name, self, args) => wasm.callMethodAsync(name, self, args);

function callFunctionAsync(name, args) {
  ready(name);
  return wasm.callFunctionAsync(name, args);
}

function callFunctional(name, args) {
  ready(name);
  return wasm.callFunctional(name, args);
}

function callIn(namespace, name, args) {
  ready(name);
  return wasm.callIn(namespace, name, args);
}

// `nn.utils.fusion.fuseConvBnEval(conv, bn)`: functions taking modules, lent to the core.
function callWithModules(namespace, name, args) {
  ready(name);
  return wasm.callWithModules(namespace, name, args);
}

// `new nn.<Class>(...args)`: the core builds the module by name, and the object gets the prototype
// of the class `new` ran on (nn.Linear, or a class extending it).
function buildModule(target, name, args) {
  ready(name);
  return Object.setPrototypeOf(wasm.newModule(name, args), target.prototype);
}

// `new nn.TransformerEncoder(layer, n, …)`: a class whose constructor takes modules; the core
// deep-copies them (the caller's layer stays its own).
function buildStack(target, name, args) {
  ready(name);
  return Object.setPrototypeOf(wasm.newStack(name, args), target.prototype);
}

// `new nn.intrinsic.ConvReLU2d(conv, relu)`: the modules move into the fused module (as into a
// Sequential), which the core checks and builds.
function buildFused(target, name, args) {
  ready(name);
  return Object.setPrototypeOf(wasm.newFused(name, args), target.prototype);
}

/** torch.onnx.export: the ONNX model (opset 17) of `model`'s eval forward traced on `sample`
 * (a Tensor or an array of Tensors), as a Promise of the file's bytes. `options`: inputNames,
 * outputNames, dynamicAxes ({ name: { axis: symbol } } or { name: [axes] }), opsetVersion. */
async function exportOnnx(model, sample, options = {}) {
  ready('exportOnnx');
  // torch's dict form of dynamic_axes as the core's [name, [[axis, symbol], ...]] pairs (the
  // core's values have no dict); borch_webgpu sends the snake_case key.
  const o = { ...options };
  for (const key of ['dynamicAxes', 'dynamic_axes']) {
    const d = o[key];
    if (d && typeof d === 'object' && !Array.isArray(d)) {
      o[key] = Object.entries(d).map(([name, axes]) => [
        name,
        Array.isArray(axes) ? axes : Object.entries(axes).map(([a, s]) => [Number(a), s]),
      ]);
    }
  }
  return wasm.exportOnnxCore(model, [sample, o]);
}

/** ONNX export (borch-onnx; docs/onnx.md). */
export const onnx = Object.freeze({ exportOnnx });

// `vision.models.resnet18({ numClasses })`: borch-vision's model catalog builds the model.
function buildModel(name, args) {
  ready(name);
  return wasm.newModel(name, args);
}

"#;

const INDEX_D_TS: &str = r#"// borch-ts: borch (a PyTorch-shaped deep-learning library on WebGPU) for JavaScript.
// Generated by `cargo xtask build-js`; do not edit.

// DType (int64 is stored in 32 bits: values outside int32 are refused), Element (a number, or a
// boolean for bool tensors), ElementOf<D> (the element of dtype D) and Nested<T> (what torch's
// `tolist()` returns) are borch-js's.
import type { DType, Element, ElementOf, FloatScalar, Nested } from './borch_js.js';
export type { DType, Element, ElementOf, FloatScalar, Nested };

// wasm-bindgen gives every class a `[Symbol.dispose]()` (its `free()`, for `using`). Declared here
// as @types/node declares it, so that the package's types compile under libs without
// `esnext.disposable` (Vite's template: ES2023 + DOM) with `skipLibCheck: false`; where the lib
// declares it too, the two declarations merge.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** Typed arrays `tensor()` accepts: float arrays give float32, integer arrays int64. */
export type NumericArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/** Data for `tensor()`: nested arrays of numbers, booleans or bigints, with typed arrays as rows. */
export type TensorData = Nested<number | boolean | bigint | NumericArray>;

export interface TensorOptions {
  /** Without it: bool for booleans only, int64 for integer typed arrays and bigints, else float32. */
  dtype?: DType;
  /** torch's `requires_grad=True`: a leaf that records its gradient (floating point only). */
  requiresGrad?: boolean;
}

export interface InitOptions {
  powerPreference?: 'high-performance' | 'low-power';
  forceFallbackAdapter?: boolean;
}

/** The browser's GPUAdapterInfo strings. */
export interface AdapterDescription {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
}

export interface AdapterFound {
  ok: true;
  adapter: AdapterDescription;
  /** Judged by borch: a fallback adapter or a software rasteriser (SwiftShader, llvmpipe, WARP). */
  software: boolean;
}

export interface AdapterMissing {
  ok: false;
  /** `no-api`: no `navigator.gpu`; `no-adapter`: WebGPU offers no adapter. */
  why: 'no-api' | 'no-adapter';
}

export type ProbeResult = AdapterFound | AdapterMissing;

export interface MemoryStats {
  /** Buffers held by live tensors (views share their base's buffer). */
  buffers: number;
  bytes: number;
}

export interface PoolStats {
  /** Buffers the pool keeps for reuse. */
  buffers: number;
  bytes: number;
}

/** The name of the exception torch raises for the same mistake, plus borch's own two. */
export type ErrorKind =
  | 'RuntimeError'
  | 'IndexError'
  | 'TypeError'
  | 'ValueError'
  | 'NotImplementedError'
  | 'ReleasedError'
  | 'DeviceError';

/**
 * A core error other than an index error (thrown as `RangeError`) or a wrong argument type
 * (thrown as `TypeError`); those two carry `kind` too.
 */
export declare class BorchError extends Error {
  constructor(kind: ErrorKind, message: string);
  readonly kind: ErrorKind;
}

// One Tensor type everywhere: wasm-bindgen's class (shape, dtype, item, toArray, grad, backward,
// free, as borch-js declares them), given every op of the core's catalog as a method, so tensors
// from modules, optimizers and scopes have the ops too.
import { Tensor } from './borch_js.js';
export { Tensor };

declare module './borch_js.js' {
  interface Tensor {
    /**
     * torch's `item()`: the one element of a one-element tensor, read back from the device. It
     * resolves to a number for float32 and int64 tensors (the default type argument) and to a
     * boolean for bool tensors, which you state as `await mask.item<'bool'>()` (`t.dtype` says
     * which at run time; the type argument is not checked).
     */
    item<D extends DType = 'float32'>(): Promise<ElementOf<D>>;
    /** torch's `tolist()`: nested arrays of elements (a bare element for a 0-d tensor); the type
     * argument as for `item()`. */
    toArray<D extends DType = 'float32'>(): Promise<Nested<ElementOf<D>>>;
  {tensor_methods}
  }
}

/** The scope a `scope()` callback receives. */
export declare class Scope {
  private constructor();
  /** Hand `t` to the enclosing scope (or out of scoping at top level); returns `t`. */
  keep(t: Tensor): Tensor;
  /** End a scope opened by `enterScope()`. */
  exit(): void;
}

/** Run `callback` in a memory scope: every tensor made inside is released when it settles,
 * except those kept with `s.keep(t)` or `keepAlive(t)`. Resolves to the callback's result. */
export declare function scope<T>(callback: (s: Scope) => T | Promise<T>): Promise<T>;
/** Exempt `t` from every scope (parameters, optimizer state); returns `t`. */
export declare function keepAlive(t: Tensor): Tensor;
/** Python's float `x` where a whole number must count as a float (`intTensor.mul(asFloat(2))` is
 * float32, as `t * 2.0` in torch); a plain integral number binds as an int. */
export declare function asFloat(x: number): FloatScalar;
/** A function that is not async: what `noGrad` and `enableGrad` run (its result is not a Promise). */
export type SyncBody<T> = () => T extends PromiseLike<unknown> ? never : T;
/** torch's `no_grad()`: run `fn` with gradient recording off and return its result. `fn` must be
 * synchronous: an async function (or one returning a Promise) is refused with a TypeError, since
 * the mode could not follow it across its awaits (docs/js.md, "Grad mode"). */
export declare function noGrad<T>(fn: SyncBody<T>): T;
/** torch's `enable_grad()`: run `fn` with gradient recording on (inside a `noGrad` body, say);
 * synchronous only, as `noGrad`. */
export declare function enableGrad<T>(fn: SyncBody<T>): T;
/** torch's `set_grad_enabled(mode)` as a switch: on or off until set again (across awaits, for
 * all code); returns the previous state. */
export declare function setGradEnabled(mode: boolean): boolean;
/** Open a scope ended by `s.exit()` (for Python's `with`); exit in reverse order of entry. */
export declare function enterScope(): Scope;

/** Open the default WebGPU device (later calls return the first); resolves to its adapter. */
export declare function init(options?: InitOptions): Promise<AdapterFound>;
/** Whether WebGPU is usable here, without opening a device. Works before `init()`. */
export declare function probe(options?: InitOptions): Promise<ProbeResult>;
/** torch's `tensor(data, dtype=None, requires_grad=False)`; other option keys are a TypeError. */
export declare function tensor(data: TensorData, options?: TensorOptions): Tensor;
export declare function memory(): MemoryStats;
export declare function pooled(): PoolStats;
export declare function emptyCache(): void;
export declare function manualSeed(seed: number | bigint): void;
/** torch's `torch.save(stateDict)`: safetensors bytes of a name → Tensor object (docs/checkpoints.md). */
export declare function save(stateDict: Record<string, Tensor>): Promise<Uint8Array>;
/** torch's `torch.load(bytes)`: the tensors of safetensors bytes, name → Tensor. */
export declare function load(bytes: Uint8Array): Record<string, Tensor>;
/** A borch extension (torch pickles a dict): the model, optimizer, scheduler (or null), epoch and
 * torch's RNG state as one safetensors file (docs/checkpoints.md). */
export declare function saveCheckpoint(model: { readonly __borchModule: number }, optimizer: import('./borch_js.js').Optimizer, scheduler: import('./borch_js.js').LRScheduler | null, epoch: number): Promise<Uint8Array>;
/** A borch extension: restore what `saveCheckpoint` wrote (strictly) and return its epoch. */
export declare function loadCheckpoint(bytes: Uint8Array, model: { readonly __borchModule: number }, optimizer: import('./borch_js.js').Optimizer, scheduler: import('./borch_js.js').LRScheduler | null): number;
/** Dispatches recorded on the default device so far. */
export declare function dispatches(): number;
/** Submits to the default device's queue so far. */
export declare function submits(): number;
/** Bind groups created on the default device so far (a `compiled` replay that binds the
 * recorded buffers creates none). */
export declare function bindGroupsCreated(): number;
/** What `compiled(...)` returns: callable like the function (or the module's `forward`). */
export type CompiledFunction<F extends (...args: any[]) => any> = F & {
  /** The same call (for a compiled module: `c.forward(x)` as `model.forward(x)`). */
  forward: F;
  /** The function or module given to `compiled`. */
  module: unknown;
  /** Calls that replayed a recording completely. */
  replays(): number;
  /** Calls that recorded a trace (the first per input shapes, and after too many cut slots). */
  recordings(): number;
  /** Calls whose device work stopped matching the recording (eager from there, recorded anew). */
  divergences(): number;
};
/** upstream's `compiled(fn)`: the first call per input shapes (and dtypes, requiresGrad, grad
 * mode) records the device work; later calls run the same JavaScript but replay it, reusing
 * buffers and bind groups — results equal eager bit for bit. Only the synchronous part of an
 * async function is recorded (work after its first `await` runs eagerly). */
/** torch.onnx.export's options (camelCase). */
export interface ExportOnnxOptions {
  inputNames?: string[];
  outputNames?: string[];
  /** torch's dynamic_axes: `{ input: { 0: 'batch' } }` or `{ input: [0] }`; default: dim 0 of
   * every input and of the output is a dynamic `batch`; `{}` exports static shapes. */
  dynamicAxes?: Record<string, Record<number, string> | number[]>;
  /** Must be 17 (the opset borch-onnx writes). */
  opsetVersion?: number;
}
/** ONNX export (borch-onnx): the model's eval forward traced on `sample`, as the bytes of an
 * ONNX file (opset 17, IR 8) that ONNX Runtime runs. */
export declare const onnx: {
  exportOnnx(
    model: { forward(...args: any[]): any },
    sample: Tensor | Tensor[],
    options?: ExportOnnxOptions,
  ): Promise<Uint8Array>;
};
export declare function compiled<F extends (...args: any[]) => any>(fn: F): CompiledFunction<F>;
/** upstream's `compiled(model)`: the module's `forward`, recorded and replayed. */
export declare function compiled<M extends { forward: (...args: any[]) => any }>(
  module: M,
): CompiledFunction<M['forward']>;
"#;
