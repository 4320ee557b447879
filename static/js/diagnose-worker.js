// Web Worker: streams the given files (or pasted text) through the matcher, reporting progress.
// The bundle is loaded once, when the page starts the worker, so no request is made during analysis.
import { Diagnosis, compileBundle } from "./matcher.js";

const PROGRESS_EVERY = 4 * 1024 * 1024;
let compiled = null;
let ready = null;

async function scanFile(diagnosis, file, state) {
  const scan = diagnosis.openFile(file.name);
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    state.done += value.length;
    if (!scan.push(value)) {
      await reader.cancel();
      state.done += file.size - state.done + state.before;
      break;
    }
    if (state.done - state.reported >= PROGRESS_EVERY) {
      state.reported = state.done;
      postMessage({ type: "progress", done: state.done, total: state.total });
    }
  }
  scan.end();
  state.before += file.size;
  state.done = state.before;
}

onmessage = async (event) => {
  const { type } = event.data;
  try {
    if (type === "load") {
      ready = fetch(event.data.bundleUrl)
        .then((r) => {
          if (!r.ok) throw new Error(`could not load the signature bundle (${r.status})`);
          return r.json();
        })
        .then((bundle) => { compiled = compileBundle(bundle); });
      await ready;
      postMessage({ type: "ready" });
      return;
    }
    await ready;
    const diagnosis = new Diagnosis(compiled);
    const inputs = event.data.files?.length ? event.data.files : [new File([event.data.text ?? ""], "pasted log")];
    const state = { done: 0, before: 0, reported: 0, total: inputs.reduce((s, f) => s + f.size, 0) };
    for (const file of inputs) await scanFile(diagnosis, file, state);
    postMessage({ type: "progress", done: state.total, total: state.total });
    postMessage({ type: "done", result: diagnosis.result() });
  } catch (error) {
    postMessage({ type: "error", message: String(error?.message ?? error) });
  }
};
