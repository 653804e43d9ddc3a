#!/usr/bin/env node
// Headless look at a .glb, as a person would see it in a three.js viewer: loads it with
// three.js's GLTFLoader, poses every skin at the given time with an AnimationMixer, and
// software-rasterises the skinned triangles (flat shading, vertex colours) to a PNG.
// Usage: node tools/snapshot.mjs in.glb out.png [--time T] [--clip N] [--view front|side|top] [--size 512]
import fs from 'node:fs';
import zlib from 'node:zlib';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : d; };
const [input, output] = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const time = parseFloat(opt('--time', '0'));
const clipIndex = parseInt(opt('--clip', '0'), 10);
const view = opt('--view', 'front');
const size = parseInt(opt('--size', '512'), 10);

// Strip images (no DOM image decoding in Node); geometry and skinning are what we check.
function stripImages(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const jsonLen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(buf.subarray(20, 20 + jsonLen)));
  delete json.images; delete json.textures; delete json.samplers;
  for (const m of json.materials ?? []) {
    if (m.pbrMetallicRoughness) delete m.pbrMetallicRoughness.baseColorTexture;
    delete m.normalTexture; delete m.emissiveTexture; delete m.occlusionTexture;
  }
  let text = new TextEncoder().encode(JSON.stringify(json));
  const pad = (4 - (text.length % 4)) % 4;
  const jsonChunk = new Uint8Array(text.length + pad).fill(0x20); jsonChunk.set(text);
  const rest = buf.subarray(20 + jsonLen);
  const out = new Uint8Array(12 + 8 + jsonChunk.length + rest.length);
  const o = new DataView(out.buffer);
  o.setUint32(0, 0x46546c67, true); o.setUint32(4, 2, true); o.setUint32(8, out.length, true);
  o.setUint32(12, jsonChunk.length, true); o.setUint32(16, 0x4e4f534a, true);
  out.set(jsonChunk, 20); out.set(rest, 20 + jsonChunk.length);
  return out.buffer;
}

function png(w, h, rgb) {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) { raw[y * (w * 3 + 1)] = 0; rgb.copy(raw, y * (w * 3 + 1) + 1, y * w * 3, (y + 1) * w * 3); }
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (b) => { let c = 0xffffffff; for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const td = Buffer.concat([Buffer.from(type), data]); const c = Buffer.alloc(4); c.writeUInt32BE(crc(td)); return Buffer.concat([len, td, c]); };
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const data = stripImages(new Uint8Array(fs.readFileSync(input)));
const gltf = await new Promise((res, rej) => new GLTFLoader().parse(data, '', res, rej));
const root = gltf.scene;
if (gltf.animations.length) {
  const mixer = new THREE.AnimationMixer(root);
  const clip = gltf.animations[Math.min(clipIndex, gltf.animations.length - 1)];
  mixer.clipAction(clip).play();
  mixer.setTime(time);
  console.log(`clip ${clip.name} (${clip.duration.toFixed(3)} s) at t=${time}`);
}
root.updateMatrixWorld(true);
const tris = [];
const v = new THREE.Vector3();
root.traverse((o) => {
  if (!o.isMesh) return;
  const g = o.geometry, pos = g.attributes.position, col = g.attributes.color;
  const idx = g.index ? g.index.array : [...Array(pos.count).keys()];
  const world = [];
  for (let i = 0; i < pos.count; i++) {
    o.getVertexPosition(i, v);          // skinned for SkinnedMesh
    if (!o.isSkinnedMesh) v.applyMatrix4(o.matrixWorld);
    world.push(v.clone());
  }
  const base = o.material?.color ?? new THREE.Color(0.8, 0.8, 0.8);
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const c = col ? new THREE.Color(col.getX(idx[t]), col.getY(idx[t]), col.getZ(idx[t])) : base.clone();
    tris.push({ p: [world[idx[t]], world[idx[t + 1]], world[idx[t + 2]]], c });
  }
});
if (!tris.length) { console.error('no triangles'); process.exit(1); }
const box = new THREE.Box3();
for (const t of tris) for (const p of t.p) box.expandByPoint(p);
const project = (p) => view === 'side' ? [p.z, p.y, -p.x] : view === 'top' ? [p.x, -p.z, p.y] : [p.x, p.y, p.z];
const lo = project(box.min), hi = project(box.max);
const mn = [Math.min(lo[0], hi[0]), Math.min(lo[1], hi[1])], mx = [Math.max(lo[0], hi[0]), Math.max(lo[1], hi[1])];
const span = Math.max(mx[0] - mn[0], mx[1] - mn[1]) || 1;
const s = (size * 0.9) / span, ox = size / 2 - ((mn[0] + mx[0]) / 2) * s, oy = size / 2 + ((mn[1] + mx[1]) / 2) * s;
const rgb = Buffer.alloc(size * size * 3, 40), zb = new Float32Array(size * size).fill(-Infinity);
const light = new THREE.Vector3(0.4, 0.7, 0.6).normalize();
for (const t of tris) {
  const q = t.p.map(project);
  const n = new THREE.Vector3().crossVectors(new THREE.Vector3().subVectors(t.p[1], t.p[0]), new THREE.Vector3().subVectors(t.p[2], t.p[0])).normalize();
  const shade = 0.35 + 0.65 * Math.abs(n.dot(light));
  const sx = q.map((p) => p[0] * s + ox), sy = q.map((p) => -p[1] * s + oy), sz = q.map((p) => p[2]);
  const x0 = Math.max(0, Math.floor(Math.min(...sx))), x1 = Math.min(size - 1, Math.ceil(Math.max(...sx)));
  const y0 = Math.max(0, Math.floor(Math.min(...sy))), y1 = Math.min(size - 1, Math.ceil(Math.max(...sy)));
  const area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
  if (Math.abs(area) < 1e-9) continue;
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) {
    const px = x + 0.5, py = y + 0.5;
    const w0 = ((sx[1] - px) * (sy[2] - py) - (sx[2] - px) * (sy[1] - py)) / area;
    const w1 = ((sx[2] - px) * (sy[0] - py) - (sx[0] - px) * (sy[2] - py)) / area;
    const w2 = 1 - w0 - w1;
    if (w0 < 0 || w1 < 0 || w2 < 0) continue;
    const z = w0 * sz[0] + w1 * sz[1] + w2 * sz[2];
    if (z <= zb[y * size + x]) continue;
    zb[y * size + x] = z;
    const i = (y * size + x) * 3;
    rgb[i] = Math.min(255, t.c.r * shade * 255); rgb[i + 1] = Math.min(255, t.c.g * shade * 255); rgb[i + 2] = Math.min(255, t.c.b * shade * 255);
  }
}
fs.writeFileSync(output, png(size, size, rgb));
const ext = box.getSize(new THREE.Vector3());
console.log(`${tris.length} triangles; bounds x ${box.min.x.toFixed(3)}..${box.max.x.toFixed(3)} y ${box.min.y.toFixed(3)}..${box.max.y.toFixed(3)} z ${box.min.z.toFixed(3)}..${box.max.z.toFixed(3)} (size ${ext.x.toFixed(3)} ${ext.y.toFixed(3)} ${ext.z.toFixed(3)})`);
