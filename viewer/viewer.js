// rigrip viewer: shows the glb files listed in models.json (written by `rigrip view`) with
// their `rigrip info` summary. window.rigrip exposes the state to tests (tools/viewer_check.mjs).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const state = { ready: false, error: null, file: null, bones: 0, clips: [], meshes: 0, textures: 0 };
window.rigrip = state;

const stage = document.getElementById('stage');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
stage.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x3a3d44);
scene.add(new THREE.HemisphereLight(0xffffff, 0x555566, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(3, 6, 4);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);
const timer = new THREE.Clock();

let grid = null, model = null, helper = null, mixer = null, action = null, playing = true, speed = 1;
let fps = 30;
// Root motion carries a walking character away: the camera follows the skeleton's root over
// the ground (x/z), as a game's camera would.
let rootBone = null;
const lastRoot = new THREE.Vector3();
function follow() {
  if (!rootBone) return;
  const p = new THREE.Vector3().setFromMatrixPosition(rootBone.matrixWorld);
  const d = p.clone().sub(lastRoot);
  d.y = 0;
  camera.position.add(d);
  controls.target.add(d);
  lastRoot.copy(p);
}

function resize() {
  const w = stage.clientWidth || 1, h = stage.clientHeight || 1;
  renderer.setSize(w, h);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);

const el = (id) => document.getElementById(id);
function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

// The side panel: what `rigrip info` says of the source.
function showInfo(entry) {
  const i = entry.info || {};
  const bones = (i.skeletons || []).reduce((n, s) => n + s.bones, 0);
  const rows = [
    ['file', entry.name], ['format', i.format || '?'],
    ['bones', bones + ' in ' + (i.skeletons || []).length + ' skeleton(s)'],
    ['clips', (i.animations || []).length],
    ['meshes', i.meshes ? i.meshes.count + ' (' + i.meshes.vertices + ' vertices)' : 0],
    ['textures', (i.textures || []).length], ['materials', i.materials || 0],
  ];
  el('info').innerHTML = '<table>' + rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('') + '</table>';
  const w = i.warnings || [];
  el('warnings').innerHTML = w.length ? '<h2>Warnings</h2>' + w.map((x) => `<div>${esc(x.code || '')}: ${esc(x.message || x)}</div>`).join('') : '';
}

// Orbit camera and a ground grid of 1 m squares, framed on the model's bounds.
function frame(obj) {
  const box = new THREE.Box3().setFromObject(obj, true);
  // Joints too: a file may hold a skeleton with only part of its meshes (FF7's waist alone).
  obj.traverse((o) => { if (o.isBone) box.expandByPoint(new THREE.Vector3().setFromMatrixPosition(o.matrixWorld)); });
  if (box.isEmpty()) box.set(new THREE.Vector3(-0.5, 0, -0.5), new THREE.Vector3(0.5, 1, 0.5));
  const size = box.getSize(new THREE.Vector3()), centre = box.getCenter(new THREE.Vector3());
  const r = Math.max(size.length() / 2, 0.01);
  camera.near = r / 100;
  camera.far = r * 100;
  camera.position.copy(centre).add(new THREE.Vector3(r * 1.6, r * 1.0, r * 2.2));
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
  if (grid) scene.remove(grid);
  const cells = Math.min(200, Math.max(20, 2 * Math.ceil(Math.max(size.x, size.z) / 2 + 1)));
  grid = new THREE.GridHelper(cells, cells, 0x888888, 0x555555);  // 1 unit = 1 m
  grid.position.y = box.min.y;
  scene.add(grid);
}

function selectClip(idx) {
  if (!mixer) return;
  mixer.stopAllAction();
  action = null;
  const clip = state.clips[idx];
  if (!clip) return;
  fps = clip.fps || 30;
  action = mixer.clipAction(clip.clip);
  action.setLoop(el('loop').checked ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
  action.clampWhenFinished = true;
  action.play();
  state.clip = idx;
}

function setTime(t) {
  if (!action) return;
  action.paused = false;
  action.time = Math.max(0, Math.min(t, action.getClip().duration));
  mixer.update(0);
  action.paused = !playing;
  model.updateMatrixWorld(true);
  follow();
}

// World positions of every bone, for tests: the pose at two times must differ.
function bonePose() {
  const out = [];
  if (!model) return out;
  model.updateMatrixWorld(true);
  model.traverse((o) => {
    if (o.isBone) {
      const p = new THREE.Vector3().setFromMatrixPosition(o.matrixWorld);
      out.push([p.x, p.y, p.z]);
    }
  });
  return out;
}

async function load(entry) {
  state.ready = false;
  showInfo(entry);
  if (model) scene.remove(model);
  if (helper) scene.remove(helper);
  const gltf = await new GLTFLoader().loadAsync(entry.url);
  model = gltf.scene;
  scene.add(model);
  const boneSet = new Set();
  let meshes = 0;
  model.traverse((o) => {
    if (o.isBone) boneSet.add(o);
    if (o.isMesh) meshes++;
    // Skinned bounds are computed once, in whatever pose: a clip can carry the body out of
    // them (root motion), and three.js would then cull a visible character.
    o.frustumCulled = false;
  });
  helper = new THREE.SkeletonHelper(model);
  helper.material.depthTest = false;
  helper.renderOrder = 1;
  helper.frustumCulled = false;
  helper.visible = el('skeleton').checked;
  scene.add(helper);
  mixer = new THREE.AnimationMixer(model);
  const defs = (gltf.parser.json.animations || []);
  state.clips = gltf.animations.map((clip, i) => {
    const ex = (defs[i] && defs[i].extras) || {};
    return { name: ex.name || clip.name, clip, fps: ex.source_fps || 30, duration: clip.duration };
  });
  state.bones = boneSet.size;
  state.meshes = (gltf.parser.json.meshes || []).length;
  state.meshObjects = meshes;
  state.textures = (gltf.parser.json.textures || []).length;
  state.file = entry.name;
  const sel = el('clip');
  sel.innerHTML = state.clips.map((c, i) => `<option value="${i}">${esc(c.name)} (${c.duration.toFixed(2)} s)</option>`).join('');
  if (state.clips.length) {
    sel.value = '0';
    selectClip(0);
  }
  rootBone = null;
  model.traverse((o) => { if (o.isBone && !rootBone) rootBone = o; });
  if (mixer) mixer.update(0);
  model.updateMatrixWorld(true);
  frame(model);
  if (rootBone) lastRoot.setFromMatrixPosition(rootBone.matrixWorld);
  state.ready = true;
}

function tick() {
  requestAnimationFrame(tick);
  const dt = timer.getDelta();
  if (mixer && action && playing) {
    mixer.update(dt * speed);
    model.updateMatrixWorld(true);
    follow();
  }
  if (action) {
    const d = action.getClip().duration || 1;
    el('scrub').value = String(Math.round((action.time / d) * 1000));
    el('frame').textContent = `frame ${Math.round(action.time * fps)} / ${Math.round(d * fps)} at ${fps} fps (${action.time.toFixed(2)} s)`;
  }
  controls.update();
  renderer.render(scene, camera);
}

el('clip').addEventListener('change', (e) => selectClip(Number(e.target.value)));
el('play').addEventListener('click', () => {
  playing = !playing;
  el('play').textContent = playing ? 'Pause' : 'Play';
  if (action) action.paused = !playing;
});
el('speed').addEventListener('change', (e) => { speed = Number(e.target.value); });
el('loop').addEventListener('change', () => { if (state.clip !== undefined) selectClip(state.clip); });
el('scrub').addEventListener('input', (e) => {
  if (!action) return;
  playing = false;
  el('play').textContent = 'Play';
  setTime((Number(e.target.value) / 1000) * action.getClip().duration);
});
el('skeleton').addEventListener('change', (e) => { if (helper) helper.visible = e.target.checked; });
el('mesh').addEventListener('change', (e) => {
  if (model) model.traverse((o) => { if (o.isMesh) o.visible = e.target.checked; });
});

state.setTime = (t) => { playing = false; setTime(t); return bonePose(); };
state.bonePose = bonePose;
state.showGrid = (on) => { if (grid) grid.visible = on; renderer.render(scene, camera); };
state.selectClip = selectClip;

async function main() {
  resize();
  tick();
  try {
    const list = await (await fetch('models.json')).json();
    const fileSel = el('file');
    fileSel.innerHTML = list.map((m, i) => `<option value="${i}">${esc(m.name)}</option>`).join('');
    fileSel.addEventListener('change', (e) => load(list[Number(e.target.value)]).catch(fail));
    state.files = list.length;
    if (list.length) await load(list[0]);
  } catch (e) {
    fail(e);
  }
}
function fail(e) {
  state.error = String(e && e.message ? e.message : e);
  el('warnings').innerHTML = `<div>error: ${esc(state.error)}</div>`;
  console.error(e);
}
main();
