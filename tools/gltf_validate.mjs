#!/usr/bin/env node
// Validates .glb/.gltf files (or every one under a directory) with the Khronos
// gltf-validator. Prints a line per file; exits 1 when any file has an error.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

function collect(p, out) {
  const st = fs.statSync(p);
  if (st.isDirectory()) {
    for (const e of fs.readdirSync(p).sort()) collect(path.join(p, e), out);
  } else if (/\.(glb|gltf)$/i.test(p)) {
    out.push(p);
  }
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const files = [];
for (const a of args.filter((a) => a !== '--json')) collect(a, files);
if (files.length === 0) {
  console.error('gltf_validate: no .glb/.gltf files given');
  process.exit(2);
}
let failed = 0;
const reports = [];
for (const f of files) {
  const data = new Uint8Array(fs.readFileSync(f));
  const report = await validator.validateBytes(data, {
    uri: path.basename(f),
    maxIssues: 200,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        try { resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(f), decodeURIComponent(uri))))); }
        catch (e) { reject(e.toString()); }
      }),
  });
  const i = report.issues;
  reports.push({ file: f, errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos,
                 messages: i.messages.filter((m) => m.severity <= 1) });
  if (i.numErrors > 0) failed++;
  if (!json) {
    console.log(`${f}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos`);
    for (const m of i.messages.filter((m) => m.severity <= 1).slice(0, 20))
      console.log(`  ${m.severity === 0 ? 'ERROR' : 'warning'} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  }
}
if (json) console.log(JSON.stringify(reports, null, 1));
process.exit(failed ? 1 : 0);
