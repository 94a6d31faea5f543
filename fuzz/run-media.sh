#!/usr/bin/env bash
# Fuzzes the SwitchboardMedia readers (WAV, Ogg/Opus, WebM/Opus) and the transcoder with libFuzzer + ASan.
#   fuzz/run-media.sh [SECONDS]     (default 60)
# The binary goes to fuzz/bin/MediaFuzz, the growing corpus to fuzz/corpus-media/ (both git-ignored),
# crash inputs to fuzz/bin/crashes-media/. Seeds: fuzz/seeds/media/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
mkdir -p fuzz/bin fuzz/bin/crashes-media fuzz/corpus-media
include_flags=()
for flag in $(pkg-config --cflags-only-I opus libopusenc opusfile); do include_flags+=(-Xcc "$flag"); done
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardMediaFuzz \
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
    -Xcc -fmodule-map-file=Sources/COpus/module.modulemap \
    -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap \
    "${include_flags[@]}" \
    $(find Sources/SwitchboardMedia -name '*.swift' | sort) fuzz/MediaFuzz.swift \
    -o fuzz/bin/MediaFuzz -lopusenc -lopusfile -lopus -logg -lssl -lcrypto
exec fuzz/bin/MediaFuzz -max_total_time="${seconds}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=fuzz/bin/crashes-media/ -print_final_stats=1 fuzz/corpus-media fuzz/seeds/media
