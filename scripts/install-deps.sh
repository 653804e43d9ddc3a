#!/usr/bin/env bash
# Installs everything rigrip needs: Debian packages (apt-get) and the npm tools
# (gltf-validator, three.js) pinned by package-lock.json. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkg-config ccache
  libtinygltf-dev nlohmann-json3-dev libcli11-dev libfmt-dev libstb-dev libglm-dev
  libgtest-dev libgmock-dev libbenchmark-dev assimp-utils
  libsquish-dev              # BC1-BC5 texture blocks (Telltale .d3dtx, BFRES FTEX)
  graphviz                   # `rigrip graph -o x.svg` (morpheme networks) through dot
  clang libclang-rt-14-dev   # libFuzzer + sanitizer runtimes for fuzz targets
  nodejs npm
  blender python3-numpy      # the Blender import check (scripts/blender_check.sh)
  libcpp-httplib-dev         # `rigrip view` serves its page on 127.0.0.1
  libzstd-dev                # .zs streams (Tears of the Kingdom and later Switch games)
  chromium                   # the viewer's browser test (tools/viewer_check.mjs)
  libgif-dev                 # `rigrip preview -o x.gif` (giflib: GIF writer and colour quantiser)
  libastcenc-dev             # ASTC texture blocks (Switch BNTX; Arm's astcenc)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from outside Debian (they are assumed present); don't fight them.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
want=()
for p in "${missing[@]}"; do [ -n "$p" ] && want+=("$p"); done
if [ ${#want[@]} -gt 0 ]; then
  echo "== installing Debian packages: ${want[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${want[@]}"
else
  echo "== Debian packages: all present"
fi

if [ ! -d node_modules/gltf-validator ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== npm ci (gltf-validator, three)"
  npm ci --no-audit --no-fund --loglevel=error
else
  echo "== npm packages: present"
fi
