// Run the browser's matcher core under Node.
//   node diagnose.mjs BUNDLE.json FILE...     prints the JSON result for those files
//   node diagnose.mjs --batch BUNDLE.json     reads a JSON array of file lists on stdin and prints
//                                             one JSON array of results (one Node start for all)
// A file given as "name=SHOWN:PATH" is read from PATH and shown as SHOWN.
import { openSync, readSync, closeSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { Diagnosis, compileBundle } from "../../static/js/matcher.js";

const BLOCK = 8 << 20;
const buffer = Buffer.allocUnsafe(BLOCK);

function diagnose(compiled, files) {
  const diagnosis = new Diagnosis(compiled);
  for (const file of files) {
    const named = file.startsWith("name=");
    const scan = diagnosis.openFile(named ? file.split("=")[1].split(":")[0] : basename(file));
    const fd = openSync(named ? file.slice(file.indexOf(":") + 1) : file, "r");
    for (;;) {
      const n = readSync(fd, buffer, 0, BLOCK, null);
      if (n === 0) break;
      if (!scan.push(buffer.subarray(0, n))) break;
    }
    closeSync(fd);
    scan.end();
  }
  return diagnosis.result();
}

const args = process.argv.slice(2);
if (args[0] === "--batch") {
  const compiled = compileBundle(JSON.parse(readFileSync(args[1], "utf8")));
  const jobs = JSON.parse(readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify(jobs.map((files) => diagnose(compiled, files))) + "\n");
} else {
  const [bundlePath, ...files] = args;
  process.stdout.write(JSON.stringify(diagnose(compileBundle(JSON.parse(readFileSync(bundlePath, "utf8"))), files)) + "\n");
}
