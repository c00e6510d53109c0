// Where the page finds what it does not bundle, on the server of `cargo xtask playground`
// (the repository root, with /target/ the cargo target directory).
export const paths = {
  pyodide: '/examples/playground/node_modules/pyodide/',
  wheel: '/target/borch-py/borch_webgpu-0.1.0-py3-none-any.whl',
  digits: '/data/digits/digits.csv.gz',
};
