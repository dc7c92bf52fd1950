// Drives the mnemobank server with the TypeScript SDK's client, which
// checks every structured result against the tool's output schema.
// Usage: node check.mjs <server binary> <project dir (a git work tree)> <branch>
// Run by TestTypeScriptClient; exits non-zero on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";

const [bin, dir, branch] = process.argv.slice(2);
const fail = (msg) => { console.error("FAIL:", msg); process.exit(1); };
const transport = new StdioClientTransport({ command: bin, args: ["--root", dir + "/docs", "--memories", dir + "/.agent/memories.md", "--language", "en"] });
const client = new Client({ name: "ts-check", version: "0" }, { capabilities: { elicitation: {}, roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(dir).href, name: "project" }] }));
let elicited = 0;
client.setRequestHandler(ElicitRequestSchema, async () => { elicited++; return { action: "accept", content: {} }; });
let resolveUpdate;
const updated = new Promise((r) => { resolveUpdate = r; });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolveUpdate(n.params.uri));

await client.connect(transport);
const { tools } = await client.listTools();
const names = new Set(tools.map((t) => t.name));
for (const want of ["read_context", "write_branch_memory_bank", "add_memory", "apply_memory_ops", "delete_document"]) {
  if (!names.has(want)) fail(`tools/list lacks ${want}: ${[...names]}`);
}

const call = async (name, args, wantError = false) => {
  const r = await client.callTool({ name, arguments: args }); // checks the output schema
  if (!!r.isError !== wantError) fail(`${name}: ${r.content[0].text}`);
  return r.structuredContent;
};
const rc = await call("read_context", {});
if (rc.branchFromRoots?.branch !== branch) fail(`branch from roots: ${JSON.stringify(rc.branchFromRoots)}`);
await call("write_branch_memory_bank", { path: "notes.json", content: { a: 1 } });
const uri = `memorybank://branch/${encodeURIComponent(branch)}/notes.json`;
await client.subscribeResource({ uri });
await call("write_branch_memory_bank", { path: "notes.json", patches: [{ op: "replace", path: "/content/a", value: 2 }] });
await call("add_memory", { content: "The TypeScript client works", type: "fact" });
if ((await call("search_memories", { query: "typescript" })).memories.length !== 1) fail("search_memories");
await call("list_memories", {});
await call("write_skill_graph", { skillId: "s1", graph: { nodes: [{ id: "n1", type: "instruction", data: { label: "Do" } }], edges: [] } });
await call("read_skill_graph", { skillId: "s1", format: "mermaid" });
await call("apply_skill_graph_operations", { skillId: "s1", operations: [{ operationId: "a", kind: "addNode", node: { type: "instruction", label: "Then" }, insertAfter: "n1" }] });
const applied = await call("apply_memory_ops", { plan: { schemaVersion: "2.0", action: "memory_ops", requiresConfirmation: true, operations: [{ type: "create", path: "x.md", reason: "why", content: "# X\n" }] } });
if (!applied.applied || elicited !== 1) fail(`apply_memory_ops: ${JSON.stringify(applied)}, ${elicited} elicitations`);
await call("check_file_selection", { selection: { schemaVersion: "2.0", action: "select_files", files: ["x.md"], reason: "r", budget: { filesSelected: 1, filesLimit: 5, linesSelected: 1, linesLimit: 500 }, riskAlerts: [] } });
await call("list_documents", { scope: "branch" });
await call("search_documents_by_tags", { tags: ["core"], scope: "branch" });
await call("read_rules", {});
await call("read_global_memory_bank", { path: "nope.json" }, true);
await call("delete_memory", { id: "mem-0-00000000" }, true);
await call("delete_document", { scope: "branch", path: "x.md" });
const { resources } = await client.listResources();
if (!resources.some((r) => r.uri === uri)) fail("resources/list");
const read = await client.readResource({ uri });
if (read.contents[0].mimeType !== "application/json") fail("resources/read");
const prompt = await client.getPrompt({ name: "start_task", arguments: { branch } });
if (prompt.messages.length !== 1) fail("prompts/get");
const got = await Promise.race([updated, new Promise((r) => setTimeout(() => r(null), 5000).unref())]);
if (got !== uri) fail(`notifications/resources/updated: ${got}`);
await client.close();
console.log("ok");
