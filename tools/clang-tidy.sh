#!/usr/bin/env bash
# clang-tidy with the project's short list of checks (.clang-tidy: bugprone-*, performance-*, less
# the noisy ones) over src/, or over the files named: `tools/clang-tidy.sh src/cli/pins.cpp`.
# Needs a configured build/ (its compile_commands.json; the top-level CMakeLists.txt writes it).
# Exits non-zero on any finding. Slow (minutes over the whole tree): run it by hand on what you change.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TT_TIDY_BUILD:-build}"
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "clang-tidy.sh: $build/compile_commands.json is missing: configure first (cmake -S . -B $build ...)" >&2
  exit 2
fi
if ! command -v clang-tidy >/dev/null; then
  echo "clang-tidy.sh: clang-tidy is not installed (tools/install-deps.sh installs it)" >&2
  exit 2
fi
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'src/*.cpp')
fi
jobs="${TT_TIDY_JOBS:-$(nproc)}"
# One clang-tidy per file, $jobs at a time; any finding (WarningsAsErrors) fails the run. GCC's
# warning options in compile_commands.json (-Wno-restrict) are unknown to clang: not an error.
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 1 clang-tidy -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option
