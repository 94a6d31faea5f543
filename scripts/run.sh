#!/usr/bin/env bash
# Builds and runs the Switchboard server on its embedded defaults (port 8080; see README for the
# configuration). Extra arguments go to `switchboard serve`. It serves the web app from web/ (the working
# directory is the checkout) and logs "web app ready: open http://127.0.0.1:8080/ in a browser" once it listens.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --product switchboard 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
exec .build/release/switchboard serve "$@"
