#!/usr/bin/env bash
# `rigrip view`'s web server is a module loaded on demand: the executable itself must not load
# cpp-httplib or OpenSSL (start-up cost of every command), and without the module `view` must
# say so clearly while `view --out` still works.
#   view_module.sh RIGRIP EXAMPLE OUT_DIR
set -euo pipefail
rigrip=$1 example=$2 out=$3
if ldd "$rigrip" | grep -E "libssl|libcrypto|httplib"; then
  echo "FAIL: rigrip links the server's libraries directly"
  exit 1
fi
rm -rf "$out" && mkdir -p "$out/lonely"
cp "$rigrip" "$out/lonely/rigrip"
viewer=$(dirname "$rigrip")/viewer
rc=0
msg=$(RIGRIP_VIEWER_DIR=$viewer "$out/lonely/rigrip" view "$example" --port 0 2>&1) || rc=$?
echo "$msg"
if [ ! -f "$viewer/three/build/three.module.js" ]; then
  echo "SKIPPED the missing-module check: $viewer has no three.js (npm ci)"
  exit 0
fi
[ "$rc" = 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
grep -q "E_IO: cannot load the viewer's server module librigrip_view_server.so" <<<"$msg" ||
  { echo "FAIL: no clear message"; exit 1; }
RIGRIP_VIEWER_DIR=$viewer "$out/lonely/rigrip" view "$example" --out "$out/site" >/dev/null
[ -f "$out/site/models/0.glb" ] || { echo "FAIL: view --out wrote no model"; exit 1; }
echo "OK"
