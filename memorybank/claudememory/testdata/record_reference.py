"""Records the reference outputs of the memory tool's local-filesystem backend
of the official Python SDK (anthropics/anthropic-sdk-python,
src/anthropic/lib/tools/_beta_builtin_memory_tool.py, class
BetaLocalFilesystemMemoryTool) for the inputs in reference_inputs.json.

Usage: python3 record_reference.py PATH/TO/_beta_builtin_memory_tool.py COMMIT > reference_python.json

The SDK module imports the rest of the SDK; this script runs only its
filesystem backend, with the SDK's ToolError and base class replaced by
stand-ins, so it needs no installed SDK and makes no network call.
"""
import json, os, shutil, sys, tempfile, types, typing, uuid
from pathlib import Path

src_path, commit = sys.argv[1], sys.argv[2]
src = open(src_path, encoding="utf-8").read()
start = src.index("MAX_LINES = ")
# Everything from the constants to the async backend: helpers and the sync class.
body = src[start:src.index("async def _async_atomic_write_file")]
# Drop the abstract base classes, which need the SDK.
a = body.index("class BetaAbstractMemoryTool")
b = body.index("def _atomic_write_file")
body = body[:a] + body[b:]

class ToolError(Exception):
    pass

class Base:
    def __init__(self, *args, **kwargs):
        pass

ns = {"os": os, "shutil": shutil, "uuid": uuid, "Path": Path, "List": typing.List,
      "override": lambda f: f, "ToolError": ToolError, "BetaAbstractMemoryTool": Base}
for name in ["View", "Create", "StrReplace", "Insert", "Delete", "Rename"]:
    ns["BetaMemoryTool20250818" + name + "Command"] = object
exec(compile("from __future__ import annotations\n" + body, src_path, "exec"), ns)

steps = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_inputs.json")))
root = tempfile.mkdtemp()
tool = ns["BetaLocalFilesystemMemoryTool"](base_path=root)
fields = ["path", "view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text", "old_path", "new_path"]
out = []
for step in steps:
    inp = step["input"]
    cmd = types.SimpleNamespace(**{f: inp.get(f) for f in fields}, command=inp["command"])
    try:
        text, is_error = getattr(tool, inp["command"])(cmd), False
    except ToolError as e:
        text, is_error = str(e), True
    out.append({"name": step["name"], "input": inp, "want": text, "is_error": is_error})
shutil.rmtree(root)
json.dump({"source": "anthropics/anthropic-sdk-python src/anthropic/lib/tools/_beta_builtin_memory_tool.py @ " + commit +
           " (BetaLocalFilesystemMemoryTool), recorded by record_reference.py on Linux/ext4",
           "steps": out}, sys.stdout, indent=1, ensure_ascii=False)
print()
