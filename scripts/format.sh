#!/usr/bin/env bash
# Formats the Swift files with swift-format (`swift format`, part of the toolchain) and the repository's
# .swift-format (4-space indentation, 120 columns, rules chosen to match the code's style).
#   scripts/format.sh           formats every *.swift file of the checkout in place (tracked or new, not ignored)
#   scripts/format.sh --check   changes nothing: `swift format lint --strict`, then every line of a *.swift file
#                               over 120 columns (the formatter cannot break long string literals and comments);
#                               exits 1 on any finding
# Settings that differ from swift-format's defaults, each because the code is written that way (measured as the
# lines `--in-place` would change on the tree of issue 36): indentation 4 and lineLength 120; #if blocks not
# indented (indentConditionalCompilationBlocks false); rules off: DoNotUseSemicolons (one-line `{ a; b }` bodies,
# 216 sites, ~900 lines), OneCasePerLine (`enum E { case a(X), b }`, 32), OneVariableDeclarationPerLine
# (`let k = 1, j = 2`, 10), OnlyOneTrailingClosureArgument (a closure argument plus a trailing completion, 7).
# The documentation and force-unwrap lint rules stay off, as by default.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
swift format --version >/dev/null 2>&1 || { echo "format: \`swift format\` not found (Swift 6 toolchain)" >&2; exit 2; }

files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    while IFS= read -r -d '' f; do [[ -f "$f" ]] && files+=("$f"); done \
        < <(git ls-files -z --cached --others --exclude-standard -- '*.swift')
else
    while IFS= read -r -d '' f; do files+=("$f"); done \
        < <(find . -name '*.swift' -not -path '*/.build*' -print0 | sort -z)
fi
((${#files[@]})) || { echo "format: no Swift files" >&2; exit 2; }

# Lines longer than 120 characters (grep counts characters, not bytes, in a UTF-8 locale).
long_lines() { LC_ALL=C.UTF-8 grep -nE '^.{121,}' "${files[@]}" || true; }

if ((check == 0)); then
    printf '%s\0' "${files[@]}" | xargs -0 swift format format --in-place --parallel --configuration .swift-format
    remaining=$(long_lines | wc -l)
    echo "format: ${#files[@]} files formatted; $remaining lines over 120 columns left (--check lists them)"
    exit 0
fi

status=0
printf '%s\0' "${files[@]}" | xargs -0 swift format lint --strict --parallel --configuration .swift-format || status=1
long=$(long_lines)
if [[ -n "$long" ]]; then
    echo "$long" | sed -E 's/^([^:]+:[0-9]+):.*/\1: line over 120 columns/'
    status=1
fi
((status == 0)) && echo "format: ${#files[@]} files, no findings"
exit $status
