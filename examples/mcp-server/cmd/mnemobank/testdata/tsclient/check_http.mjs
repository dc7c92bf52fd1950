// Drives the mnemobank server over streamable HTTP with the TypeScript
// SDK's client, which checks every structured result against the tool's
// output schema. Usage: node check_http.mjs <MCP URL>
// Run by TestTypeScriptClientOverHTTP; prints "ok <protocol version>", or
// exits non-zero on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [url] = process.argv.slice(2);
const fail = (msg) => { console.error("FAIL:", msg); process.exit(1); };
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "ts-http-check", version: "0" }, { capabilities: {} });
let resolveUpdate;
const updated = new Promise((r) => { resolveUpdate = r; });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolveUpdate(n.params.uri));

await client.connect(transport);
const { tools } = await client.listTools();
if (!tools.some((t) => t.name === "write_global_memory_bank")) fail(`tools/list: ${tools.map((t) => t.name)}`);

const call = async (name, args, wantError = false) => {
  const r = await client.callTool({ name, arguments: args }); // checks the output schema
  if (!!r.isError !== wantError) fail(`${name}: ${r.content[0].text}`);
  return r.structuredContent;
};
await call("write_global_memory_bank", { path: "ts/notes.json", content: { items: [] } });
const uri = "memorybank://global/ts/notes.json";
await client.subscribeResource({ uri });
await call("write_global_memory_bank", { path: "ts/notes.json", patches: [{ op: "add", path: "/content/items/-", value: "http" }] });
const doc = await call("read_global_memory_bank", { path: "ts/notes.json" });
if (JSON.stringify(doc.content.content.items) !== '["http"]') fail(`read: ${JSON.stringify(doc)}`);
await call("read_global_memory_bank", { path: "nope.json" }, true);
await call("list_documents", { scope: "global" });
const { resources } = await client.listResources();
if (!resources.some((r) => r.uri === uri)) fail(`resources/list: ${resources.map((r) => r.uri)}`);
const read = await client.readResource({ uri });
if (read.contents[0].mimeType !== "application/json") fail(`resources/read: ${read.contents[0].mimeType}`);
const got = await Promise.race([updated, new Promise((r) => setTimeout(() => r(null), 10000).unref())]);
if (got !== uri) fail(`notifications/resources/updated: ${got}`);
const version = transport.protocolVersion;
await client.close();
console.log("ok", version);
