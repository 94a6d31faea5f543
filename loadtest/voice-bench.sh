#!/usr/bin/env bash
# Voice messages: upload-to-delivered latency of a 30 s recording, and transcoding speed.
# Makes 30 s of speech (espeak-ng, sox: 48 kHz mono 16-bit WAV) and a WebM/Opus copy (ffmpeg), starts the
# release server on a fresh data folder with its embedded PostgreSQL (server pinned to core 0; its PostgreSQL
# may run on either core), and runs loadtest/voice-bench.py on core 1 for each format.
# Usage: loadtest/voice-bench.sh [iterations=20] [recipients=3]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
recipients=${2:-3}
port=$((20000 + RANDOM % 10000)) # below the ephemeral range (32768-60999)
bin=${SWITCHBOARD_BIN:-.build-rel/release/switchboard}
[[ -x "$bin" ]] || { echo "no server binary at $bin (swift build -c release --scratch-path .build-rel)" >&2; exit 2; }
work=$(mktemp -d)
chmod 755 "$work"  # the embedded PostgreSQL runs as an unprivileged user and needs to reach its folder
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
text="Switchboard turns every recording into one compact speech-tuned Opus file, measures it and draws its waveform, so every client can show and play it at once."
espeak-ng -s 150 -w "$work/speech.wav" "$text $text $text $text $text $text"
sox "$work/speech.wav" -r 48000 -c 1 -b 16 "$work/long.wav" repeat 3
sox "$work/long.wav" "$work/voice30.wav" trim 0 30
ffmpeg -loglevel error -y -i "$work/voice30.wav" -c:a libopus -b:a 32k "$work/voice30.webm"
taskset -c 0 "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" --loops 1 --transcoders 1 ${VOICE_FLAGS:-} \
    --phone-verification off --log-level warning &
server_pid=$!
for _ in $(seq 600); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
    sleep 0.1
done
cpu() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
tck=$(getconf CLK_TCK)
for f in voice30.wav voice30.webm; do
    echo "== $f ($(stat -c %s "$work/$f") bytes)"
    c0=$(cpu)
    taskset -c 1 python3 loadtest/voice-bench.py "127.0.0.1:$port" "$work/$f" "$n" "$recipients"
    c1=$(cpu)
    # Server CPU per upload (transcode + HTTP + the rest; its PostgreSQL is a separate process): robust on a
    # shared machine, unlike wall-clock latency.
    python3 -c "import sys; c=(float(sys.argv[2])-float(sys.argv[1]))/float(sys.argv[3]); n=int(sys.argv[4]); print(f'server CPU {c/n*1000:.0f} ms per 30 s upload: {30/(c/n):.0f}x realtime per core')" "$c0" "$c1" "$tck" "$n"
done
uptime
