// Records the reference outputs of the memory tool's local-filesystem
// backend of the official TypeScript SDK (npm @anthropic-ai/sdk,
// tools/memory/node, class BetaLocalFilesystemMemoryTool; source
// anthropics/anthropic-sdk-typescript src/tools/memory/node.ts) for the
// inputs in reference_inputs.json. Runs locally on a temporary directory;
// makes no network call.
//
// Usage: npm install @anthropic-ai/sdk && node record_reference_ts.cjs > reference_typescript.json
const fs = require('fs');
const os = require('os');
const path = require('path');
const { BetaLocalFilesystemMemoryTool } = require('@anthropic-ai/sdk/tools/memory/node');
const sdkDir = path.dirname(path.dirname(path.dirname(require.resolve('@anthropic-ai/sdk/tools/memory/node'))));
const version = JSON.parse(fs.readFileSync(path.join(sdkDir, 'package.json'), 'utf8')).version;

(async () => {
  const steps = JSON.parse(fs.readFileSync(path.join(__dirname, 'reference_inputs.json'), 'utf8'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memref-'));
  const tool = await BetaLocalFilesystemMemoryTool.init(root);
  const out = [];
  for (const step of steps) {
    let want, isError = false;
    try {
      want = await tool[step.input.command](step.input);
    } catch (e) {
      want = e.message;
      isError = true;
    }
    out.push({ name: step.name, input: step.input, want, is_error: isError });
  }
  fs.rmSync(root, { recursive: true });
  process.stdout.write(JSON.stringify({
    source: `npm @anthropic-ai/sdk ${version} tools/memory/node (BetaLocalFilesystemMemoryTool; anthropics/anthropic-sdk-typescript src/tools/memory/node.ts), recorded by record_reference_ts.cjs on Linux/ext4`,
    steps: out,
  }, null, 1) + '\n');
})();
