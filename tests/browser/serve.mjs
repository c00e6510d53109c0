#!/usr/bin/env node
// The static server of the browser tests and of `cargo xtask playground`: the repository on
// 127.0.0.1 only, with /target/ mapped to the cargo target directory ($CARGO_TARGET_DIR when set,
// or --target-dir). Node's own http module; nothing but built-ins, so it runs before any npm ci.
//
//   node tests/browser/serve.mjs [--target-dir DIR] [--port N] [--page /path/in/the/repo.html]
//
// prints the page's URL and serves until stopped (Ctrl-C).

import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export function defaultTargetDir() {
  return process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target');
}

// A static server for the repository (and /target/ → the target dir), on 127.0.0.1 only.
export function serve(targetDir, port = 0) {
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const [root, rest] = path.startsWith('/target/') ? [targetDir, path.slice('/target/'.length)] : [repo, path.slice(1)];
    const file = resolve(root, rest);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    let stat;
    try {
      stat = statSync(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}\n`);
      return;
    }
    if (!stat.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not a file: ${path}\n`);
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': stat.size,
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

function main() {
  const args = process.argv.slice(2);
  let targetDir = defaultTargetDir();
  let port = 0;
  let page = '/';
  for (let i = 0; i < args.length; i++) {
    const value = () => args[++i] ?? fail(`${args[i - 1]} needs a value`);
    if (args[i] === '--target-dir') targetDir = resolve(value());
    else if (args[i] === '--port') port = Number(value());
    else if (args[i] === '--page') page = value();
    else fail(`unknown argument ${args[i]}`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port needs a port number (0: any free port)');
  serve(targetDir, port).then(
    (server) => console.log(`serving ${repo} (and /target/ from ${targetDir}) on http://127.0.0.1:${server.address().port}${page}`),
    (e) => fail(`cannot listen on 127.0.0.1:${port}: ${e.message}`),
  );
}

function fail(message) {
  console.error(`${message}\nusage: node tests/browser/serve.mjs [--target-dir DIR] [--port N] [--page PATH]`);
  process.exit(2);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
