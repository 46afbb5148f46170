#!/usr/bin/env bash
# Checks that every relative link in README.md and docs/*.md points to a file that exists, and
# that a #fragment names a heading of the Markdown file it points to (GitHub's anchor rules).
# Exit code 1 with one line per broken link.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - README.md docs/*.md <<'EOF'
import re
import sys
from pathlib import Path

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(path):
    """The lines outside fenced and indented code blocks, with their numbers."""
    in_fence = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or line.startswith("    ") or line.startswith("\t"):
            continue
        yield number, line


def anchors(path):
    seen = {}
    result = set()
    for _, line in prose_lines(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = m.group(1).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


broken = 0
for name in sys.argv[1:]:
    source = Path(name)
    for number, line in prose_lines(source):
        # Drop inline code spans, whose brackets are not links.
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            linked = (source.parent / file_part).resolve() if file_part else source.resolve()
            if not linked.exists():
                print(f"{source}:{number}: {target}: no such file")
                broken += 1
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                print(f"{source}:{number}: {target}: no heading #{fragment} in {file_part or source.name}")
                broken += 1
print(f"{broken} broken link(s)" if broken else "all relative links resolve")
sys.exit(1 if broken else 0)
EOF
