#!/usr/bin/env bash
# Sustained load on `validate serve` (release build) on 127.0.0.1 only: wrk mixes validate,
# lookup and claim requests for DURATION seconds per store, in slices of SLICE seconds, and the
# script reports per slice requests/s, p50/p99 latency, errors and the server's RSS (sampled
# every SAMPLE seconds), then whether the RSS stayed flat after the first slice (warm-up).
#   SQLite:      one server on a fresh file.
#   PostgreSQL:  two servers on one fresh schema, each loaded by its own wrk at the same time
#                (when RULESKIT_POSTGRES_URL is set: eval "$(scripts/postgres start)").
# The mix per request: 50 % POST /v1/display-name/validate, 30 % GET /v1/names/{name} (half of
# them taken), 20 % POST /v1/names/{name}/claim: half a fresh name for a fresh user, half one of
# HOT (default 2000) names that every server's users race for. Exactness afterwards: every
# claim answered 200 names one owner per name, and re-claiming every (name, owner) answered 200
# with `validate names claim --input jsonl` on the same store says claimed for each (idempotent).
# Errors are socket errors and answers other than 200 and the claims' expected 409 (taken, or
# the user already holds a name).
# Settings: DURATION (default 600), SLICE (default 60), SAMPLE (default 5), CONNECTIONS (default 32
# per wrk), THREADS (default 2 per wrk), HOT (default 2000), GROWTH_LIMIT (default 10: the % of
# RSS growth after warm-up that still counts as flat), VALIDATE (a release binary; default: build).
# Needs wrk (apt-get install -y wrk). Usage: DURATION=180 Benchmarks/serve-soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-600}
SLICE=${SLICE:-60}
SAMPLE=${SAMPLE:-5}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
HOT=${HOT:-2000}
GROWTH_LIMIT=${GROWTH_LIMIT:-10}
(( SLICE > DURATION )) && SLICE=$DURATION
command -v wrk >/dev/null || { echo "serve-soak: wrk is missing: apt-get install -y wrk" >&2; exit 1; }
if [[ -z "${VALIDATE:-}" ]]; then
    swift build -c release --product validate >&2
    VALIDATE=.build/release/validate
fi

work="$(mktemp -d)"
servers=()
samplers=()
stop_all() {
    for pid in "${samplers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    servers=(); samplers=()
}
trap 'stop_all; rm -rf "$work"' EXIT

# start N STORE: starts server N on STORE (port chosen by the system); sets URLS[N] and PIDS[N].
declare -A URLS PIDS
start() {
    local n=$1 store=$2
    # A server of an earlier soak may have used the same number: never read its ready line.
    rm -f "$work/stdout.$n"
    : >"$work/stdout.$n"
    "$VALIDATE" serve --host 127.0.0.1 --port 0 --dev-auth --store "$store" --rate-limit 100000000 \
        >"$work/stdout.$n" 2>"$work/server.$n.log" &
    PIDS[$n]=$!
    servers+=("${PIDS[$n]}")
    URLS[$n]=""
    for _ in $(seq 600); do
        URLS[$n]="$(sed -n 's/^listening on //p' "$work/stdout.$n")"
        [[ -n "${URLS[$n]}" ]] && return 0
        sleep 0.1
    done
    echo "serve-soak: server $n printed no ready line:" >&2; cat "$work/server.$n.log" >&2; exit 1
}

# sample N: writes "seconds rss-KiB" for server N every SAMPLE seconds to $work/rss.N.
sample() {
    local n=$1 pid=${PIDS[$1]} begin=$SECONDS
    ( while kill -0 "$pid" 2>/dev/null; do
          awk -v t=$((SECONDS - begin)) '/^VmRSS:/ { print t, $2 }' "/proc/$pid/status" 2>/dev/null || true
          sleep "$SAMPLE"
      done ) >"$work/rss.$n" &
    samplers+=($!)
}

# The request mix. Each wrk thread numbers its requests; names and users carry the server, the
# slice and the thread, so fresh names never repeat. Claims answered 200 go to a file per
# thread ("W key owner"), unexpected answers too ("E status").
cat >"$work/mix.lua" <<'LUA'
local counter, prefix, out = 0, "", nil
local server = os.getenv("SOAK_SERVER") or "1"
local slice = os.getenv("SOAK_SLICE") or "0"
local hot = tonumber(os.getenv("SOAK_HOT") or "2000")
local dir = os.getenv("SOAK_DIR")
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("tid", tostring(threads))
end
function init(args)
    prefix = "s" .. server .. "x" .. slice .. "t" .. tid
    out = io.open(dir .. "/answers." .. server .. "." .. slice .. "." .. tid, "w")
    out:setvbuf("line")
    math.randomseed(tonumber(server) * 1000003 + tonumber(slice) * 1009 + tonumber(tid))
end
local validate = '{"value": "John.Doe_42"}'
function request()
    counter = counter + 1
    local pick = counter % 10
    if pick < 5 then
        return wrk.format("POST", "/v1/display-name/validate", { ["Content-Type"] = "application/json" }, validate)
    elseif pick < 8 then
        local name = (counter % 2 == 0) and ("hot" .. math.random(0, hot - 1)) or (prefix .. "free" .. counter)
        return wrk.format("GET", "/v1/names/" .. name, nil, nil)
    elseif pick == 8 then
        local headers = { ["Authorization"] = "Bearer dev:" .. prefix .. "u" .. counter }
        return wrk.format("POST", "/v1/names/" .. prefix .. "n" .. counter .. "/claim", headers, nil)
    else
        local headers = { ["Authorization"] = "Bearer dev:" .. prefix .. "h" .. counter }
        return wrk.format("POST", "/v1/names/hot" .. math.random(0, hot - 1) .. "/claim", headers, nil)
    end
end
function response(status, headers, body)
    if status == 200 then
        if body and body:find('"claimed"%s*:%s*true') then
            local key = body:match('"key"%s*:%s*"([^"]*)"')
            local owner = body:match('"owner"%s*:%s*"([^"]*)"')
            out:write("W ", key or "?", " ", owner or "?", "\n")
        end
    elseif status ~= 409 then
        out:write("E ", status, "\n")
    end
end
function done(summary, latency, requests)
    local seconds = summary.duration / 1e6
    local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
    io.write(string.format("RESULT %.0f %.2f %.2f %d %d\n", summary.requests / seconds,
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors, summary.requests))
end
LUA

# soak LABEL N...: loads servers N... at once for DURATION seconds in slices; prints one line per
# slice and server, then the RSS verdict and the exactness check. STORE is the store location.
soak() {
    local label=$1; shift
    local slices=$(( (DURATION + SLICE - 1) / SLICE )) slice n
    echo "$label: $# server(s), $DURATION s in $slices slice(s) of $SLICE s, $CONNECTIONS connections x $THREADS threads per server"
    printf '  %-6s %-6s %10s %9s %9s %7s %11s %11s\n' slice server "req/s" "p50 ms" "p99 ms" errors "RSS MiB" "peak MiB"
    for n in "$@"; do sample "$n"; done
    for ((slice = 1; slice <= slices; slice++)); do
        local seconds=$SLICE
        (( slice == slices )) && seconds=$(( DURATION - SLICE * (slices - 1) ))
        local loads=()
        for n in "$@"; do
            SOAK_SERVER=$n SOAK_SLICE=$slice SOAK_HOT=$HOT SOAK_DIR=$work \
                wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" --timeout 10s -s "$work/mix.lua" "${URLS[$n]}/" \
                >"$work/wrk.$n.$slice" 2>&1 &
            loads+=($!)
        done
        wait "${loads[@]}" || true
        for n in "$@"; do
            local result rate p50 p99 socket count bad rss peak
            if ! result="$(grep '^RESULT' "$work/wrk.$n.$slice")"; then
                echo "serve-soak: wrk for server $n gave no result: $(head -c 300 "$work/wrk.$n.$slice")" >&2
                result="RESULT 0 0 0 -1 0"
            fi
            read -r _ rate p50 p99 socket count <<<"$result"
            bad=$(cat "$work"/answers."$n"."$slice".* 2>/dev/null | grep -c '^E' || true)
            rss=$(tail -1 "$work/rss.$n" | awk '{ printf "%.1f", $2 / 1024 }')
            peak=$(awk '{ if ($2 > m) m = $2 } END { printf "%.1f", m / 1024 }' "$work/rss.$n")
            printf '  %-6s %-6s %10s %9s %9s %7s %11s %11s\n' "$slice" "$n" "$rate" "$p50" "$p99" $((socket + bad)) "$rss" "$peak"
        done
    done
    for n in "$@"; do
        # Flat: the highest RSS after the first slice is within GROWTH_LIMIT % of the highest in it.
        awk -v warm="$SLICE" -v limit="$GROWTH_LIMIT" -v n="$n" '
            { if ($1 <= warm) { if ($2 > w) w = $2 } else { if ($2 > a) a = $2; last = $2 } }
            END {
                if (a == 0) { printf "  server %s: RSS %.1f MiB at the end of warm-up; no samples after it\n", n, w / 1024; exit }
                growth = (a - w) * 100 / w
                printf "  server %s: RSS peak %.1f MiB in warm-up, %.1f MiB after (%+.1f %%), %.1f MiB at the end: %s\n",
                    n, w / 1024, a / 1024, growth, last / 1024, (growth <= limit ? "flat" : "GROWING")
            }' "$work/rss.$n"
    done
    check_exact "$@"
}

# Every claim answered 200 names one owner per key, and the store still gives each to its owner.
check_exact() {
    cat "$work"/answers.* 2>/dev/null | awk '$1 == "W" { print $2, $3 }' | sort -u >"$work/wins"
    local wins keys
    wins=$(wc -l <"$work/wins")
    keys=$(cut -d' ' -f1 "$work/wins" | sort -u | wc -l)
    local hot_wins
    hot_wins=$(grep -c '^hot' "$work/wins" || true)
    awk '{ printf "{\"name\": \"%s\", \"user\": \"%s\"}\n", $1, $2 }' "$work/wins" >"$work/reclaim.jsonl"
    local status=0
    "$VALIDATE" names claim --input jsonl "$work/reclaim.jsonl" --store "$STORE" --format jsonl \
        >"$work/reclaim.out" 2>"$work/reclaim.err" || status=$?
    local held
    held=$(grep -c '"claimed": true' "$work/reclaim.out" || true)
    if [[ $wins -eq $keys && $status -eq 0 && $held -eq $wins ]]; then
        echo "  exact: $wins claims answered 200 ($hot_wins of them for the $HOT raced names), one owner per name, each still held by it"
    else
        echo "  NOT EXACT: $wins (name, owner) pairs answered 200 for $keys names; re-claim exit $status, $held of $wins held ($(head -c 300 "$work/reclaim.err"))"
    fi
    rm -f "$work"/answers.*
}

echo "serve-soak: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
STORE="sqlite:$work/names.sqlite"
start 1 "$STORE"
soak "SQLite" 1
stop_all
if [[ -n "${RULESKIT_POSTGRES_URL:-}" ]]; then
    separator=$([[ $RULESKIT_POSTGRES_URL == *\?* ]] && echo '&' || echo '?')
    STORE="${RULESKIT_POSTGRES_URL}${separator}schema=soak_$(date +%s)"
    start 1 "$STORE"
    start 2 "$STORE"
    soak "PostgreSQL" 1 2
    stop_all
else
    echo "PostgreSQL: skipped (RULESKIT_POSTGRES_URL is not set)"
fi
