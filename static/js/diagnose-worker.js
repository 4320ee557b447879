// Web Worker: streams the given files (or pasted text) through the matcher, reporting progress.
import { Matcher, compileBundle, rankFromFileName } from "./matcher.js";

const PROGRESS_EVERY = 8 * 1024 * 1024;
const MAX_CARRY = 256 * 1024;

let compiled = null;

async function bundle(url) {
  if (!compiled) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`could not load the signature bundle (${response.status})`);
    compiled = compileBundle(await response.json());
  }
  return compiled;
}

function looksBinary(bytes) {
  const n = Math.min(bytes.length, 8192);
  let nul = 0;
  for (let i = 0; i < n; i++) if (bytes[i] === 0) nul++;
  return n > 0 && nul / n > 0.01;
}

async function scanFile(matcher, file, state, notes) {
  const reader = file.stream().getReader();
  const decoder = new TextDecoder("utf-8");
  const fileRank = rankFromFileName(file.name);
  let carry = "";
  let skipping = false;
  let lineNo = 0;
  let first = true;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first) {
      first = false;
      if (looksBinary(value)) {
        notes.push(`${file.name}: looks like a binary file, not a text log; it was skipped.`);
        await reader.cancel();
        state.done += file.size;
        return;
      }
    }
    state.done += value.length;
    let text = carry + decoder.decode(value, { stream: true });
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      lineNo++;
      if (!skipping) matcher.feed(text.slice(start, nl), file.name, lineNo, fileRank);
      skipping = false;
      start = nl + 1;
    }
    carry = text.slice(start);
    if (carry.length > MAX_CARRY) {
      // An endless line: match its head once, then skip to the next newline.
      if (!skipping) {
        lineNo++;
        matcher.feed(carry.slice(0, MAX_CARRY), file.name, lineNo, fileRank);
        notes.push(`${file.name}: line ${lineNo} is longer than ${MAX_CARRY / 1024} KiB; only its start was read.`);
        lineNo--;
      }
      skipping = true;
      carry = "";
    }
    text = null;
    if (state.done - state.reported >= PROGRESS_EVERY) {
      state.reported = state.done;
      postMessage({ type: "progress", done: state.done, total: state.total });
    }
  }
  carry += decoder.decode();
  if (carry.length && !skipping) {
    lineNo++;
    matcher.feed(carry, file.name, lineNo, fileRank);
  }
}

onmessage = async (event) => {
  const { bundleUrl, files, text } = event.data;
  try {
    const matcher = new Matcher(await bundle(bundleUrl));
    const notes = [];
    const inputs = files?.length ? files : [new File([text ?? ""], "pasted log")];
    const state = { done: 0, reported: 0, total: inputs.reduce((s, f) => s + f.size, 0) };
    for (const file of inputs) await scanFile(matcher, file, state, notes);
    postMessage({ type: "progress", done: state.total, total: state.total });
    postMessage({ type: "done", result: matcher.result(), notes });
  } catch (error) {
    postMessage({ type: "error", message: String(error?.message ?? error) });
  }
};
