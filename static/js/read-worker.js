// Web Worker: reads one File in large slices and hands each slice over (transferred, not copied)
// to the worker that asked, a few slices ahead of it. Reading a File costs CPU time in the thread
// that reads; doing it here lets the matcher scan on one core while this one reads on the other.

let file = null;
let block = 0;
let at = 0;
let credits = 0;
let finished = false;
const reader = new FileReaderSync();

function pump() {
  while (credits > 0 && at < file.size) {
    const buffer = reader.readAsArrayBuffer(file.slice(at, at + block));
    at += block;
    credits -= 1;
    postMessage({ buffer }, [buffer]);
  }
  if (at >= file.size) {
    finished = true;
    postMessage({ done: true });
  }
}

onmessage = (event) => {
  if (finished) return;
  try {
    if (event.data.file) ({ file, block, ahead: credits } = event.data);
    else credits += 1;
    pump();
  } catch (error) {
    postMessage({ error: String(error?.message ?? error) });
  }
};
