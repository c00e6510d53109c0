// JavaScript mode: the editor's text runs as an ES module (a blob: URL, so `import` and top-level
// `await` work as in a file), resolving 'borch-ts' and 'playground' through the page's import map
// to the same instances the page uses. console.log, console.info and console.warn are shown in
// the output while it runs (and still reach the console).

function text(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.stack ?? String(value);
  if (typeof value === 'object' && value !== null) {
    if (Array.isArray(value)) return `[${value.map(text).join(', ')}]`;
    if (value.toString !== Object.prototype.toString) return String(value);
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

export async function runJs(code, print) {
  const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  const saved = { log: console.log, info: console.info, warn: console.warn };
  for (const [name, original] of Object.entries(saved)) {
    console[name] = (...args) => {
      original.apply(console, args);
      print(args.map(text).join(' '));
    };
  }
  try {
    await import(/* @vite-ignore */ url);
  } finally {
    Object.assign(console, saved);
    URL.revokeObjectURL(url);
  }
}
