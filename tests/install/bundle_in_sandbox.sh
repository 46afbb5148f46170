#!/usr/bin/env bash
# tests/install/bundle_in_sandbox.sh BUILD_DIR SOURCE_DIR
# The bundle (tools/bundle.sh) runs with nothing else: a bubblewrap sandbox holding only the
# unpacked bundle, a static busybox as /bin/sh, /proc, /dev and an empty /tmp. Checks --version,
# a tune on the simulated device (trials recorded) and `devices` without any OpenCL driver (a
# clear message and exit 3, no crash).
set -euo pipefail
build="$(cd "$1" && pwd)"
source="$(cd "$2" && pwd)"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v bwrap >/dev/null || fail "bubblewrap is not installed (tools/install-deps.sh installs it)"
busybox=$(command -v busybox || true)
[[ -n "$busybox" ]] && file -L "$busybox" 2>/dev/null | grep -q "statically linked" || busybox=/bin/busybox
[[ -x "$busybox" ]] || fail "a static busybox is not installed (busybox-static)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$source/tools/bundle.sh" --build "$build" "$work/dist" >"$work/bundle.log" 2>&1 ||
  fail "tools/bundle.sh failed: $(tail -n 5 "$work/bundle.log")"
tarball=$(tail -n 1 "$work/bundle.log")
[[ -f "$tarball" ]] || fail "bundle.sh printed no tarball path: $(tail -n 5 "$work/bundle.log")"
size=$(stat -c %s "$tarball")
((size <= 64 * 1024 * 1024)) || fail "the bundle is $size bytes, over 64 MiB"
mkdir "$work/root" "$work/bin"
tar -C "$work/root" -xzf "$tarball"
bundle=$(ls -d "$work"/root/tensortune-*)
cp "$busybox" "$work/bin/busybox"
for applet in sh readlink cat; do ln -s busybox "$work/bin/$applet"; done

sandbox() {
  bwrap --unshare-all --die-with-parent --clearenv --setenv PATH /bin --setenv HOME /tmp \
    --ro-bind "$work/bin" /bin --ro-bind "$bundle" /opt/tensortune --proc /proc --dev /dev --tmpfs /tmp \
    --chdir /tmp "$@"
}
# Nothing of the host is visible: no /usr, no /lib, no /etc.
if sandbox /bin/sh -c 'test -e /usr || test -e /lib || test -e /etc'; then fail "the sandbox shows host folders"; fi

version=$(sandbox /opt/tensortune/bin/tensortune --version 2>&1) || fail "--version in the sandbox failed: $version"
[[ "$version" == "tensortune "* ]] || fail "--version printed '$version'"

sandbox /bin/sh -c '/opt/tensortune/bin/tensortune tune --op gemm --shape 64,64,64 --device fake --trials 8 \
  --db /tmp/h.db >/tmp/tune.txt && /opt/tensortune/bin/tensortune sql "SELECT count(*) AS n FROM trials" --db /tmp/h.db --csv' \
  >"$work/trials.txt" || fail "tune on the simulated device failed: $(cat "$work/trials.txt")"
grep -qx 8 "$work/trials.txt" || fail "expected 8 recorded trials, got: $(cat "$work/trials.txt")"

set +e
sandbox /opt/tensortune/bin/tensortune devices >"$work/devices.txt" 2>&1
rc=$?
set -e
[[ $rc -eq 3 ]] || fail "devices without a driver exited $rc (expected 3): $(cat "$work/devices.txt")"
grep -q "no OpenCL device found" "$work/devices.txt" || fail "devices said: $(cat "$work/devices.txt")"
echo "bundle ok: $version, $((size / 1024 / 1024)) MiB, 8 trials on the simulated device, devices exit 3"
