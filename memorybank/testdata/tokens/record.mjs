// Records the reference token counts of the samples with real BPE
// tokenizers (o200k_base, used by GPT-4o and later; cl100k_base, used by
// GPT-4), for the estimator test in tokens_test.go.
//
//	cd memorybank/testdata/tokens && npm install && node record.mjs > counts.json
import { readdirSync, readFileSync } from "node:fs";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";

const dir = new URL("./samples/", import.meta.url);
const samples = readdirSync(dir).sort().map((name) => {
  const text = readFileSync(new URL(name, dir), "utf8");
  return { name, kind: name.split("-")[0], o200k: o200k(text), cl100k: cl100k(text) };
});
console.log(JSON.stringify({ tokenizer: "gpt-tokenizer 2.9.0", samples }, null, 2));
