// Run the browser's matcher core under Node: `node diagnose.mjs BUNDLE.json FILE...` prints the JSON result.
import { openSync, readSync, closeSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { Diagnosis, compileBundle } from "../../static/js/matcher.js";

const BLOCK = 8 << 20;
const [bundlePath, ...files] = process.argv.slice(2);
const diagnosis = new Diagnosis(compileBundle(JSON.parse(readFileSync(bundlePath, "utf8"))));
const buffer = Buffer.allocUnsafe(BLOCK);
for (const file of files) {
  const scan = diagnosis.openFile(file.startsWith("name=") ? file.split("=")[1].split(":")[0] : basename(file));
  const path = file.startsWith("name=") ? file.slice(file.indexOf(":") + 1) : file;
  const fd = openSync(path, "r");
  for (;;) {
    const n = readSync(fd, buffer, 0, BLOCK, null);
    if (n === 0) break;
    if (!scan.push(buffer.subarray(0, n))) break;
  }
  closeSync(fd);
  scan.end();
}
process.stdout.write(JSON.stringify(diagnosis.result()) + "\n");
