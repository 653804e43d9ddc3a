// The viewer in a real browser: for each input, `rigrip view FILE --port 0` serves the page,
// headless Chromium (Debian's, driven by puppeteer-core) opens it, and we check that the page
// shows what `rigrip info --json` says (bones, clips, meshes), logs no console error, plays a
// clip (the bones' pose at two times differs) and draws a picture that is not blank.
// Usage: node tools/viewer_check.mjs RIGRIP OUTDIR FILE...   (screenshots go to OUTDIR)
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [rigrip, outDir, ...files] = process.argv.slice(2);
if (!rigrip || !outDir || files.length === 0) {
  console.error('usage: node tools/viewer_check.mjs RIGRIP OUTDIR FILE...');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const browserPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (!browserPath) {
  console.error('viewer check: chromium is not installed (scripts/install-deps.sh installs it)');
  process.exit(1);
}

function serve(file) {
  return new Promise((resolve, reject) => {
    const p = spawn(rigrip, ['view', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error('rigrip view did not print a URL in 60 s: ' + err)), 60000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: m[0] }); }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`rigrip view exited ${code}: ${err}`)); });
  });
}

// Distinct colours and how many pixels differ from the background, from a PNG screenshot,
// counted in the page (no image library needed here).
async function pictureStats(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const bg = [d[0], d[1], d[2]];
    const colours = new Set();
    let differ = 0;
    for (let i = 0; i < d.length; i += 4) {
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 24) differ++;
    }
    return { colours: colours.size, differing: differ / (d.length / 4) };
  }, Buffer.from(png).toString('base64'));
}

const browser = await puppeteer.launch({
  executablePath: browserPath,
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
});
let failed = 0;
const rows = [];
for (const file of files) {
  const errors = [];
  const row = { file };
  let server = null;
  try {
    const info = JSON.parse(execFileSync(rigrip, ['info', '--json', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[0];
    const wantBones = (info.skeletons || []).reduce((n, s) => n + s.bones, 0);
    const wantClips = (info.animations || []).filter((a) => a.tracks > 0).length;
    const wantMeshes = info.meshes ? info.meshes.count : 0;
    // A pose (one key per track, e.g. FF7 field aafe.a) is held for one frame: it does not move.
    const firstClip = (info.animations || []).filter((a) => a.tracks > 0)[0];
    const pose = firstClip && firstClip.keys <= firstClip.tracks;
    server = await serve(file);
    const page = await browser.newPage();
    await page.setViewport({ width: 800, height: 600 });
    page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
    page.on('pageerror', (e) => errors.push('page: ' + e.message));
    page.on('requestfailed', (r) => errors.push('request failed: ' + r.url()));
    // Generous timeouts: on a loaded 2-core machine software WebGL can take a minute to start.
    page.setDefaultTimeout(180000);
    page.setDefaultNavigationTimeout(180000);
    await page.goto(server.url, { waitUntil: 'load' });
    await page.waitForFunction('window.rigrip && (window.rigrip.ready || window.rigrip.error)', { timeout: 180000 });
    const st = await page.evaluate(() => ({ ...window.rigrip, clips: window.rigrip.clips.map((c) => ({ name: c.name, duration: c.duration })) }));
    if (st.error) errors.push('viewer: ' + st.error);
    Object.assign(row, { bones: [st.bones, wantBones], clips: [st.clips.length, wantClips], meshes: [st.meshes, wantMeshes] });
    // glTF adds a bone-display mesh to a skeleton-only file; meshes count at least the source's.
    if (st.bones !== wantBones) errors.push(`bones ${st.bones} != ${wantBones}`);
    if (st.clips.length !== wantClips) errors.push(`clips ${st.clips.length} != ${wantClips}`);
    if (st.meshes < wantMeshes) errors.push(`meshes ${st.meshes} < ${wantMeshes}`);
    if (st.clips.length) {
      const d = st.clips[0].duration;
      const a = await page.evaluate((t) => window.rigrip.setTime(t), 0);
      const b = await page.evaluate((t) => window.rigrip.setTime(t), d * 0.5);
      let moved = 0;
      for (let i = 0; i < Math.min(a.length, b.length); i++)
        moved = Math.max(moved, Math.hypot(a[i][0] - b[i][0], a[i][1] - b[i][1], a[i][2] - b[i][2]));
      row.pose_change_m = moved;
      // Every clip but a pose must move.
      if (pose) row.pose_clip = true;
      else if (moved === 0 && d > 0) errors.push('the pose at 0 s and mid-clip is the same: the clip does not play');
    }
    await new Promise((r) => setTimeout(r, 300));
    const shotPath = path.join(outDir, path.basename(file).replace(/[^A-Za-z0-9._-]/g, '_') + '.png');
    await page.screenshot({ path: shotPath });  // the whole page, for a person to look at
    // The 3D view alone, without the grid: the model's own pixels.
    await page.evaluate(() => window.rigrip.showGrid(false));
    const png = await (await page.$('#stage canvas')).screenshot();
    await page.evaluate(() => window.rigrip.showGrid(true));
    const pic = await pictureStats(page, png);
    row.screenshot = shotPath;
    row.colours = pic.colours;
    row.model_pixels = Number(pic.differing.toFixed(4));
    if (pic.colours < 32) errors.push(`screenshot has only ${pic.colours} colours`);
    if (pic.differing < 0.005) errors.push('the 3D view is almost all background: the model is not drawn or not framed');
    await page.close();
  } catch (e) {
    errors.push(String(e.message || e));
  } finally {
    if (server) server.proc.kill('SIGINT');
  }
  row.errors = errors;
  rows.push(row);
  if (errors.length) failed++;
  console.log(`${errors.length ? 'FAIL' : 'OK  '} ${file} bones ${JSON.stringify(row.bones)} clips ${JSON.stringify(row.clips)} ` +
    `meshes ${JSON.stringify(row.meshes)} colours ${row.colours} ${errors.join('; ')}`);
}
await browser.close();
fs.writeFileSync(path.join(outDir, 'viewer-report.json'), JSON.stringify(rows, null, 1) + '\n');
console.log(`viewer check: ${rows.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
