#!/usr/bin/env bash
# Installs what building, running and testing Switchboard need on Debian/Ubuntu, skipping what is there.
#   scripts/deps.sh          runtime + build libraries and the PostgreSQL server
#   scripts/deps.sh --test   also the test tools (Python websockets and pexpect, openssl CLI, audio tools, redis-server,
#                            Debian's chromium with Playwright and axe-playwright-python for Tests/web; never
#                            `playwright install`: the tests drive /usr/bin/chromium; GStreamer's plugins and
#                            coturn for Tests/callmedia; vips and exiftool for the photo tests)
set -euo pipefail

want=(libssl-dev zlib1g-dev libpq-dev libargon2-dev libopus-dev libopusenc-dev libopusfile-dev libogg-dev libhiredis-dev
      libvips-dev libcurl4-openssl-dev postgresql openssl pkg-config)
if [[ "${1:-}" == "--test" ]]; then
    want+=(python3 python3-pip python3-venv procps curl opus-tools sox espeak-ng ffmpeg redis-server chromium iproute2 util-linux
          gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-nice coturn)
    # systemd-analyze verifies deploy/switchboard.service (it needs no running systemd).
    want+=(systemd)
    # The photo tests make their images with libvips' command-line tools and read metadata back with exiftool.
    want+=(libvips-tools libimage-exiftool-perl)
fi

missing=()
for p in "${want[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "deps: installing ${missing[*]}" >&2
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ "${1:-}" == "--test" ]]; then
    for mod in websockets:websockets yaml:pyyaml pexpect:pexpect playwright:playwright axe_playwright_python:axe-playwright-python; do
        if ! python3 -c "import ${mod%%:*}" 2>/dev/null; then
            echo "deps: installing Python ${mod#*:}" >&2
            python3 -m pip install -q "${mod#*:}" 2>/dev/null || python3 -m pip install -q --break-system-packages "${mod#*:}"
        fi
    done
fi
