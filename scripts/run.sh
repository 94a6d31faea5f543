#!/usr/bin/env bash
# Builds and runs the Switchboard server on its embedded defaults (data in ./switchboard-data,
# a private PostgreSQL started under it, port 8080). Extra arguments go to `switchboard serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --product switchboard 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
test ${PIPESTATUS[0]} -eq 0
exec .build/release/switchboard serve "$@"
