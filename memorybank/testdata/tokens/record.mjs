// Records the reference token counts of the samples with real BPE
// tokenizers (o200k_base, used by GPT-4o and later; cl100k_base, used by
// GPT-4), for the estimator test in tokens_test.go. The estimator's weights
// were fitted to samples/; the documents of the evaluation bank
// (../eval/bank) and heldout/ are held out: counted here, never fitted.
//
//	cd memorybank/testdata/tokens && npm install && node record.mjs > counts.json
import { readdirSync, readFileSync, statSync } from "node:fs";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";

const dir = new URL("./samples/", import.meta.url);
const samples = readdirSync(dir).sort().map((name) => {
  const text = readFileSync(new URL(name, dir), "utf8");
  return { name, kind: name.split("-")[0], o200k: o200k(text), cl100k: cl100k(text) };
});

// Held out: every document of the evaluation bank, by language.
const bank = new URL("../eval/bank/", import.meta.url);
const walk = (url, rel) => readdirSync(url).sort().flatMap((name) => {
  const u = new URL(name, url);
  return statSync(u).isDirectory() ? walk(new URL(name + "/", url), rel + name + "/") : [rel + name];
});
const heldOut = walk(bank, "").map((name) => {
  const text = readFileSync(new URL(name, bank), "utf8");
  const kind = /\/ja\//.test(name) ? "ja" : /\/zh\//.test(name) ? "zh" : name.endsWith(".json") ? "json" : "en";
  return { name, kind, o200k: o200k(text), cl100k: cl100k(text) };
});
// Held out too: source code in heldout/.
const code = new URL("./heldout/", import.meta.url);
for (const name of readdirSync(code).sort()) {
  const text = readFileSync(new URL(name, code), "utf8");
  heldOut.push({ name: "../../tokens/heldout/" + name, kind: name.split("-")[0], o200k: o200k(text), cl100k: cl100k(text) });
}
console.log(JSON.stringify({ tokenizer: "gpt-tokenizer 2.9.0", samples, heldOut }, null, 2));
