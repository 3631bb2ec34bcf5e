// app.js - the page: its controls make one infersim command line (the same words the command line
// takes), which the engine (worker.js, in a Web Worker) runs through infersim_json with the API's
// --report-html; the page shows the JSON's headline numbers and the --html report's own tables
// and SVG charts (sim/html.c, sim/charts*.c), so pictures and numbers are the command line's.
// Every input is in the URL query; "Copy as command line" gives the equivalent invocation.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const form = $("controls");
  const PASTED = "config.json";         // a pasted model, at the root: the working directory
  const DEVICE = "device.json";         // an edited device
  const AUTO_MS = 100;                  // runs faster than this follow every input
  const SWEEP_AXES = {
    run: ["batch", "input-len", "output-len", "tp", "pp", "ep", "hw", "engine", "weight-dtype",
      "kv-cache-dtype"],
    serve: ["request-rate", "max-num-seqs", "num-prompts", "random-input-len", "random-output-len",
      "tp", "hw", "engine", "kv-cache-dtype"],
  };
  const HW_FIELDS = [["hw-name", "name"], ["hw-dense-tflops", "dense_tflops"],
    ["hw-hbm-gib", "hbm_gib"], ["hw-hbm-tb-per-s", "hbm_tb_per_s"],
    ["hw-scaleup", "scaleup_gb_per_s_per_dir"], ["hw-compute-units", "compute_units"]];

  let hwFiles = {};
  const lastMs = {};                    // the last run's time per mode
  let worker = null, seq = 0, inflight = null, queued = false, timer = null;
  let cold = true;                      // a fresh engine's first call compiles as it runs: slow

  // ---- the engine ----
  const workerUrl = URL.createObjectURL(new Blob([$("engine-src").textContent],
    { type: "text/javascript" }));
  function startWorker() {
    worker = new Worker(workerUrl);
    cold = true;
    worker.onmessage = onMessage;
    worker.onerror = (e) => {
      e.preventDefault();
      finish();
      showError("infersim: the engine stopped: " + (e.message || "unknown error"));
    };
  }
  function post(msg) {
    worker.postMessage(msg);
  }

  // ---- state: the form <-> the URL query ----
  const stateEls = () => Array.from(form.elements).filter((el) => el.name && el.type !== "file");
  const defaults = {};
  function value(el) {
    if (el.type === "checkbox") return el.checked ? "1" : "";
    if (el.type === "radio") return el.checked ? el.value : null;
    return el.value;
  }
  function setValue(el, v) {
    if (el.type === "checkbox") el.checked = v === "1";
    else if (el.type === "radio") el.checked = el.value === v;
    else el.value = v;
  }
  function state() {
    const st = {};
    for (const el of stateEls()) {
      const v = value(el);
      if (v !== null) st[el.name] = v;
    }
    return st;
  }
  function saveUrl() {
    const q = new URLSearchParams(), st = state();
    for (const [k, v] of Object.entries(st)) if (v !== defaults[k]) q.set(k, v);
    const s = q.toString();
    history.replaceState(null, "", s ? "?" + s : location.pathname);
  }
  function loadUrl() {
    const q = new URLSearchParams(location.search);
    for (const el of stateEls()) if (q.has(el.name)) setValue(el, q.get(el.name));
    // a shared link may name a model that is not shipped: it is an error of the run, not lost
    for (const [id, key] of [["model", "model"], ["hw", "hw"], ["engine", "engine"]]) {
      const sel = $(id), v = q.get(key);
      if (v && !Array.from(sel.options).some((o) => o.value === v)) {
        sel.add(new Option(v, v));
        sel.value = v;
      }
    }
  }

  // ---- the command line ----
  function hwFile(st) {
    const o = {};
    for (const [id, key] of HW_FIELDS) {
      const v = st[id];
      o[key] = key === "name" ? v : Number(v);
      if (key !== "name" && (v === "" || !isFinite(Number(v)))) o[key] = v; // the CLI says why
    }
    if (st["hw-arch"]) o.arch = st["hw-arch"];
    return JSON.stringify(o);
  }
  // {argv, files, points}: the words after "infersim", the files they name
  function command(st) {
    const files = {}, mode = st.mode;
    const cmd = mode === "sweep" ? st["sweep-of"] : mode;
    const axes = mode === "sweep" ? [[st.axis1, st.values1], [st.axis2, st.values2]]
      .filter(([k, v]) => k && v.trim() !== "") : [];
    const swept = new Set(axes.map(([k]) => k));
    const argv = mode === "sweep" ? ["sweep", cmd] : [cmd];
    const add = (flag, v) => {
      if (!swept.has(flag) && v !== undefined && v !== "") argv.push("--" + flag, String(v));
    };
    if (st.model === "pasted") {
      files["/" + PASTED] = fileText(st["model-json"]);
      add("model", PASTED);
    } else add("model", st.model);
    if (st["hw-edit"] === "1") {
      files["/" + DEVICE] = fileText(hwFile(st));
      add("hw", DEVICE);
    } else add("hw", st.hw);
    add("engine", st.engine);
    for (const k of ["tp", "ep", "pp"]) if (st[k] !== "1") add(k, st[k]);
    for (const k of ["weight-dtype", "act-dtype", "kv-cache-dtype"]) add(k, st[k]);
    if (cmd === "run") for (const k of ["batch", "input-len", "output-len"]) add(k, st[k]);
    else {
      for (const k of ["request-rate", "num-prompts", "max-num-seqs", "random-input-len",
        "random-output-len"]) add(k, st[k]);
      if (st["random-range-ratio"] !== "0") add("random-range-ratio", st["random-range-ratio"]);
    }
    let points = 1;
    for (const [k, v] of axes) {
      argv.push("--" + k, v.trim());
      points *= v.split(",").length;
    }
    if (mode === "sweep" && st.slo.trim()) argv.push("--slo", st.slo.trim());
    return { argv, files, points };
  }
  const quote = (w) => (/^[A-Za-z0-9_.,:=@%+\/-]+$/.test(w) ? w : "'" + w.replace(/'/g, "'\\''") + "'");
  // a file as the here-document writes it: its text, ending with a newline
  const fileText = (t) => (t.endsWith("\n") ? t : t + "\n");
  function shellText(c) {
    let text = "";
    for (const [path, body] of Object.entries(c.files))
      text += "cat > " + path.slice(1) + " <<'INFERSIM_EOF'\n" + body + "INFERSIM_EOF\n";
    return text + "infersim " + c.argv.map(quote).join(" ");
  }

  // ---- running ----
  function run(reason) {
    clearTimeout(timer);
    saveUrl();
    const st = state(), c = command(st);
    $("cmdline").textContent = "$ " + shellText(c);
    if (inflight) {
      if (reason === "auto" && !inflight.long) { queued = true; return; }
      cancel(true);
    }
    const id = ++seq;
    const argv = c.argv.concat(["--report-html"]);
    const est = st.mode === "sweep" && lastMs.sweepPoint ? lastMs.sweepPoint * c.points : lastMs[st.mode];
    inflight = { id, mode: st.mode, points: c.points, t0: performance.now(), est, long: false };
    post({ id, calls: [{ argv, files: c.files }] });
    $("status").textContent = "running…";
    inflight.tick = setInterval(tick, 100);
  }
  function tick() {
    if (!inflight) return;
    const ms = performance.now() - inflight.t0;
    if (ms < AUTO_MS) return;
    inflight.long = true;
    const bar = $("progress");
    bar.hidden = false;
    $("cancel").hidden = false;
    if (inflight.est) {
      bar.max = inflight.est;
      bar.value = Math.min(ms, inflight.est * 0.99);
      $("progress-text").textContent = (ms / 1000).toFixed(1) + " s of about " +
        (inflight.est / 1000).toFixed(1) + " s" +
        (inflight.mode === "sweep" ? " (" + inflight.points + " points)" : "");
    } else {
      bar.removeAttribute("value");
      $("progress-text").textContent = (ms / 1000).toFixed(1) + " s";
    }
  }
  function finish() {
    if (inflight) clearInterval(inflight.tick);
    inflight = null;
    $("progress").hidden = true;
    $("cancel").hidden = true;
    $("progress-text").textContent = "";
  }
  function cancel(restart) {
    worker.terminate();
    finish();
    queued = false;
    startWorker();
    if (!restart) $("status").textContent = "cancelled";
  }

  function onMessage(ev) {
    const m = ev.data;
    if (m.id === "names") return names(m);
    if (!inflight || m.id !== inflight.id || m.kind !== "done") return;
    const r = m.results[0], mode = inflight.mode, points = inflight.points;
    if (!cold) {
      lastMs[mode] = r.ms;
      if (mode === "sweep") lastMs.sweepPoint = r.ms / points;
    }
    cold = false;
    finish();
    show(r, mode, points);
    autoNote();
    if (queued) {
      queued = false;
      run("auto");
    }
  }

  // ---- showing a result ----
  function showError(msg) {
    const e = $("error");
    e.textContent = msg;
    e.hidden = false;
    for (const id of ["ttft_ms", "tpot_ms", "output_throughput"]) $(id).textContent = "";
    $("report").replaceChildren();
    $("status").textContent = "";
  }
  function show(r, mode, points) {
    if (!r.json) return showError(r.err);
    $("error").hidden = true;
    const j = JSON.parse(r.json);
    // the digits the command line prints: run's table %.3f / %.1f, serve's vLLM-style %.2f
    const fmt = (x, d) => (typeof x === "number" ? x.toFixed(d) : "");
    if (mode === "run") {
      $("ttft_ms").textContent = fmt(j.ttft_ms, 3);
      $("tpot_ms").textContent = fmt(j.tpot_ms, 3);
      $("output_throughput").textContent = fmt(j.output_throughput, 1);
    } else if (mode === "serve") {
      $("ttft_ms").textContent = fmt(j.mean_ttft_ms, 2);
      $("tpot_ms").textContent = fmt(j.mean_tpot_ms, 2);
      $("output_throughput").textContent = fmt(j.output_throughput, 2);
    } else {
      for (const id of ["ttft_ms", "tpot_ms", "output_throughput"]) $(id).textContent = "";
    }
    $("status").textContent = (mode === "sweep" ? points + " points, " : "") +
      (r.ms < 1000 ? r.ms.toFixed(0) + " ms" : (r.ms / 1000).toFixed(2) + " s");
    const doc = new DOMParser().parseFromString(j.report_html || "", "text/html");
    const keep = Array.from(doc.body.children).filter((n) => !/^(HEADER|FOOTER)$/.test(n.tagName));
    $("report").replaceChildren(...keep.map((n) => document.importNode(n, true)));
  }

  function autoNote() {
    const ms = lastMs[state().mode];
    $("auto-note").textContent = ms !== undefined && ms >= AUTO_MS
      ? "This takes " + (ms / 1000).toFixed(2) + " s a run: press Run (or Enter) after a change."
      : "Results follow every change.";
  }

  // ---- controls ----
  function fill(sel, names, first) {
    sel.replaceChildren(...(first ? [new Option(first[1], first[0])] : []),
      ...names.map((n) => new Option(n, n)));
  }
  function fillHw() {
    const f = hwFiles[$("hw").value];
    if (!f) return;
    let o;
    try { o = JSON.parse(f); } catch (e) { return; }
    for (const [id, key] of HW_FIELDS) {
      let v = o[key];
      if (v && typeof v === "object") v = v.bf16;
      $(id).value = v === undefined ? "" : String(v);
    }
    const arch = ["ampere", "ada", "hopper", "blackwell", "cdna3", "tpu"];
    $("hw-arch").value = arch.includes(o.arch) ? o.arch : "";
  }
  function modeFields() {
    const st = state(), of = st.mode === "sweep" ? st["sweep-of"] : st.mode;
    $("run-fields").hidden = of !== "run";
    $("serve-fields").hidden = of !== "serve";
    $("sweep-fields").hidden = st.mode !== "sweep";
    $("model-paste").hidden = st.model !== "pasted";
    $("hw-fields").hidden = st["hw-edit"] !== "1";
    for (const [id, blank] of [["axis1", false], ["axis2", true]]) {
      const sel = $(id), v = sel.value;
      fill(sel, SWEEP_AXES[of], blank ? ["", "(none)"] : null);
      if (Array.from(sel.options).some((o) => o.value === v)) sel.value = v;
    }
  }
  function names(m) {
    hwFiles = m.hwFiles;
    fill($("model"), m.models);
    $("model").add(new Option("pasted config.json", "pasted"));
    fill($("hw"), m.hw);
    fill($("engine"), m.engines, ["", "default (vllm)"]);
    for (const sel of document.querySelectorAll("select[data-dtypes]"))
      fill(sel, sel.dataset.dtypes.split(" "), ["", "default"]);
    $("model").value = "llama-3.1-8b";
    $("hw").value = "h100-sxm";
    modeFields();
    $("axis1").value = "batch";
    fillHw();
    for (const el of stateEls()) {
      const v = value(el);
      if (v !== null) defaults[el.name] = v;
    }
    loadUrl();
    modeFields();
    loadUrl(); // the axes' options depend on the mode
    run("load");
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    run("button");
  });
  function changed(e) {
    const t = e.target;
    if (t.type === "file") return;
    if (t.id === "hw" && state()["hw-edit"] === "1") fillHw();
    if (t.id === "hw-edit" && t.checked) fillHw();
    if (["mode", "model", "hw-edit", "sweep-of"].includes(t.name)) modeFields();
    saveUrl();
    const ms = lastMs[state().mode];
    autoNote();
    if (ms === undefined || ms < AUTO_MS) {
      clearTimeout(timer);
      timer = setTimeout(() => run("auto"), 150);
    }
  }
  form.addEventListener("input", changed); // every control's edits, selects and boxes too
  $("cancel").addEventListener("click", () => cancel(false));
  $("copy-cmd").addEventListener("click", async () => {
    const text = shellText(command(state()));
    try {
      await navigator.clipboard.writeText(text);
      $("status").textContent = "command line copied";
    } catch (e) {
      const r = document.createRange();
      r.selectNodeContents($("cmdline"));
      getSelection().removeAllRanges();
      getSelection().addRange(r);
      $("status").textContent = "select and copy the command line below";
    }
  });
  async function takeFile(file) {
    $("model-json").value = await file.text();
    changed({ target: $("model-json") });
  }
  $("model-file").addEventListener("change", (e) => { if (e.target.files[0]) takeFile(e.target.files[0]); });
  const ta = $("model-json");
  ta.addEventListener("dragover", (e) => e.preventDefault());
  ta.addEventListener("drop", (e) => {
    e.preventDefault();
    if (e.dataTransfer.files[0]) takeFile(e.dataTransfer.files[0]);
  });

  startWorker();
  post({ id: "names" });
})();
