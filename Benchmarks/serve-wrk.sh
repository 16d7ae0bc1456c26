#!/usr/bin/env bash
# Loads a release `validate serve` with wrk on loopback, all figures in one run:
#   GET  /healthz                                the baseline
#   POST /v1/display-name/validate               target: >= 0.7x healthz requests/s, p99 <= 10 ms
#   GET  /v1/names/{name} on SQLite              target: >= 0.5x healthz requests/s
#   POST /v1/names/{name}/claim on SQLite        claims/s (every request a new name, a new user)
#   POST /v1/names/{name}/claim on PostgreSQL    claims/s, when RULESKIT_POSTGRES_URL is set
# CONNECTIONS (default 64) connections, THREADS (default 2) wrk threads, SECONDS_EACH (default 10)
# seconds per endpoint. Prints one line per endpoint (requests/s, p50, p99) and the two ratios.
# Measure on an otherwise idle machine (`uptime`); wrk comes from Debian (`apt-get install -y wrk`).
# Usage: Benchmarks/serve-wrk.sh       (VALIDATE=path uses that binary instead of building one)
set -euo pipefail
cd "$(dirname "$0")/.."
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
SECONDS_EACH=${SECONDS_EACH:-10}
command -v wrk >/dev/null || { echo "serve-wrk: wrk is missing: apt-get install -y wrk" >&2; exit 1; }
if [[ -z "${VALIDATE:-}" ]]; then
    swift build -c release --product validate >&2
    VALIDATE=.build/release/validate
fi

work="$(mktemp -d)"
server=""
stop() { if [[ -n "$server" ]]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""; fi; }
trap 'stop; rm -rf "$work"' EXIT

# start STORE: starts the server on STORE and sets URL.
start() {
    "$VALIDATE" serve --host 127.0.0.1 --port 0 --dev-auth --store "$1" --rate-limit 100000000 \
        >"$work/stdout" 2>"$work/server.log" &
    server=$!
    URL=""
    for _ in $(seq 600); do
        URL="$(sed -n 's/^listening on //p' "$work/stdout")"
        [[ -n "$URL" ]] && return 0
        sleep 0.1
    done
    echo "serve-wrk: no ready line:" >&2; cat "$work/server.log" >&2; exit 1
}

# Lua for wrk: a JSON POST body, and claims of a fresh name by a fresh user per request.
cat >"$work/validate.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"value": "John.Doe_42"}'
LUA
cat >"$work/claim.lua" <<'LUA'
local counter = 0
local prefix = ""
function setup(thread) thread:set("id", tostring(math.random(100000, 999999))) end
function init(args) prefix = "bench" .. id .. "x" end
function request()
    counter = counter + 1
    local headers = { ["Authorization"] = "Bearer dev:u" .. id .. "-" .. counter }
    return wrk.format("POST", "/v1/names/" .. prefix .. counter .. "/claim", headers, nil)
end
LUA
cat >"$work/report.lua" <<'LUA'
function done(summary, latency, requests)
    local seconds = summary.duration / 1e6
    local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
    io.write(string.format("RESULT %.0f %.2f %.2f %d\n", summary.requests / seconds,
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors))
end
LUA

# measure NAME PATH [LUA]: one wrk run; prints NAME, requests/s, p50 ms, p99 ms, non-2xx/errors.
declare -A RATE
measure() {
    local name=$1 path=$2 lua=${3:-}
    local script="$work/report.lua"
    if [[ -n "$lua" ]]; then cat "$lua" "$work/report.lua" >"$work/combined.lua"; script="$work/combined.lua"; fi
    local line
    line="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" -s "$script" "$URL$path" | grep '^RESULT')"
    read -r _ rate p50 p99 errors <<<"$line"
    RATE[$name]=$rate
    printf '%-34s %10s req/s   p50 %6s ms   p99 %6s ms   errors %s\n' "$name" "$rate" "$p50" "$p99" "$errors"
}

echo "serve-wrk: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), $CONNECTIONS connections, $THREADS threads, ${SECONDS_EACH}s each"
start "sqlite:$work/names.sqlite"
curl -s -o /dev/null -X POST -H "Authorization: Bearer dev:holder" "$URL/v1/names/Taken.Name/claim"
measure "GET /healthz" /healthz
measure "POST /v1/display-name/validate" /v1/display-name/validate "$work/validate.lua"
measure "GET /v1/names/{name} (SQLite)" /v1/names/Taken.Name
measure "POST claim (SQLite)" / "$work/claim.lua"
stop
if [[ -n "${RULESKIT_POSTGRES_URL:-}" ]]; then
    schema="bench_$(date +%s)"
    start "${RULESKIT_POSTGRES_URL}$([[ $RULESKIT_POSTGRES_URL == *\?* ]] && echo '&' || echo '?')schema=$schema"
    measure "POST claim (PostgreSQL)" / "$work/claim.lua"
    stop
else
    echo "POST claim (PostgreSQL)            skipped: RULESKIT_POSTGRES_URL is not set"
fi
awk -v v="${RATE[POST /v1/display-name/validate]}" -v n="${RATE[GET /v1/names/{name} (SQLite)]}" -v h="${RATE[GET /healthz]}" \
    'BEGIN { printf "validate / healthz = %.2fx (target >= 0.7x)   names / healthz = %.2fx (target >= 0.5x)\n", v / h, n / h }'
