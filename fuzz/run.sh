#!/usr/bin/env bash
# Fuzzes the parsers of bytes from the network with libFuzzer + ASan for a bounded time.
#   fuzz/run.sh HTTPHeadFuzz|FrameDecoderFuzz|ProtocolFuzz|RedisReplyFuzz|CalendarFuzz|PostTextFuzz|ImageFuzz|ClientScanFuzz [SECONDS=60]
# Binary: fuzz/bin/TARGET; corpus: fuzz/corpus-TARGET (git-ignored); seeds: fuzz/seeds/{http,frames};
# crashes: fuzz/bin/crashes-TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?HTTPHeadFuzz, FrameDecoderFuzz, ProtocolFuzz, RedisReplyFuzz, CalendarFuzz, PostTextFuzz, ImageFuzz or ClientScanFuzz}
seconds=${2:-60}
case "$target" in
    HTTPHeadFuzz) seeds=fuzz/seeds/http ;;
    FrameDecoderFuzz) seeds=fuzz/seeds/frames ;;
    ProtocolFuzz) seeds=fuzz/seeds/protocol ;;
    RedisReplyFuzz) seeds=fuzz/seeds/redis ;;
    CalendarFuzz) seeds=fuzz/seeds/calendar ;;
    PostTextFuzz) seeds=fuzz/seeds/posttext ;;
    ImageFuzz) seeds=fuzz/seeds/images ;;
    ClientScanFuzz) seeds=fuzz/seeds/clientscan ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
mkdir -p fuzz/bin "fuzz/bin/crashes-$target" "fuzz/corpus-$target"
if [[ "$target" == ProtocolFuzz ]]; then
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardProtocol \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        $(find Sources/SwitchboardProtocol -name '*.swift' | sort) fuzz/ProtocolFuzz.swift -o fuzz/bin/ProtocolFuzz
    exec fuzz/bin/ProtocolFuzz -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
fi
if [[ "$target" == RedisReplyFuzz ]]; then
    # The Redis client's pure files only (its sockets need swift-log, a package): the reply reader and its types.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardRedis \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        -Xcc -fmodule-map-file=Sources/CHiredis/module.modulemap \
        Sources/SwitchboardRedis/RedisReplyReader.swift Sources/SwitchboardRedis/RedisValue.swift \
        Sources/SwitchboardRedis/RedisError.swift fuzz/RedisReplyFuzz.swift -o fuzz/bin/RedisReplyFuzz -lhiredis
    exec fuzz/bin/RedisReplyFuzz -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
fi
if [[ "$target" == CalendarFuzz ]]; then
    # The calendar's pure files (dates, instants, ranges in a zone) over the wire timestamp it checks shapes with
    # (SwitchboardProtocol's one Foundation-only file it needs), built as its own module first.
    mkdir -p fuzz/bin/calendar-modules
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardProtocol -emit-module \
        -emit-module-path fuzz/bin/calendar-modules/SwitchboardProtocol.swiftmodule -emit-object \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        Sources/SwitchboardProtocol/WireTimestamp.swift -o fuzz/bin/calendar-modules/SwitchboardProtocol.o
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardDomain -I fuzz/bin/calendar-modules \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        Sources/SwitchboardDomain/Communities/CalendarRange.swift \
        Sources/SwitchboardDomain/Communities/LocalDate.swift Sources/SwitchboardDomain/Communities/WireInstant.swift \
        fuzz/CalendarFuzz.swift fuzz/bin/calendar-modules/SwitchboardProtocol.o -o fuzz/bin/CalendarFuzz
    exec fuzz/bin/CalendarFuzz -max_total_time="$seconds" -max_len=256 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
fi
if [[ "$target" == PostTextFuzz ]]; then
    # The post text parser's one pure file (Foundation only).
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardDomain \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        Sources/SwitchboardDomain/Social/PostText.swift fuzz/PostTextFuzz.swift -o fuzz/bin/PostTextFuzz
    exec fuzz/bin/PostTextFuzz -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
fi
if [[ "$target" == ClientScanFuzz ]]; then
    # The client library's top-level scan and the load tester's run mark: one pure file each (no imports).
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardClient \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        Sources/SwitchboardClient/TopLevelScan.swift loadtest/SwitchboardLoadKit/RunMarker.swift fuzz/ClientScanFuzz.swift \
        -o fuzz/bin/ClientScanFuzz
    exec fuzz/bin/ClientScanFuzz -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
fi
if [[ "$target" == ImageFuzz ]]; then
    # The photo pipeline (issue 19) over Debian's libvips: its module's sources, CVips' module map with GLib's
    # include paths, COpenSSL for the hash. libvips itself is not instrumented; the Swift side is.
    include_flags=()
    for flag in $(pkg-config --cflags-only-I gobject-2.0); do include_flags+=(-Xcc "$flag"); done
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardImages \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        -Xcc -fmodule-map-file=Sources/CVips/module.modulemap \
        -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap \
        "${include_flags[@]}" \
        $(find Sources/SwitchboardImages -name '*.swift' | sort) fuzz/ImageFuzz.swift \
        -o fuzz/bin/ImageFuzz -lvips -lgobject-2.0 -lglib-2.0 -lssl -lcrypto
    exec fuzz/bin/ImageFuzz -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
fi
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SwitchboardWebSocket \
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
    -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap \
    -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap \
    $(find Sources/SwitchboardWebSocket -name '*.swift' | sort) "fuzz/$target.swift" \
    -o "fuzz/bin/$target" -lz -lssl -lcrypto
exec "fuzz/bin/$target" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="fuzz/bin/crashes-$target/" -print_final_stats=1 "fuzz/corpus-$target" "$seeds"
