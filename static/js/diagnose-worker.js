// Web Worker: streams the given files (or pasted text) through the matcher, reporting progress.
// The bundle is loaded once, when the page starts the worker, so no request is made during analysis.
import { Diagnosis, compileBundle } from "./matcher.js";

const PROGRESS_EVERY = 4 * 1024 * 1024;
const HELPER_READ = 32 * 1024 * 1024;
const READ_BLOCK = 8 * 1024 * 1024;
const READ_AHEAD = 3;
let compiled = null;
let ready = null;
let masks = [];

/** The bytes of ``file`` in pieces: read by a helper worker when the file is large, else streamed. */
async function* pieces(file) {
  if (file.size < HELPER_READ || typeof Worker === "undefined") {
    const reader = file.stream().getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }
  const helper = new Worker(new URL("./read-worker.js", import.meta.url), { type: "module" });
  const queue = [];
  let wake = null;
  helper.onmessage = (event) => {
    queue.push(event.data);
    wake?.();
  };
  helper.onerror = (event) => {
    queue.push({ error: event.message || "the file could not be read" });
    wake?.();
  };
  helper.postMessage({ file, block: READ_BLOCK, ahead: READ_AHEAD });
  try {
    for (;;) {
      while (!queue.length) await new Promise((resolve) => (wake = resolve));
      const message = queue.shift();
      if (message.error) throw new Error(message.error);
      if (message.done) return;
      helper.postMessage({ more: true });
      yield new Uint8Array(message.buffer);
    }
  } finally {
    helper.terminate();
  }
}

/** The text of a .gz file, decompressed as it streams; progress counts the compressed bytes read. */
async function* gunzipped(file, state) {
  const counted = new TransformStream({
    transform(chunk, controller) {
      state.done += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const reader = file.stream().pipeThrough(counted).pipeThrough(new DecompressionStream("gzip")).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function scanFile(diagnosis, file, state) {
  const scan = diagnosis.openFile(file.name);
  const gz = file.name.endsWith(".gz");
  for await (const value of gz ? gunzipped(file, state) : pieces(file)) {
    if (!gz) state.done += value.length;
    if (!scan.push(value)) {
      state.done = state.before + file.size;
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
        .then((bundle) => {
          compiled = compileBundle(bundle);
          masks = bundle.normalize.masks;
        });
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
    postMessage({ type: "done", result: diagnosis.result(), masks });
  } catch (error) {
    postMessage({ type: "error", message: String(error?.message ?? error) });
  }
};
