// worker.js - the engine's side of the page: runs infersim_json (include/infersim.h) in a Web
// Worker, appended to the emscripten module (createInfersim) in the page's <script
// id="engine-src">, from which the page starts it as a Blob worker (file:// allows no other).
// A message {id, calls: [{argv, files}]} runs the calls in turn: `files` (path -> text) are
// written into the module's file system first (a pasted config.json, an edited device). Answers
// {id, kind: "progress", done, total} after each call and {id, kind: "done", results: [{json,
// err, ms}]} at the end: the JSON text infersim_json answered, or its one-line error.
"use strict";
const modReady = createInfersim({ print() {}, printErr() {} });

function mkdirs(FS, path) {
  const parts = path.split("/").slice(1, -1);
  let dir = "";
  for (const p of parts) {
    dir += "/" + p;
    try { FS.mkdir(dir); } catch (e) { /* there already */ }
  }
}

function call(M, argv) {
  const ptrs = argv.map((s) => {
    const n = M.lengthBytesUTF8(s) + 1, p = M._malloc(n);
    M.stringToUTF8(s, p, n);
    return p;
  });
  const arr = M._malloc(4 * ptrs.length), errLen = 1024, err = M._malloc(errLen);
  ptrs.forEach((p, i) => M.setValue(arr + 4 * i, p, "i32"));
  M.setValue(err, 0, "i8");
  const r = M._infersim_json(argv.length, arr, err, errLen);
  let out;
  if (r) {
    out = { json: M.UTF8ToString(r), err: null };
    M._free(r);
  } else {
    out = { json: null, err: M.UTF8ToString(err) };
  }
  ptrs.forEach((p) => M._free(p));
  M._free(arr);
  M._free(err);
  return out;
}

self.onmessage = async (ev) => {
  const M = await modReady;
  const { id, calls } = ev.data;
  if (id === "names") {
    const list = (dir) => M.FS.readdir(dir).filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5)).sort();
    self.postMessage({ id, kind: "done", models: list("/models"), hw: list("/hw"),
      engines: list("/hw/engines"), version: M.UTF8ToString(M._infersim_version()),
      hwFiles: Object.fromEntries(list("/hw").map((n) =>
        [n, M.FS.readFile("/hw/" + n + ".json", { encoding: "utf8" })])) });
    return;
  }
  const results = [];
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i], t0 = performance.now();
    for (const [path, text] of Object.entries(c.files || {})) {
      mkdirs(M.FS, path);
      M.FS.writeFile(path, text);
    }
    const r = call(M, c.argv);
    r.ms = performance.now() - t0;
    results.push(r);
    self.postMessage({ id, kind: "progress", done: i + 1, total: calls.length });
  }
  self.postMessage({ id, kind: "done", results });
};
