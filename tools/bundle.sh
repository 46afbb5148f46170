#!/usr/bin/env bash
# tools/bundle.sh [--build DIR] OUTDIR
#
# Writes one relocatable tarball of tensortune for any x86-64 Linux: the programs, the runtime
# libraries with their headers, CMake package and pkg-config files, the kernels, and every shared
# library the programs need, the dynamic loader and the C library included. Nothing is installed
# on the host: unpack it anywhere and run bin/tensortune. OpenCL drivers come from the host
# through the ICD loader (/etc/OpenCL/vendors, OCL_ICD_VENDORS); see docs/bundle.md.
#
# --build DIR  use (and update) this CMake build folder instead of build-bundle/
# The tarball's path is the last line printed.
set -euo pipefail
trap 'echo "bundle.sh: line $LINENO failed: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."

build=build-bundle
while (($#)); do
  case "$1" in
    --build) build="${2:?--build needs a folder}"; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bundle.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# == 1)) || { echo "usage: tools/bundle.sh [--build DIR] OUTDIR" >&2; exit 2; }
outdir="$1"
mkdir -p "$outdir" || { echo "bundle.sh: cannot create '$outdir'" >&2; exit 2; }
outdir="$(cd "$outdir" && pwd)"
[[ -w "$outdir" ]] || { echo "bundle.sh: '$outdir' is not writable" >&2; exit 2; }
[[ "$(uname -m)" == x86_64 ]] || { echo "bundle.sh: builds x86-64 bundles only, this is $(uname -m)" >&2; exit 2; }

tools/install-deps.sh
for tool in patchelf; do
  command -v "$tool" >/dev/null || { echo "bundle.sh: '$tool' is missing (tools/install-deps.sh installs it)" >&2; exit 3; }
done

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_MPI=OFF >/dev/null
fi
cmake --build "$build" --target tensortune tensortune-worker tensortune_runtime tensortune_history

version=$(sed -n 's/^project(tensortune VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
name="tensortune-${version}-x86_64-linux"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/$name"
# Only the components a user needs: programs, libraries, headers, CMake and pkg-config files.
cmake --install "$build" --prefix "$stage" >/dev/null

# The real programs live in libexec/; bin/ holds launchers that start them with the bundled loader.
mkdir -p "$stage/libexec/tensortune" "$stage/lib/tensortune-deps/glibc" "$stage/share/tensortune"
for program in tensortune tensortune-worker; do
  mv "$stage/bin/$program" "$stage/libexec/tensortune/$program"
done
rm -f "$stage/bin/tensortune-mpi"  # needs the host's MPI: not part of the bundle
cp -r kernels "$stage/share/tensortune/kernels"

# Every shared library the programs and the installed libraries load, as the build host resolves
# them. glibc's own libraries go apart: the launchers use them, programs that link the runtime
# library keep their own C library.
is_glibc() {
  case "$1" in
    ld-linux*.so* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | \
      libutil.so.* | libnss_*.so.* | libanl.so.* | libmvec.so.*) return 0 ;;
  esac
  return 1
}
declare -A copied=()
copy_deps() {
  local elf="$1" line lib path
  while read -r line; do
    line="${line#"${line%%[![:space:]]*}"}"
    lib="" path=""
    [[ "$line" == libtensortune* ]] && continue  # the bundle's own, found beside each other
    if [[ "$line" =~ ^([^[:space:]]+)\ =\>\ (/[^[:space:]]+) ]]; then
      lib="${BASH_REMATCH[1]}" path="${BASH_REMATCH[2]}"
    elif [[ "$line" =~ ^(/[^[:space:]]*ld-linux[^[:space:]]*) ]]; then
      path="${BASH_REMATCH[1]}" lib="$(basename "$path")"
    elif [[ "$line" == *"not found"* ]]; then
      echo "bundle.sh: $elf: $line" >&2
      exit 3
    fi
    [[ -n "$lib" ]] || continue
    [[ -n "${copied[$lib]:-}" ]] && continue
    copied[$lib]=1
    if is_glibc "$lib"; then
      cp -L "$path" "$stage/lib/tensortune-deps/glibc/$lib"
    else
      cp -L "$path" "$stage/lib/tensortune-deps/$lib"
      copy_deps "$path"
    fi
  done < <(ldd "$elf")
}
for elf in "$stage"/libexec/tensortune/* "$stage"/lib/libtensortune*.so.*.*; do
  copy_deps "$elf"
done
# glibc loads these by name at run time (name service, character sets): the launchers' programs
# resolve user and host names through them.
for lib in libnss_files.so.2 libnss_dns.so.2; do
  # awk reads to the end: an early exit would cut ldconfig's output off (SIGPIPE under pipefail).
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !found {print $NF; found = 1}')
  [[ -n "$path" ]] && cp -L "$path" "$stage/lib/tensortune-deps/glibc/$lib"
done
# The ICD loader's default vendor folder is the host's; the bundle adds none.
chmod u+w "$stage"/lib/tensortune-deps/*.so* "$stage"/lib/tensortune-deps/glibc/*
# The installed libraries find their own dependencies beside them (never glibc's: the host
# program's C library serves them).
for lib in "$stage"/lib/libtensortune*.so.*.*; do
  patchelf --set-rpath '$ORIGIN/tensortune-deps' "$lib"
done
for lib in "$stage"/lib/tensortune-deps/*.so*; do
  patchelf --set-rpath '$ORIGIN' "$lib" 2>/dev/null || true
done
strip --strip-unneeded "$stage"/libexec/tensortune/* "$stage"/lib/libtensortune*.so.*.* \
  "$stage"/lib/tensortune-deps/*.so* 2>/dev/null || true

loader=$(cd "$stage/lib/tensortune-deps/glibc" && ls ld-linux*.so* | head -n 1)
[[ -n "$loader" ]] || { echo "bundle.sh: no dynamic loader found among the programs' libraries" >&2; exit 3; }
for program in tensortune tensortune-worker; do
  sed -e "s/@PROGRAM@/$program/g" -e "s/@LOADER@/$loader/g" tools/bundle_launcher.sh.in >"$stage/bin/$program"
  chmod 755 "$stage/bin/$program"
done
cp docs/bundle.md "$stage/README.md"
git rev-parse HEAD >"$stage/share/tensortune/commit" 2>/dev/null || echo unknown >"$stage/share/tensortune/commit"

tarball="$outdir/$name.tar.gz"
tar -C "$work" -czf "$tarball.partial" "$name"
mv "$tarball.partial" "$tarball"
size=$(stat -c %s "$tarball")
limit=$((64 * 1024 * 1024))
if ((size > limit)); then
  echo "bundle.sh: $tarball is $((size / 1024 / 1024)) MiB, over the 64 MiB limit" >&2
  exit 3
fi
echo "bundle: $((size / 1024 / 1024)) MiB, $(ls "$stage/lib/tensortune-deps" "$stage/lib/tensortune-deps/glibc" | grep -c '\.so') libraries"
echo "$tarball"
