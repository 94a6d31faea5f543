#!/usr/bin/env bash
# ThreadSanitizer over the engine and integration tests (issue 36, item 5): what it guards are the fields declared
# @exclusivity(unchecked) and the @unchecked Sendable types, whose safety rests on queue confinement and locks the
# compiler cannot check.
#   scripts/test-tsan.sh        build with --sanitize=thread into .build-tsan (incremental), then run the tests
# Needs SWITCHBOARD_TEST_DATABASE_URL and SWITCHBOARD_TEST_REDIS_URL (scripts/test.sh starts both; alone:
# eval "$(scripts/test-postgres.sh start DIR)" and eval "$(scripts/test-redis.sh start DIR)").
# Fails on any ThreadSanitizer report of the test process or of a server process a test starts; the reports are
# printed. scripts/tsan/suppressions.txt lists what is not a race (each entry with its reason), and
# scripts/tsan/mutex-annotations.c tells TSan about Synchronization.Mutex's uninstrumented contended path.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${SWITCHBOARD_TEST_DATABASE_URL:?the test PostgreSQL (scripts/test-postgres.sh start DIR)}"
: "${SWITCHBOARD_TEST_REDIS_URL:?the test Redis (scripts/test-redis.sh start DIR)}"

scratch=.build-tsan
# What runs under TSan (about 2 minutes here, where the engine tests with the whole IntegrationTests target take
# 5-7 and fail in tests with fixed time windows):
# - every engine test, and the transport's, the store's and the Redis client's own tests: the loops and
#   connections (@exclusivity(unchecked) fields), the pool, the writers, presence, calls, the cluster directory,
#   the Redis client and subscriber (@unchecked Sendable), all cheap;
# - the integration suites that drive those types through real sockets: the fan-out and its outbox, sessions and
#   registry (Messaging, ClusterMessaging, AccountsAndFriends), admission, the ordered lane, slow requests and the
#   drain (Admission, RequestOrder, SlowRequest, Drain, ServerFoundation), the engines with queues and timers of
#   their own (Calls, SocialLive, ActiveHoursIntegration, AccountLifecycle, WebServing), the pool's and writers'
#   metrics (QueueMetricsEndpoint), and the client library with its socket and HTTP exchange (VoiceClientLibrary).
# Left out: suites of feature rules over the same request path (communities, events, courses, posts, graph,
# moderation, reactions, moments, photos: their concurrency is the database's), suites that spawn server processes
# (crash recovery, supervision, service management), the photo pipeline (libvips, uninstrumented and CPU-bound),
# and three tests whose fixed time windows TSan's slowdown breaks (not races): ClientLibraryTests (the main step runs
# it alone for the same reason), PhotoHTTPTests' idle-upload expiry, and RedisClientTests' one-second BLPOP window.
integration='AdmissionTests|RequestOrderTests|SlowRequestTests|DrainTests|ServerFoundationTests|MessagingTests'
integration+='|ClusterMessagingTests|AccountsAndFriendsTests|CallsTests|SocialLiveTests|ActiveHoursIntegrationTests'
integration+='|AccountLifecycleTests|WebServingTests|QueueMetricsEndpointTests|VoiceClientLibraryTests'
filters=(
    --filter 'SwitchboardEngineTests|SwitchboardTransportTests|SwitchboardStoreTests|SwitchboardRedisTests'
    --filter "IntegrationTests\.($integration)(/|\$)"
    --skip 'pastMaxPendingCommandsIsOverloaded'
)

start=$SECONDS
echo "-- build (--sanitize=thread, $scratch)"
swift build --build-tests --sanitize=thread --scratch-path "$scratch" 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
test "${PIPESTATUS[0]}" -eq 0
built=$SECONDS

work=$(mktemp -d /tmp/switchboard-tsan.XXXXXX)
trap 'rm -rf "$work"' EXIT
shim="$scratch/libmutex-annotations.so"
clang=$(dirname "$(command -v swiftc)")/clang
"$clang" -shared -fPIC -O1 -Wall -Werror -o "$shim" scripts/tsan/mutex-annotations.c -ldl
shim=$(realpath "$shim")
suppressions=$(realpath scripts/tsan/suppressions.txt)

# The annotations must match this toolchain's Mutex: a contended Mutex is quiet, a planted race is reported.
echo "-- probes (mutex-annotations against this toolchain)"
for probe in mutex race; do
    swiftc -sanitize=thread -o "$work/probe-$probe" "scripts/tsan/probe-$probe.swift"
    LD_PRELOAD="$shim" TSAN_OPTIONS="halt_on_error=0 exitcode=0 log_path=$work/probe-$probe.log" \
        "$work/probe-$probe" >/dev/null
    reports=$(cat "$work"/probe-"$probe".log.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
    if [[ "$probe" == mutex && "$reports" -ne 0 ]]; then
        echo "mutex-annotations does not match this toolchain: a contended Mutex is reported as a race" >&2
        cat "$work"/probe-mutex.log.* >&2
        exit 1
    fi
    if [[ "$probe" == race && "$reports" -eq 0 ]]; then
        echo "ThreadSanitizer missed the probe's planted race: the TSan job would prove nothing" >&2
        exit 1
    fi
done

echo "-- tests under ThreadSanitizer"
mkdir -p "$work/reports"
# Each process (the test bundle, and any server it starts: they inherit the environment) writes its reports to
# a file of its own; exitcode=0 so that a report does not turn into an unexplained exit status of a child.
status=0
LD_PRELOAD="$shim" \
TSAN_OPTIONS="suppressions=$suppressions halt_on_error=0 exitcode=0 log_path=$work/reports/tsan ${TSAN_OPTIONS:-}" \
    swift test --skip-build --sanitize=thread --scratch-path "$scratch" --disable-xctest "${filters[@]}" \
    >"$work/tests.log" 2>&1 || status=$?
grep -E '^(✘|✔ Test run|✘ Test run)|Test run with' "$work/tests.log" || true
reports=$(cat "$work"/reports/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
echo "-- ThreadSanitizer: $reports report(s); build $((built - start)) s, probes and tests $((SECONDS - built)) s"
if [[ "$reports" -ne 0 ]]; then
    cat "$work"/reports/tsan.* | grep '^SUMMARY' | sort | uniq -c | sort -rn >&2
    cat "$work"/reports/tsan.* >&2
    exit 1
fi
if [[ "$status" -ne 0 ]]; then
    tail -200 "$work/tests.log" >&2
    exit "$status"
fi
