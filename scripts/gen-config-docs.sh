#!/usr/bin/env bash
# Regenerates the generated part of docs/configuration.md from the option definitions of the `switchboard`
# executable (Sources/switchboard: help texts, defaults, `[env: ...]` notes and `@OptionGroup` titles, read through
# `switchboard --experimental-dump-help`). The test that fails when the file drifts is the one that rewrites it:
# ConfigurationDocsTests/theReferenceIsGeneratedFromTheOptionDefinitions with SWITCHBOARD_REGENERATE=1.
#   scripts/gen-config-docs.sh      build (debug, with the tests), regenerate, show what changed
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
test "${PIPESTATUS[0]}" -eq 0
SWITCHBOARD_REGENERATE=1 swift test --skip-build --disable-xctest \
    --filter 'ConfigurationDocsTests.theReferenceIsGeneratedFromTheOptionDefinitions' 2>&1 | tail -3
git --no-pager diff --stat -- docs/configuration.md
