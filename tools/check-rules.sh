#!/usr/bin/env bash
# The house rules that need no build, checked in seconds before it (tools/test.sh runs this first):
# - every tracked C++ file is formatted as .clang-format says (clang-format --dry-run --Werror);
# - no tracked C++ file is longer than 600 lines (split a file by job before it passes that);
# - docs/results.md is at most 250 lines (current figures only).
# Exits 1 and names each file that breaks a rule. `tools/check-rules.sh FILE...` checks only those files.
set -euo pipefail
cd "$(dirname "$0")/.."
max_lines=600

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check-rules: no C++ files found" >&2
  exit 1
fi

failed=0
if ! command -v clang-format >/dev/null; then
  echo "check-rules: clang-format is not installed (tools/install-deps.sh installs it)" >&2
  exit 1
fi
# --Werror makes each difference from the style an error that names the file and line.
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "check-rules: files above differ from .clang-format; run clang-format -i on them" >&2
  failed=1
fi

for f in "${files[@]}"; do
  lines=$(wc -l <"$f")
  if ((lines > max_lines)); then
    echo "check-rules: $f has $lines lines, more than $max_lines: split it by job" >&2
    failed=1
  fi
done
# results.md keeps the current figures only; older ones go to the notebook.
max_results=250
results_lines=$(wc -l <docs/results.md)
if ((results_lines > max_results)); then
  echo "check-rules: docs/results.md has $results_lines lines, more than $max_results: move older figures to docs/notebook.md" >&2
  failed=1
fi
exit $failed
