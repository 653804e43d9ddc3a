#!/usr/bin/env bash
# CLI regression tests of issue 14 (faults mid-batch, outputs that never leave -o,
# temporaries, special outputs). Usage: hostile_cli.sh CASE RIGRIP EXAMPLE_JSON WORKDIR
set -u
case_name=$1 rigrip=$2 wave=$3 work=$4/$1
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# Every error line is one line with a stable code; no signal, no sanitizer report.
check_output() {
  grep -q "AddressSanitizer\|runtime error\|Segmentation\|terminate called" "$1" && fail "crash output: $(cat "$1")"
  if grep -q "^error:" "$1"; then
    grep "^error:" "$1" | grep -qv "E_[A-Z_]*" && fail "error line without a code: $(cat "$1")"
  fi
  grep -q "json.exception\|vector::_M_range_check" "$1" && fail "library text in a message: $(cat "$1")"
  return 0
}
no_temporaries() {
  local left
  left=$(find "$@" -name '.rr-*.tmp' -o -name '*.rigrip-tmp-*' 2>/dev/null)
  [ -z "$left" ] || fail "temporaries left behind: $left"
}

case $case_name in
symlink_tree)
  # convert DIR where DIR holds symlinks to files elsewhere: outputs inside -o, named after the links
  mkdir -p elsewhere/deep in/sub
  cp "$wave" elsewhere/deep/real.json
  ln -s ../../elsewhere/deep/real.json in/sub/link.json
  ln -s "$work/elsewhere/deep/real.json" in/abs.json
  "$rigrip" convert in -o out >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 0 ] || fail "exit $rc: $(cat log)"
  [ -f out/sub/link.glb ] || fail "out/sub/link.glb missing: $(find . -name '*.glb')"
  [ -f out/abs.glb ] || fail "out/abs.glb missing"
  [ -z "$(find . -name '*.glb' -not -path './out/*')" ] || fail "written outside -o: $(find . -name '*.glb' -not -path './out/*')"
  ;;
dotdot_input)
  mkdir -p a/b in/sub
  cp "$wave" in/sub/w.json
  "$rigrip" convert a/b/../../in -o out >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 0 ] || fail "exit $rc: $(cat log)"
  [ -f out/sub/w.glb ] || fail "out/sub/w.glb missing: $(find . -name '*.glb')"
  [ -z "$(find . -name '*.glb' -not -path './out/*')" ] || fail "written outside -o"
  "$rigrip" convert in/sub/../sub/w.json -o out2 >log 2>&1 || fail "single input with ..: $(cat log)"
  [ -f out2/w.glb ] || fail "out2/w.glb missing"
  ;;
batch_deep_json)
  # one input nested 100,000 levels among 4 good ones: the others convert, summary and report name it
  mkdir -p in
  for n in 1 2 3 4; do cp "$wave" in/good$n.json; done
  { printf '{"skeletons":[{"bones":[],"extras":'; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}]}'; } > in/deep.json
  { printf '{"asset":{"version":"2.0"},"extras":'; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}'; } > in/deep.gltf
  "$rigrip" convert in -o out -j 2 --report report.json >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] || fail "exit $rc, expected 1: $(cat log)"
  # (a glTF in a folder is skipped as the output of an earlier run; read alone it fails cleanly)
  grep -q "converted 4, failed 1, skipped 1" log || fail "summary: $(cat log)"
  grep -q "failed: .*deep.json" log || fail "summary does not name deep.json: $(cat log)"
  grep -q "E_LIMIT" log || fail "no E_LIMIT line: $(cat log)"
  grep -q '"deep.json\|deep.json"' report.json || fail "report does not name deep.json"
  grep -q '"failed": 1' report.json || fail "report summary: $(head -c 400 report.json)"
  "$rigrip" info in/deep.gltf >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] && grep -q "E_LIMIT" log || fail "deep glTF: exit $rc: $(cat log)"
  ;;
report_unwritable)
  echo x > afile
  "$rigrip" convert "$wave" -o out --report afile/report.json >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] || fail "exit $rc, expected 1 for an unwritable --report: $(cat log)"
  grep -q "E_IO" log || fail "no E_IO line: $(cat log)"
  ;;
own_gltf)
  # a .gltf rigrip wrote is read back as glTF by info and convert
  "$rigrip" convert "$wave" -o w.gltf >log 2>&1 || fail "convert: $(cat log)"
  "$rigrip" info w.gltf >log 2>&1 || fail "info w.gltf: $(cat log)"
  grep -q "gltf" log || fail "not detected as glTF: $(cat log)"
  "$rigrip" convert w.gltf -o back.json >log 2>&1 || fail "convert w.gltf: $(cat log)"
  ;;
long_name)
  # an input name of 250 bytes (legal): the temporary must not make the output name too long
  name=$(printf 'n%.0s' $(seq 1 245)).json
  cp "$wave" "$name"
  "$rigrip" convert "$name" -o out >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 0 ] || fail "exit $rc: $(cat log)"
  [ "$(find out -name '*.glb' | wc -l)" -eq 1 ] || fail "no output"
  no_temporaries out .
  ;;
special_outputs)
  # -o naming a device, a symlink, a FIFO or "-": written through, never replaced
  # (never the machine's own /dev/null or /dev/stdout: a regression would replace them)
  if mknod devnull c 1 3 2>/dev/null; then   # a device node of our own (needs root)
    "$rigrip" dump "$wave" -o devnull >log 2>&1 || fail "dump -o device: $(cat log)"
    [ -c devnull ] || fail "the device node was replaced by a regular file"
  else
    echo "(not root: device node case skipped)"
  fi
  echo old > target.json
  ln -s target.json link.json
  "$rigrip" dump "$wave" -o link.json >log 2>&1 || fail "dump -o link: $(cat log)"
  [ -L link.json ] || fail "the symlink was replaced"
  grep -q skeletons target.json || fail "the symlink's target did not get the bytes"
  mkfifo pipe.json
  (cat pipe.json > fromfifo.json) &
  reader=$!
  "$rigrip" dump "$wave" -o pipe.json >log 2>&1 || fail "dump -o fifo: $(cat log)"
  wait $reader
  [ -p pipe.json ] || fail "the FIFO was replaced"
  grep -q skeletons fromfifo.json || fail "nothing came through the FIFO"
  "$rigrip" dump "$wave" -o - > stdout.json 2>log || fail "dump -o -: $(cat log)"
  grep -q skeletons stdout.json || fail "-o - did not write standard output"
  [ ! -e ./- ] || fail "a file named '-' was written"
  ln -s /dev/stdout out-link
  "$rigrip" dump "$wave" -o out-link > stdout2.json 2>log || fail "dump -o link to /dev/stdout: $(cat log)"
  [ -L out-link ] || fail "the link to /dev/stdout was replaced"
  grep -q skeletons stdout2.json || fail "-o link to /dev/stdout did not write standard output"
  no_temporaries .
  ;;
signals)
  # SIGINT / SIGTERM mid-batch leave no temporaries; a stale one from a killed run is removed
  mkdir -p in out
  for n in $(seq 1 60); do cp "$wave" in/w$n.json; done
  : > "out/.rr-999999-AbCdEf.tmp"   # pid 999999: not a running process
  for sig in INT TERM; do
    "$rigrip" convert in -o out -j 2 >/dev/null 2>&1 &
    pid=$!
    sleep 0.3
    kill -$sig $pid 2>/dev/null
    wait $pid
    no_temporaries out
  done
  "$rigrip" convert in -o out -j 2 >log 2>&1 || fail "rerun: $(cat log)"
  no_temporaries out
  ;;
huge_unknown)
  # a 2 GB file no format claims: judged by its first bytes, not read whole
  truncate -s 2000000000 huge.bin
  start=$(date +%s%N)
  "$rigrip" info huge.bin >log 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  rm -f huge.bin
  check_output log
  [ $rc -eq 1 ] || fail "exit $rc: $(cat log)"
  grep -q "E_UNKNOWN_FORMAT" log || fail "$(cat log)"
  [ $ms -lt 3000 ] || fail "took $ms ms"
  ;;
full_disk)
  # a write that runs out of space (RLIMIT_FSIZE stands in for a full disk: the write fails
  # with EFBIG, as on ENOSPC): one E_IO line, exit 1, no output file, no temporary
  "$rigrip" convert "$wave" -o probe.glb >/dev/null 2>&1 || fail "cannot convert the example"
  size=$(stat -c %s probe.glb)
  [ "$size" -gt 4096 ] || fail "example output too small ($size bytes) to overflow a 2 KiB limit"
  mkdir -p out
  (trap '' XFSZ; ulimit -f 2; exec "$rigrip" convert "$wave" -o out/w.glb) >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] || fail "exit $rc, expected 1: $(cat log)"
  grep -q "^error: .*E_IO" log || fail "no E_IO error line: $(cat log)"
  [ ! -e out/w.glb ] || fail "a partial output was left ($(stat -c %s out/w.glb) of $size bytes)"
  (trap '' XFSZ; ulimit -f 2; exec "$rigrip" dump "$wave" -o out/w.json) >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] && [ ! -e out/w.json ] || fail "dump: exit $rc, output $(ls out): $(cat log)"
  no_temporaries out
  ;;
read_only_dir)
  # an output folder nobody may write: a clear error, nothing left. Root writes anywhere, so
  # as root the run drops to nobody (setpriv); without setpriv the case says why it is skipped.
  mkdir -p ro
  cp "$wave" w.json
  chmod 555 ro
  run=("$rigrip")
  if [ "$(id -u)" -eq 0 ]; then
    if ! command -v setpriv >/dev/null; then echo "(root without setpriv: read-only folder case skipped)"; echo "ok [$case_name]"; exit 0; fi
    chmod 755 . ; chmod 644 w.json
    run=(setpriv --reuid=65534 --regid=65534 --clear-groups "$rigrip")
    if ! "${run[@]}" --version >/dev/null 2>&1; then
      echo "(nobody cannot run $rigrip here: read-only folder case skipped)"; echo "ok [$case_name]"; exit 0
    fi
  fi
  "${run[@]}" convert w.json -o ro/w.glb >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] || fail "exit $rc, expected 1: $(cat log)"
  grep -q "^error: .*E_IO" log || fail "no E_IO error line: $(cat log)"
  "${run[@]}" convert w.json -o ro/sub >log 2>&1; rc=$?
  check_output log
  [ $rc -eq 1 ] || fail "batch into a read-only folder: exit $rc: $(cat log)"
  grep -q "failed 1" log || fail "summary: $(cat log)"
  grep -q "cannot create output folder ro/sub" log || fail "the error does not name the folder: $(cat log)"
  [ -z "$(ls -A ro)" ] || fail "left in the read-only folder: $(ls -A ro)"
  chmod 755 ro
  ;;
two_writers)
  # two processes converting the same inputs into the same folder: each output is whole (one
  # writer's complete file), no temporaries, both runs end cleanly
  mkdir -p in
  for n in $(seq 1 24); do cp "$wave" in/w$n.json; done
  "$rigrip" convert in/w1.json -o ref.glb >/dev/null 2>&1 || fail "reference convert"
  "$rigrip" convert in -o out -j 2 >log1 2>&1 & a=$!
  "$rigrip" convert in -o out -j 2 >log2 2>&1 & b=$!
  wait $a; ra=$?
  wait $b; rb=$?
  check_output log1; check_output log2
  [ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "exits $ra/$rb: $(cat log1 log2)"
  [ "$(find out -name '*.glb' | wc -l)" -eq 24 ] || fail "$(find out -name '*.glb' | wc -l) outputs, expected 24"
  for f in out/*.glb; do cmp -s "$f" ref.glb || fail "$f differs from a whole conversion"; done
  no_temporaries out
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
