// Structured mutation campaign over the inputs users craft by hand (issue 14): glTF (.glb and
// .gltf + .bin) and scene JSON, mutated where it hurts (indices, counts, types, cycles, depth),
// run through the real CLI: `info`, `convert` and `pack`.
//
//   node tools/json_campaign.mjs RIGRIP EXAMPLES_DIR WORK_DIR N [--seed S] [--jobs J] [--timeout SEC]
//
// Seeds are what rigrip itself writes from every file under EXAMPLES_DIR. Each run must end in
// an output or a clean error: exit 0, 1 or 2 (no signal), within the timeout, every error line
// one line with a stable E_ code and no library text, no sanitizer report, no output file
// after a failure, no temporary left behind. Findings are copied to WORK_DIR/findings/ with a
// line saying how to reproduce them. Exit 1 when there is any finding.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
let seed = Number(opt('--seed', '1414'));
const jobs = Number(opt('--jobs', '2'));
const timeoutSec = Number(opt('--timeout', '10'));
if (args.length !== 4) {
  console.error('usage: json_campaign.mjs RIGRIP EXAMPLES_DIR WORK_DIR N [--seed S] [--jobs J] [--timeout SEC]');
  process.exit(2);
}
const [rigrip, examples, work, nText] = args;
const total = Number(nText);
const rigripAbs = path.resolve(rigrip);
const examplesAbs = path.resolve(examples);

// xorshift32: the same mutants for the same seed on every machine.
const rand = () => {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed;
};
const pick = (a) => a[rand() % a.length];

fs.rmSync(work, { recursive: true, force: true });
for (const d of ['seeds', 'm', 'out', 'findings']) fs.mkdirSync(path.join(work, d), { recursive: true });

// ---- seeds: our own outputs from the bundled examples
function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (!/\.md$/i.test(e.name)) out.push(p);
  }
  return out.sort();
}
const seeds = [];
for (const src of walk(examplesAbs)) {
  const stem = path.basename(src).replace(/\W/g, '_');
  for (const ext of ['glb', 'gltf', 'json']) {
    const o = path.join(work, 'seeds', `${stem}.${ext}`);
    const r = spawnSync(rigripAbs, ['convert', src, '-o', o], { encoding: 'utf8' });
    if (r.status === 0 && fs.existsSync(o)) seeds.push(o);
  }
}
if (seeds.length === 0) {
  console.error('json_campaign: no seed could be written from ' + examplesAbs);
  process.exit(1);
}

// ---- GLB split/join
function splitGlb(buf) {
  if (buf.length < 20 || buf.toString('latin1', 0, 4) !== 'glTF') return null;
  const jl = buf.readUInt32LE(12);
  const json = buf.subarray(20, 20 + jl).toString('utf8');
  const next = 20 + ((jl + 3) & ~3);
  const bin = next + 8 <= buf.length ? buf.subarray(next + 8) : Buffer.alloc(0);
  return { json, bin };
}
function joinGlb(text, bin) {
  let j = Buffer.from(text, 'utf8');
  if (j.length % 4) j = Buffer.concat([j, Buffer.alloc(4 - (j.length % 4), 0x20)]);
  let b = bin;
  if (b.length % 4) b = Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]);
  const h = Buffer.alloc(12);
  h.write('glTF', 0, 'latin1');
  h.writeUInt32LE(2, 4);
  h.writeUInt32LE(12 + 8 + j.length + (b.length ? 8 + b.length : 0), 8);
  const jh = Buffer.alloc(8);
  jh.writeUInt32LE(j.length, 0);
  jh.write('JSON', 4, 'latin1');
  const parts = [h, jh, j];
  if (b.length) {
    const bh = Buffer.alloc(8);
    bh.writeUInt32LE(b.length, 0);
    bh.write('BIN\0', 4, 'latin1');
    parts.push(bh, b);
  }
  return Buffer.concat(parts);
}

// ---- structured mutations
const nasty = [-1, 0, 1, 2, 7, 13, 99, 255, 65535, 2147483647, 4294967296, 100000000, -2147483648, 1e300, 0.5];
function slots(v, out = [], parent = null, key = null) {
  if (parent !== null) out.push([parent, key]);
  if (Array.isArray(v)) v.forEach((x, i) => slots(x, out, v, i));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) slots(v[k], out, v, k);
  return out;
}
function mutate(doc) {
  const edits = rand() % 3 === 0 ? 2 : 1;
  for (let e = 0; e < edits; ++e) {
    const all = slots(doc);
    if (all.length === 0) return doc;
    const [p, k] = pick(all);
    switch (rand() % 9) {
      case 0: case 1: p[k] = pick(nasty); break;                              // index / count out of range
      case 2: { const [q, l] = pick(all); p[k] = structuredClone(q[l]); break; } // a value from elsewhere
      case 3: p[k] = null; break;
      case 4: p[k] = rand() % 2 ? 'x' : { a: 1 }; break;                      // wrong type
      case 5: {                                                                 // deep nesting
        let v = p[k];
        const depth = rand() % 4 === 0 ? 300 + (rand() % 2000) : rand() % 40;
        for (let i = 0; i < depth; ++i) v = [v];
        p[k] = v;
        break;
      }
      case 6: if (Array.isArray(p)) p.splice(k, 1); else delete p[k]; break;  // a required member gone
      case 7: if (typeof p[k] === 'number') p[k] = p[k] + (rand() % 2 ? 1 : -1); break;
      default: if (typeof p[k] === 'string') p[k] = p[k] + '\u00e9\u0000' + 'x'.repeat(rand() % 300); break;
    }
  }
  if (doc && Array.isArray(doc.nodes) && doc.nodes.length && rand() % 3 === 0) {
    const n = pick(doc.nodes);  // a node adopts another: cycles and two parents
    if (n && typeof n === 'object') (n.children ??= []).push?.(rand() % doc.nodes.length);
  }
  if (doc && Array.isArray(doc.accessors) && doc.accessors.length && rand() % 4 === 0) {
    const a = pick(doc.accessors);
    if (a && typeof a === 'object') {
      if (rand() % 2) delete a.bufferView;
      a.count = pick(nasty);
    }
  }
  return doc;
}

function makeMutant(i) {
  const s = pick(seeds);
  const ext = path.extname(s).slice(1);
  const base = path.join(work, 'm', `${i}`);
  const buf = fs.readFileSync(s);
  let text, bin = null;
  if (ext === 'glb') ({ json: text, bin } = splitGlb(buf));
  else text = buf.toString('utf8');
  let out;
  if (rand() % 10 === 0) {  // byte-level damage too: truncation
    out = buf.subarray(0, rand() % Math.max(1, buf.length));
  } else {
    const doc = mutate(JSON.parse(text));
    const t = JSON.stringify(doc);
    out = ext === 'glb' ? joinGlb(t, bin) : Buffer.from(t, 'utf8');
  }
  const file = `${base}.${ext}`;
  fs.writeFileSync(file, out);
  if (ext === 'gltf') {  // the .bin the seed's uri names, beside it
    const doc = JSON.parse(buf.toString('utf8'));
    for (const b of doc.buffers ?? [])
      if (typeof b.uri === 'string' && !b.uri.startsWith('data:')) {
        const from = path.join(path.dirname(s), b.uri);
        if (fs.existsSync(from)) fs.copyFileSync(from, path.join(work, 'm', b.uri));
      }
  }
  return { file, seed: s };
}

// ---- runs and checks
const packTargets = [
  ['--format', 'morpheme-mrn', '.mrn'],
  ['--format', 'bfres', '--template', path.join(examplesAbs, 'bfres/seed_linear.bfres'), '.bfres'],
  ['--format', 'telltale-anm', '--skeleton', path.join(examplesAbs, 'telltale/sk99_demo.skl'), '.anm'],
  ['--format', 'telltale-skl', '.skl'],
];
function commandsFor(i, file) {
  const out = path.join(work, 'out', `${i}`);
  const pt = pick(packTargets);
  return [
    { name: 'info', argv: ['info', file], output: null },
    { name: 'convert', argv: ['convert', file, '-o', `${out}.glb`], output: `${out}.glb` },
    { name: 'pack', argv: ['pack', file, ...pt.slice(0, -1), '-o', `${out}${pt.at(-1)}`], output: `${out}${pt.at(-1)}` },
  ];
}
function run(argv) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(rigripAbs, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.on('data', () => {});
    child.stderr.on('data', (d) => { if (stderr.length < 1 << 16) stderr += d; });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutSec * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, timedOut, ms: Date.now() - t0, pid: child.pid });
    });
  });
}
function judge(c, r) {
  if (r.timedOut) return `hang: over ${timeoutSec} s`;
  if (r.signal) return `killed by ${r.signal}`;
  if (![0, 1, 2].includes(r.code)) return `exit ${r.code}`;
  if (/AddressSanitizer|runtime error:|LeakSanitizer|terminate called|Segmentation/.test(r.stderr)) return 'sanitizer/crash text';
  if (/json\.exception|_M_range_check|basic_string|std::/.test(r.stderr)) return 'library text in a message';
  for (const line of r.stderr.split('\n'))
    if (line.startsWith('error:') && !/\bE_[A-Z_]+\b/.test(line) && !/^error: (family|format|--|no input|the output|option)/i.test(line))
      return `error line without a code: ${line}`;
  if (r.code !== 0 && c.output && fs.existsSync(c.output)) return 'output file left after a failure';
  // (another worker's run may have one in flight: only this run's own pid counts here)
  const left = fs.readdirSync(path.join(work, 'out')).filter((f) => f.startsWith(`.rr-${r.pid}-`));
  if (left.length) return `temporaries left: ${left.join(' ')}`;
  return null;
}

const tally = { mutants: 0, runs: 0, findings: 0, hangs: 0, crashes: 0, partial: 0, multiline: 0, slowest_ms: 0 };
const per = { info: [0, 0], convert: [0, 0], pack: [0, 0] };  // [ok, clean error]
const t0 = Date.now();
let next = 0;
async function worker() {
  for (;;) {
    const i = next++;
    if (i >= total) return;
    const { file, seed: from } = makeMutant(i);
    tally.mutants++;
    for (const c of commandsFor(i, file)) {
      const r = await run(c.argv);
      tally.runs++;
      tally.slowest_ms = Math.max(tally.slowest_ms, r.ms);
      const bad = judge(c, r);
      if (bad) {
        tally.findings++;
        if (bad.startsWith('hang')) tally.hangs++;
        else if (bad.startsWith('killed') || bad.startsWith('sanitizer')) tally.crashes++;
        else if (bad.startsWith('output') || bad.startsWith('temporaries')) tally.partial++;
        else tally.multiline++;
        const keep = path.join(work, 'findings', path.basename(file));
        fs.copyFileSync(file, keep);
        console.log(`FINDING ${c.name} ${keep} (from ${path.basename(from)}): ${bad}\n  reproduce: ${rigrip} ${c.argv.join(' ')}\n  ${r.stderr.split('\n').slice(0, 3).join('\n  ')}`);
      } else {
        per[c.name][r.code === 0 ? 0 : 1]++;
      }
      if (c.output) fs.rmSync(c.output, { force: true });
      if (c.output && c.output.endsWith('.glb')) fs.rmSync(c.output.replace(/\.glb$/, '.bin'), { force: true });
    }
    fs.rmSync(file, { force: true });
  }
}
await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
// Every run has ended: nothing of ours may be left at all.
const leftover = fs.readdirSync(path.join(work, 'out')).filter((f) => /^\.rr-.*\.tmp$|rigrip-tmp/.test(f));
if (leftover.length) {
  tally.findings++;
  tally.partial++;
  console.log(`FINDING temporaries left after the campaign: ${leftover.join(' ')}`);
}
const secs = ((Date.now() - t0) / 1000).toFixed(1);
console.log(
  `json_campaign: ${tally.mutants} mutants of ${seeds.length} seeds, ${tally.runs} runs in ${secs} s ` +
    `(info ${per.info[0]} ok/${per.info[1]} clean errors, convert ${per.convert[0]}/${per.convert[1]}, ` +
    `pack ${per.pack[0]}/${per.pack[1]}); findings ${tally.findings}: crashes ${tally.crashes}, ` +
    `hangs ${tally.hangs}, partial/temporary files ${tally.partial}, bad messages ${tally.multiline}; ` +
    `slowest run ${tally.slowest_ms} ms`,
);
process.exit(tally.findings ? 1 : 0);
