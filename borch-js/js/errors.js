// The JavaScript side of borch's errors: a core error becomes a RangeError (torch's IndexError:
// a dim or an index out of range), a TypeError (an argument of the wrong kind) or a BorchError
// (every other kind). Each carries `kind`, the name of the exception torch raises for the same
// mistake (plus "ReleasedError" and "DeviceError", which torch has no class for), and the core's
// English message unchanged.

export class BorchError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'BorchError';
    this.kind = kind;
  }
}

export function makeError(kind, message) {
  let error;
  if (kind === 'IndexError') {
    error = new RangeError(message);
  } else if (kind === 'TypeError') {
    error = new TypeError(message);
  } else {
    return new BorchError(kind, message);
  }
  error.kind = kind;
  return error;
}

export function errorClasses() {
  return { BorchError };
}
