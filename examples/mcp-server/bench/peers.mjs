#!/usr/bin/env node
// peers.mjs: the same scenario against mnemobank and the simple Node peer
// @allpepper/memory-bank-mcp, interleaved call by call, printing medians,
// p99s and ratios. Not part of CI (it installs from npm and takes a minute).
//
//   cd examples/mcp-server && go build -o /tmp/mnemobank ./cmd/mnemobank
//   go build -o /tmp/minimal ./cmd/mnemobank/testdata/minimalserver
//   node bench/peers.mjs /tmp/mnemobank [iterations] [/tmp/minimal]
//
// Scenario, each step timed from request to answer over stdio:
//   startup   process start to the answer to the first tools/list
//   create    a new document (mnemobank: write_global_memory_bank mode
//             create; peer: memory_bank_write)
//   update    the same document changed again (mnemobank: a one-operation
//             patch; peer: memory_bank_update, a whole-file rewrite)
//   read      that document (read_global_memory_bank / memory_bank_read)
//   list      the bank's listing (list_documents of the global bank, its
//             first page as an agent gets it; peer: list_project_files,
//             every name), with the bytes of each answer
//   alt-create, alt-patch
//             then, as an agent works, a new document and at once a change
//             to it, then the next (no other call between)
// both on a bank of 1,000 documents written straight to disk beforehand.
// The durable floor is timed in the same run, between the alternating
// calls: one atomic replace of a small file (a temporary file written and
// fsynced, renamed over the file, the directory fsynced), from this
// process, on the same disk; its p99 against its median says how much of
// a server's tail is the disk's.
// Ratio = mnemobank median / peer median (below 1: mnemobank is faster).
// With a third argument, the minimal Go SDK server of BenchmarkStartup
// (testdata/minimalserver) is started alternately too, and start-up is
// also given as a ratio to it.
// The peer neither fsyncs nor validates; mnemobank's write is durable.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, openSync, writeSync, fsyncSync, closeSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.argv[2];
const iters = Number(process.argv[3] ?? 100);
const minimalBin = process.argv[4];
if (!bin) {
  console.error("usage: node bench/peers.mjs PATH-TO-mnemobank [iterations]");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "mnemobank-peers-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
console.error(`installing @allpepper/memory-bank-mcp into ${work} ...`);
execFileSync("npm", ["install", "--silent", "--no-audit", "--no-fund", "--prefix", work, "@allpepper/memory-bank-mcp"], { stdio: "inherit" });
const peerMain = join(work, "node_modules", "@allpepper", "memory-bank-mcp", "dist", "index.js");

// Banks of 1,000 documents, one per server, in each one's layout.
const mnRoot = join(work, "mn"), peerRoot = join(work, "peer");
mkdirSync(join(mnRoot, "global-memory-bank", "docs"), { recursive: true });
mkdirSync(join(peerRoot, "proj"), { recursive: true });
for (let i = 0; i < 1000; i++) {
  const n = String(i).padStart(5, "0");
  writeFileSync(join(mnRoot, "global-memory-bank", "docs", `${n}.md`), `# Note ${i}\nA decision or a finding of some length.\n`);
  writeFileSync(join(peerRoot, "proj", `${n}.md`), `# Note ${i}\nA decision or a finding of some length.\n`);
}

// A minimal JSON-RPC client over a child's stdio (one JSON message a line).
class Client {
  constructor(cmd, args, env) {
    this.p = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "ignore"] });
    this.next = 1; this.waiting = new Map(); this.buf = "";
    this.p.stdout.on("data", (d) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf("\n")) >= 0) {
        const line = this.buf.slice(0, i); this.buf = this.buf.slice(i + 1);
        if (!line.trim()) continue;
        const m = JSON.parse(line);
        this.lastBytes = Buffer.byteLength(line);
        const w = this.waiting.get(m.id);
        if (w) { this.waiting.delete(m.id); m.error ? w.reject(new Error(JSON.stringify(m.error))) : w.resolve(m.result); }
      }
    });
  }
  request(method, params) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
  notify(method, params) { this.p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n"); }
  async start() {
    await this.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "peers", version: "1" } });
    this.notify("notifications/initialized", {});
    await this.request("tools/list", {});
  }
  async call(name, args) {
    const r = await this.request("tools/call", { name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r;
  }
  close() { this.p.stdin.end(); this.p.kill(); }
}

const servers = {
  mnemobank: {
    launch: () => new Client(bin, ["--root", mnRoot, "--language", "en", "--memories", join(work, "memories.md")], {}),
    create: (c, i) => c.call("write_global_memory_bank", { path: `created/c${i}.md`, content: `# Created ${i}\nfirst text\n`, mode: "create" }),
    update: (c, i) => c.call("write_global_memory_bank", { path: `created/c${i}.md`, patches: [{ op: "replace", path: "/content", value: `# Created ${i}\nsecond text\n` }] }),
    read: (c, i) => c.call("read_global_memory_bank", { path: `created/c${i}.md` }),
    list: (c) => c.call("list_documents", { scope: "global" }),
    "alt-create": (c, i) => c.call("write_global_memory_bank", { path: `alt/a${i}.md`, content: `# Alternating ${i}\nfirst text\n`, mode: "create" }),
    "alt-patch": (c, i) => c.call("write_global_memory_bank", { path: `alt/a${i}.md`, patches: [{ op: "replace", path: "/content", value: `# Alternating ${i}\nsecond text\n` }] }),
  },
  peer: {
    launch: () => new Client(process.execPath, [peerMain], { MEMORY_BANK_ROOT: peerRoot }),
    create: (c, i) => c.call("memory_bank_write", { projectName: "proj", fileName: `c${i}.md`, content: `# Created ${i}\nfirst text\n` }),
    update: (c, i) => c.call("memory_bank_update", { projectName: "proj", fileName: `c${i}.md`, content: `# Created ${i}\nsecond text\n` }),
    read: (c, i) => c.call("memory_bank_read", { projectName: "proj", fileName: `c${i}.md` }),
    list: (c) => c.call("list_project_files", { projectName: "proj" }),
    "alt-create": (c, i) => c.call("memory_bank_write", { projectName: "proj", fileName: `a${i}.md`, content: `# Alternating ${i}\nfirst text\n` }),
    "alt-patch": (c, i) => c.call("memory_bank_update", { projectName: "proj", fileName: `a${i}.md`, content: `# Alternating ${i}\nsecond text\n` }),
  },
};

// The durable floor: one atomic replace of a small file, synced.
const floorDir = join(work, "floor");
mkdirSync(floorDir);
const floorReplace = (i) => {
  const tmp = join(floorDir, `.tmp${i}`);
  const fd = openSync(tmp, "w");
  writeSync(fd, `# Floor ${i}\nsome text of a note\n`);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, join(floorDir, "doc.md"));
  const d = openSync(floorDir, "r");
  fsyncSync(d);
  closeSync(d);
};
const steps = ["create", "update", "read", "list"];
const bytes = {}; // server -> step -> bytes of the last answer

const times = {}; // server -> step -> [ms]
const record = (s, step, ms) => (((times[s] ??= {})[step] ??= []).push(ms));
const timed = async (s, step, f) => { const t = performance.now(); await f(); record(s, step, performance.now() - t); };

// Start-up, alternately.
const starters = { ...servers };
if (minimalBin) starters.minimal = { launch: () => new Client(minimalBin, [], {}) };
for (let k = 0; k < Math.min(iters, 30); k++) {
  for (const [name, s] of Object.entries(starters)) {
    let c;
    await timed(name, "startup", async () => { c = s.launch(); await c.start(); });
    c.close();
  }
}
// Calls, interleaved on one long-lived process each.
const clients = {};
for (const [name, s] of Object.entries(servers)) { clients[name] = s.launch(); await clients[name].start(); }
for (let i = 0; i < iters; i++) {
  for (const step of steps) {
    for (const [name, s] of Object.entries(servers)) {
      await timed(name, step, () => s[step](clients[name], i));
      ((bytes[name] ??= {})[step] = clients[name].lastBytes);
    }
  }
}
// Create and patch alternating, with the floor between.
const alt = ["alt-create", "alt-patch"];
for (let i = 0; i < iters; i++) {
  for (const step of alt) {
    for (const [name, s] of Object.entries(servers)) {
      await timed(name, step, () => s[step](clients[name], i));
    }
    await timed("floor", "replace", async () => floorReplace(i));
  }
}
for (const c of Object.values(clients)) c.close();

const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
console.log("step      mnemobank median/p99 ms   peer median/p99 ms   ratio (median)   answer bytes mnemobank/peer");
for (const step of ["startup", ...steps, ...alt]) {
  const m = times.mnemobank[step], p = times.peer[step];
  const b = step === "startup" || alt.includes(step) ? "" : `${bytes.mnemobank[step]} / ${bytes.peer[step]}`;
  console.log(`${step.padEnd(9)} ${pct(m, 0.5).toFixed(2).padStart(8)} / ${pct(m, 0.99).toFixed(2).padEnd(12)} ${pct(p, 0.5).toFixed(2).padStart(8)} / ${pct(p, 0.99).toFixed(2).padEnd(9)} ${(pct(m, 0.5) / pct(p, 0.5)).toFixed(2).padStart(6)}x          ${b}`);
}
{
  const f = times.floor.replace, fm = pct(f, 0.5);
  console.log(`floor (durable atomic replace, between the alternating calls): median ${fm.toFixed(2)} ms, p99 ${pct(f, 0.99).toFixed(2)} ms (${(pct(f, 0.99) / fm).toFixed(1)}x its median)`);
  for (const step of alt) {
    const m = times.mnemobank[step];
    console.log(`mnemobank ${step}: ${(pct(m, 0.5) / fm).toFixed(2)}x the floor's median; p99 ${(pct(m, 0.99) / pct(m, 0.5)).toFixed(1)}x its median`);
  }
}
if (times.minimal) {
  const m = pct(times.mnemobank.startup, 0.5), n = pct(times.minimal.startup, 0.5);
  console.log(`startup: minimal Go SDK server ${n.toFixed(2)} ms median; mnemobank ${(m / n).toFixed(2)}x of it`);
}
process.exit(0);
