// Times fast-json-patch on one document and patch, bytes in to bytes out:
// JSON.parse of both, applyPatch with validation, JSON.stringify. Prints
// one JSON line: {"impl":"fast-json-patch","ns_per_op":...,"runs":...}.
// Usage: node bench.js doc.json patch.json [seconds]
'use strict';
const fs = require('fs');
const jsonpatch = require('fast-json-patch');

const [docFile, patchFile, secs] = process.argv.slice(2);
const docText = fs.readFileSync(docFile, 'utf8');
const patchText = fs.readFileSync(patchFile, 'utf8');
const budget = Number(secs || 2) * 1e9;

function once() {
  const doc = JSON.parse(docText);
  const patch = JSON.parse(patchText);
  const res = jsonpatch.applyPatch(doc, patch, true, true);
  return JSON.stringify(res.newDocument);
}

// Warm up the JIT, then time whole runs until the budget is spent.
const out = once();
for (let i = 0; i < 5; i++) once();
let runs = 0;
const start = process.hrtime.bigint();
let elapsed = 0n;
while (elapsed < BigInt(budget) || runs < 5) {
  once();
  runs++;
  elapsed = process.hrtime.bigint() - start;
}
console.log(JSON.stringify({ impl: 'fast-json-patch', ns_per_op: Number(elapsed) / runs, runs, out_bytes: Buffer.byteLength(out) }));
