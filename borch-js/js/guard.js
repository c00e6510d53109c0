// Receiver checks for every class borch-ts exports. wasm-bindgen's methods read `this.__wbg_ptr`
// and hand it to Rust as a pointer to their own class, whatever `this` is: a ReLU given to
// Tensor.prototype.item would be read as a Tensor (memory corruption), and a freed object gives
// "null pointer passed to rust". Here every object the package makes is branded (its class and
// pointer, in a WeakMap) when it is made, and every method, getter and setter of every class
// checks its receiver first: a foreign, forged or freed `this` is a TypeError naming the class
// and the method. `free()` runs once; a second call does nothing. The Rust side asks the same
// brands (`brandedId`) before it trusts a handle id inside an argument.

import { makeError } from './errors.js';

// object → { cls, ptr, freed }
const brands = new WeakMap();
// class → Map(handle-id property → wasm-bindgen's own getter)
const idGetters = new Map();
// prototype → class, for messages about a method read on the prototype itself
const prototypes = new Map();
// the functions already wrapped (a second guardClasses() wraps only what is new)
const wrapped = new WeakSet();
// class → function(object) giving the prototype for the objects Rust returns (`adopt`)
const adopters = new Map();

// wasm-bindgen's own messages, thrown when Rust refuses a pointer or a borrow.
const NULL_POINTER = 'null pointer passed to rust';
const BUSY = new Set([
  'recursive use of an object detected which would lead to unsafe aliasing in rust',
  'attempted to take ownership of Rust value while it was borrowed',
]);

const typeError = (message) => makeError('TypeError', message);

// A Rust panic traps the wasm instance (wasm32 cannot unwind): its memory is then in no known
// state (a lock held at the panic stays held). The first trap is recorded with the panic's
// message, and every later call throws instead of running on a broken heap.
let panicMessage = null;
let trap = null;

/** Called by borch's panic hook (borch-js/src/panic.rs) just before the instance traps. */
export function notePanic(message) {
  panicMessage = message;
}

function stopped(what) {
  return makeError(
    'RuntimeError',
    `${what}: borch-ts has stopped: its WebAssembly instance trapped in ${trap.what} (${trap.message}). ` +
      'This is a bug in borch; nothing more can run in this instance: reload the page or restart the process.',
  );
}

/** Throws the stopped error after a trap (one seen by a guard, or a panic the hook reported). */
export function healthy(what) {
  if (trap === null && panicMessage !== null) trap = { what: 'an earlier call', message: panicMessage };
  if (trap !== null) throw stopped(what);
}

// A trap becomes the stopped error (and is remembered); other errors pass through.
function noteTrap(error, what) {
  if (!(error instanceof WebAssembly.RuntimeError)) return error;
  trap ??= { what, message: panicMessage ?? error.message };
  return stopped(what);
}

/**
 * `fn` with the trap check around it (a promise's rejection too); `what` names the call in
 * messages, or is a function of the call's arguments that does.
 */
function trapChecked(what, fn) {
  // Named only when needed: an op call builds no string unless it fails.
  const name = (args) => (typeof what === 'function' ? what(args) : what);
  return function (...args) {
    if (trap !== null || panicMessage !== null) healthy(name(args));
    let result;
    try {
      result = fn.apply(this, args);
    } catch (error) {
      throw noteTrap(error, name(args));
    }
    if (result instanceof Promise) {
      return result.catch((error) => {
        throw noteTrap(error, name(args));
      });
    }
    return result;
  };
}

/** The name of `v`'s type in messages: `typeof` for primitives, the class of objects. */
export function typeName(v) {
  if (v === null) return 'null';
  if (typeof v === 'function') return 'function';
  if (typeof v !== 'object') return typeof v;
  const brand = brands.get(v);
  if (brand !== undefined) return shownName(v, brand.cls);
  if (prototypes.has(v)) return `${prototypes.get(v).name}.prototype`;
  try {
    // A Python object from Pyodide (a PyProxy, as borch_webgpu passes what it cannot convert):
    // Python's own type name, as torch's messages say it (`set`, `object`).
    if (typeof v.toJs === 'function' && typeof v.destroy === 'function' && typeof v.type === 'string') {
      return v.type;
    }
    const proto = Object.getPrototypeOf(v);
    if (prototypes.has(proto)) return `${prototypes.get(proto).name} not made by borch-ts`;
    const name = proto?.constructor?.name;
    return typeof name === 'string' && name !== '' ? name : 'Object';
  } catch {
    return 'Object';
  }
}

// The name of a branded object's class as its user sees it: the subclass whose prototype it has
// (`nn.Linear`, or a user's class extending it), else the exported class's.
function shownName(obj, cls) {
  try {
    const ctor = Object.getPrototypeOf(obj)?.constructor;
    if (typeof ctor === 'function' && ctor.prototype instanceof cls && typeof ctor.name === 'string') return ctor.name;
  } catch {
    // a hostile prototype: the exported class's name
  }
  return cls.name;
}

function mark(obj, cls) {
  const ptr = obj.__wbg_ptr;
  // Writable (free() zeroes it) but not configurable: it cannot become a getter that answers
  // one pointer to the check and another to wasm-bindgen.
  Object.defineProperty(obj, '__wbg_ptr', { value: ptr, writable: true, enumerable: true, configurable: false });
  brands.set(obj, { cls, ptr, freed: false });
  return obj;
}

// The brand of a live `self` of class `cls`, or the TypeError to throw for `what`.
function receiver(cls, what, self) {
  const brand = brands.get(self);
  if (brand === undefined || brand.cls !== cls) {
    throw typeError(`${what}: 'this' is not a ${cls.name} (got ${typeName(self)})`);
  }
  if (brand.freed || self.__wbg_ptr === 0) {
    throw typeError(`${what}: this ${shownName(self, cls)} has been freed (free() was called on it)`);
  }
  if (self.__wbg_ptr !== brand.ptr) {
    throw typeError(`${what}: this ${cls.name}'s handle was overwritten (__wbg_ptr is borch-ts's own)`);
  }
  return brand;
}

// A wasm-bindgen error from inside a call, in borch's words.
function translate(error, cls, what) {
  if (error?.constructor === Error && BUSY.has(error.message)) {
    return typeError(`${what}: this ${cls.name} is in use by a call that has not returned`);
  }
  if (error?.constructor === Error && error.message === NULL_POINTER) {
    return typeError(`${what}: an argument has been freed (free() was called on it)`);
  }
  return error;
}

function checked(cls, what, fn) {
  return trapChecked(what, function (...args) {
    receiver(cls, what, this);
    try {
      return fn.apply(this, args);
    } catch (error) {
      throw translate(error, cls, what);
    }
  });
}

// free(): once; a second call (or one on an object whose pointer was handed to Rust) does nothing.
function checkedFree(cls, fn) {
  const what = `${cls.name}.free()`;
  return function free() {
    const brand = brands.get(this);
    if (brand === undefined || brand.cls !== cls) {
      throw typeError(`${what}: 'this' is not a ${cls.name} (got ${typeName(this)})`);
    }
    if (brand.freed || this.__wbg_ptr === 0) return;
    receiver(cls, what, this);
    brand.freed = true;
    try {
      fn.call(this);
    } catch (error) {
      // Freed while one of its own calls runs (a callback calling free()): Rust drops it when
      // that call returns, which is what free() asks for.
      if (!(error?.constructor === Error && BUSY.has(error.message))) throw error;
    }
  };
}

function guardMember(cls, proto, key, free) {
  const d = Object.getOwnPropertyDescriptor(proto, key);
  const name = `${cls.name}.${String(key)}`;
  const wrap = (fn, what) => {
    if (typeof fn !== 'function' || wrapped.has(fn)) return fn;
    // free() and its alias [Symbol.dispose]
    const guard = fn === free ? checkedFree(cls, fn) : checked(cls, what, fn);
    Object.defineProperty(guard, 'name', { value: fn.name });
    wrapped.add(guard);
    return guard;
  };
  if (typeof key === 'string' && key.startsWith('__borch') && d.get && !wrapped.has(d.get)) {
    if (!idGetters.has(cls)) idGetters.set(cls, new Map());
    idGetters.get(cls).set(key, d.get);
  }
  if ('value' in d) d.value = wrap(d.value, `${name}()`);
  if (d.get) d.get = wrap(d.get, name);
  if (d.set) d.set = wrap(d.set, name);
  Object.defineProperty(proto, key, d);
}

function guardClass(cls) {
  const proto = cls.prototype;
  prototypes.set(proto, cls);
  const free = proto.free;
  for (const key of Reflect.ownKeys(proto)) {
    if (key !== 'constructor' && key !== '__destroy_into_raw') guardMember(cls, proto, key, free);
  }
  // Objects Rust returns are made by the static __wrap (looked up on the class at each call).
  if (typeof cls.__wrap === 'function' && !wrapped.has(cls.__wrap)) {
    const wrap = cls.__wrap;
    cls.__wrap = function (ptr) {
      const obj = mark(wrap.call(this, ptr), cls);
      const proto = adopters.get(cls)?.(obj);
      if (proto !== undefined) Object.setPrototypeOf(obj, proto);
      return obj;
    };
    wrapped.add(cls.__wrap);
  }
}

// Objects made by `new`: the exported class is a Proxy whose construct trap brands them.
const constructors = new Map();
function constructor(cls) {
  if (!constructors.has(cls)) {
    constructors.set(cls, new Proxy(cls, {
      construct(target, args, newTarget) {
        const what = `new ${cls.name}()`;
        healthy(what);
        let obj;
        try {
          obj = Reflect.construct(target, args, newTarget);
        } catch (error) {
          throw noteTrap(error, what);
        }
        if (typeof obj.__wbg_ptr !== 'number' || obj.__wbg_ptr === 0) {
          // A class without a Rust constructor (Tensor, Scope, ParamGroup, Module): wasm-bindgen
          // would make an empty object that every method reads as a null pointer.
          throw typeError(`new ${cls.name}(): borch-ts makes ${cls.name} objects itself (it has no constructor)`);
        }
        return mark(obj, cls);
      },
    }));
  }
  return constructors.get(cls);
}

/**
 * Guard every class among wasm-bindgen's exports (those with a `free()`); resolves each to the
 * class to export (a Proxy that brands what `new` makes). Calling it again guards members added
 * since (the catalog's methods on Tensor.prototype).
 */
export function guardClasses(exports) {
  const out = {};
  for (const [name, cls] of Object.entries(exports)) {
    if (typeof cls === 'function' && typeof cls.prototype?.free === 'function') {
      guardClass(cls);
      out[name] = constructor(cls);
    }
  }
  return out;
}

// How a call of the exported function `name` is named in messages: `callMethod('add', …)` as
// `add()`, `newModule('Linear', …)` as `new Linear()`, others by their own name.
function callName(name, args) {
  if (typeof args[0] !== 'string') return `${name}()`;
  if (name === 'callIn' && typeof args[1] === 'string') return `${args[0]}.${args[1]}()`;
  if (name.startsWith('call')) return `${args[0]}()`;
  if (name.startsWith('new')) return `new ${args[0]}()`;
  return `${name}()`;
}

/**
 * wasm-bindgen's exported functions (not the classes: `guardClasses` guards those), each failing
 * cleanly after a trap. `callMethod`/`callFunction`/`callFunctional` are named by their op,
 * `newModule` by its class.
 */
export function guardFunctions(exports) {
  const out = {};
  for (const [name, fn] of Object.entries(exports)) {
    const isClass = typeof fn === 'function' && typeof fn.prototype?.free === 'function';
    out[name] = typeof fn !== 'function' || isClass
      ? fn
      : trapChecked((args) => callName(name, args), fn);
  }
  return out;
}

/**
 * Give the objects Rust returns of class `cls` (a guarded export) the prototype `prototypeOf(obj)`
 * answers, where it answers one: a module from `seq.at(0)` becomes an `nn.Linear`.
 */
export function adopt(cls, prototypeOf) {
  for (const [raw, proxy] of constructors) {
    if (proxy === cls || raw === cls) adopters.set(raw, prototypeOf);
  }
}

/** The handle id `property` of a live object borch-ts made, through its class's own getter. */
export function brandedId(v, property) {
  const brand = brands.get(v);
  if (brand === undefined || brand.freed || v.__wbg_ptr !== brand.ptr) return undefined;
  const get = idGetters.get(brand.cls)?.get(property);
  return get === undefined ? undefined : get.call(v);
}

/** The class name of an object borch-ts made whose free() has run, else undefined. */
export function freedClass(v) {
  const brand = brands.get(v);
  return brand !== undefined && (brand.freed || v.__wbg_ptr === 0) ? shownName(v, brand.cls) : undefined;
}
