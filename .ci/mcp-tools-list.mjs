// Starts an MCP server over stdio, initializes it and lists its tools, as a
// client would; prints the number of tools and the milliseconds from start
// to the tools/list answer. Exit 1 when the server fails, answers an error,
// lists fewer than --min tools, or takes longer than --timeout seconds.
//
//   node .ci/mcp-tools-list.mjs [--min N] [--timeout S] -- COMMAND ARGS...
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const argv = process.argv.slice(2);
let min = 1, timeout = 300;
while (argv.length && argv[0] !== '--') {
  const flag = argv.shift();
  if (flag === '--min') min = Number(argv.shift());
  else if (flag === '--timeout') timeout = Number(argv.shift());
  else { console.error(`mcp-tools-list: unknown flag ${flag}`); process.exit(2); }
}
argv.shift();
if (!argv.length) { console.error('mcp-tools-list: no command after --'); process.exit(2); }

const started = process.hrtime.bigint();
const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const fail = (msg) => { console.error(`mcp-tools-list: ${argv.join(' ')}: ${msg}`); child.kill(); process.exit(1); };
const timer = setTimeout(() => fail(`no tools/list answer within ${timeout} s`), timeout * 1000);
child.on('error', (err) => fail(err.message));
child.on('exit', (code, signal) => fail(`exited (${code ?? signal}) before answering tools/list`));
const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');

createInterface({ input: child.stdout }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return fail(`not JSON on stdout: ${line.slice(0, 200)}`); }
  if (msg.error) return fail(`error: ${JSON.stringify(msg.error)}`);
  if (msg.id === 1) {
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list', params: {} });
  } else if (msg.id === 2) {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const tools = msg.result?.tools ?? [];
    if (tools.length < min) return fail(`listed ${tools.length} tools, want at least ${min}`);
    console.log(`tools/list: ${tools.length} tools (${tools.slice(0, 3).map((t) => t.name).join(', ')}, ...) after ${Math.round(ms)} ms`);
    clearTimeout(timer);
    child.removeAllListeners('exit');
    child.stdin.end();
    child.kill();
    process.exit(0);
  }
});
send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-tools-list', version: '1' } } });
