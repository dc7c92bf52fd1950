#!/usr/bin/env node
// Runs the prebuilt mnemobank binary of this platform. npm installs only the
// optional dependency whose "os" and "cpu" match (@mnemobank/<os>-<cpu>),
// so nothing is downloaded after installation and no install script runs.
// mnemobank-dot, the skill graph renderer, sits beside the binary, where
// the server looks for it.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');

const platform = `${process.platform}-${process.arch}`;
const pkg = `@mnemobank/${platform}`;
const exe = process.platform === 'win32' ? 'mnemobank.exe' : 'mnemobank';

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', exe);
} catch {
  console.error(
    `mnemobank: no prebuilt binary for ${platform}: the package ${pkg} is not installed.\n` +
      'Prebuilt binaries exist for linux, darwin and win32 on x64 and arm64; npm installs the one ' +
      'that matches unless optional dependencies are omitted (--omit=optional, --no-optional).\n' +
      'Elsewhere, build it with Go: go install github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank@latest'
  );
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
// The MCP client talks to the binary through the inherited stdio; signals
// sent to this launcher are passed on so the server can shut down cleanly.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (err) => {
  console.error(`mnemobank: cannot run ${bin}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
