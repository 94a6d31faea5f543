#!/usr/bin/env bash
# Starts (or stops) a throwaway PostgreSQL for the test suite, listening only on a unix socket.
#   eval "$(scripts/test-postgres.sh start DIR)"   prints: export SWITCHBOARD_TEST_DATABASE_URL=...; export TEST_PG_DIR=...
#   scripts/test-postgres.sh stop DIR
# PostgreSQL refuses to run as root: as root it runs as the system user switchboard-pg.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?data folder}

bin=""
for d in ${SWITCHBOARD_PG_BIN:-} $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$d/initdb" && -x "$d/postgres" ]]; then bin=$d; break; fi
done
[[ -n "$bin" ]] || { echo "test-postgres: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 2; }

as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    id switchboard-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin switchboard-pg
    as_pg=(runuser -u switchboard-pg --)
fi

case "$cmd" in
start)
    mkdir -p "$dir/run"
    chmod 711 "$dir"
    [[ $(id -u) -eq 0 ]] && chown switchboard-pg "$dir/run"
    if [[ ! -f "$dir/pg/PG_VERSION" ]]; then
        mkdir -p "$dir/pg"
        [[ $(id -u) -eq 0 ]] && chown switchboard-pg "$dir/pg"
        "${as_pg[@]}" "$bin/initdb" -D "$dir/pg" -U switchboard --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1
    fi
    touch "$dir/run/pg.log"; [[ $(id -u) -eq 0 ]] && chown switchboard-pg "$dir/run/pg.log"
    "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/pg" -l "$dir/run/pg.log" -w -t 60 \
        -o "-k $dir/run -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
        start >/dev/null
    echo "export SWITCHBOARD_TEST_DATABASE_URL='host=$dir/run user=switchboard dbname=postgres'"
    echo "export TEST_PG_DIR='$dir'"
    ;;
stop)
    [[ -f "$dir/pg/postmaster.pid" ]] && "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1 || true
    ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
