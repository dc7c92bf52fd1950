import { spawn } from "node:child_process";
const p = spawn("node", ["node_modules/@modelcontextprotocol/server-memory/dist/index.js"], { env: { ...process.env, MEMORY_FILE_PATH: process.argv[2] }, stdio: ["pipe", "pipe", "inherit"] });
let buf = "", id = 0; const waiters = {};
p.stdout.on("data", d => { buf += d; let i; while ((i = buf.indexOf("\n")) >= 0) { const l = buf.slice(0, i); buf = buf.slice(i + 1); const m = JSON.parse(l); if (m.id && waiters[m.id]) waiters[m.id](m); } });
const call = (method, params) => new Promise(r => { const i = ++id; waiters[i] = r; p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: i, method, params }) + "\n"); });
const tool = async (name, args) => { const r = await call("tools/call", { name, arguments: args }); if (r.error || r.result.isError) console.error(name, JSON.stringify(r)); return r; };
await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mnemobank-sample", version: "0" } });
p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
await tool("create_entities", { entities: [
  { name: "mnemobank", entityType: "project", observations: ["Go library giving coding agents a durable memory", "Stores documents in a directory or PostgreSQL"] },
  { name: "Ada Lovelace", entityType: "person", observations: ["Maintains the archive package", "Prefers table tests"] },
  { name: "fsstore", entityType: "component", observations: ["One file per key, written atomically"] },
  { name: "../etc/passwd", entityType: "weird name", observations: ["A name with slashes and dots: must not become a path"] },
  { name: "日本語のメモ", entityType: "note", observations: ["Unicode names are kept", "multi\nline observation"] },
]});
await tool("create_relations", { relations: [
  { from: "Ada Lovelace", to: "mnemobank", relationType: "works on" },
  { from: "mnemobank", to: "fsstore", relationType: "uses" },
  { from: "fsstore", to: "Ada Lovelace", relationType: "is reviewed by" },
]});
await tool("add_observations", { observations: [{ entityName: "fsstore", contents: ["fsyncs every write", "Lock file is .memorybank.lock"] }] });
await tool("delete_observations", { deletions: [{ entityName: "Ada Lovelace", observations: ["Prefers table tests"] }] });
await tool("create_entities", { entities: [{ name: "Empty", entityType: "thing", observations: [] }] });
p.stdin.end(); p.kill();
