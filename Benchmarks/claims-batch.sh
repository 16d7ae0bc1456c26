#!/usr/bin/env bash
# Batch claims through the CLI (`validate names claim --input jsonl`), the import of an existing
# user base, on SQLite and on PostgreSQL. The mix is issue 30's, 200,000 records in one file:
#   180,000 distinct names for distinct users (claimed);
#    10,000 of those names wanted by a second user (AV1003, the first claimant's name);
#    10,000 exact repeats of an earlier record (claimed again: idempotent).
# Each run starts from an empty store (a new SQLite file, a new PostgreSQL schema), prints the
# wall-clock time, claims/s, the CPU time of the `validate` process (user + system; on a shared
# machine claims per CPU-second is the load-independent figure for SQLite, where the process does
# all the work) and peak RSS, and checks the output: 200,000 rows in input order,
# 190,000 claimed, 10,000 AV1003, exit 1.
# Settings: BATCH_SIZES (default "1000": each value is one run per store, e.g. "1 100 1000 5000"),
# RECORDS_SCALE (default 1: multiplies the mix), VALIDATE (a release binary; default: build one).
# PostgreSQL runs when RULESKIT_POSTGRES_URL is set (eval "$(scripts/postgres start)").
# Usage: Benchmarks/claims-batch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BATCH_SIZES=${BATCH_SIZES:-1000}
SCALE=${RECORDS_SCALE:-1}
if [[ -z "${VALIDATE:-}" ]]; then
    swift build -c release --product validate >&2
    VALIDATE=.build/release/validate
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The mix: after every 18 first claims, one second user for a name 9 records back and one exact
# repeat of the record 5 back, so both fall in other transactions than the first claim.
awk -v n=$((180000 * SCALE)) 'BEGIN {
    for (i = 0; i < n; i++) {
        printf "{\"name\": \"Member_%07d\", \"user\": \"uid-%07d\"}\n", i, i
        if (i % 18 == 17) {
            printf "{\"name\": \"member_%07d\", \"user\": \"uid2-%07d\"}\n", i - 9, i - 9
            printf "{\"name\": \"Member_%07d\", \"user\": \"uid-%07d\"}\n", i - 5, i - 5
        }
    }
}' >"$work/mix.jsonl"
records=$(wc -l <"$work/mix.jsonl")
expect_claimed=$((190000 * SCALE))
expect_taken=$((10000 * SCALE))

# run LABEL STORE BATCH: one timed run, checked.
run() {
    local label=$1 store=$2 batch=$3 status=0
    local start end
    start=$(date +%s.%N)
    /usr/bin/env time -f '%M %U %S' -o "$work/rss" "$VALIDATE" names claim --input jsonl "$work/mix.jsonl" --store "$store" \
        --format jsonl --batch-size "$batch" >"$work/out.jsonl" 2>"$work/err" || status=$?
    end=$(date +%s.%N)
    local rows claimed taken rss cpu
    rows=$(wc -l <"$work/out.jsonl")
    claimed=$(grep -c '"claimed": true' "$work/out.jsonl" || true)
    taken=$(grep -c '"code": "AV1003"' "$work/out.jsonl" || true)
    read -r rss user system < <(tail -1 "$work/rss")
    cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')
    local ok=ok
    if [[ $status -ne 1 || $rows -ne $records || $claimed -ne $expect_claimed || $taken -ne $expect_taken ]]; then
        ok="WRONG (exit $status, rows $rows, claimed $claimed, AV1003 $taken; stderr: $(head -c 300 "$work/err"))"
    fi
    awk -v l="$label" -v b="$batch" -v s="$start" -v e="$end" -v r="$records" -v m="$rss" -v c="$cpu" -v ok="$ok" \
        'BEGIN { printf "%-11s batch %6d  %8d records in %7.2f s = %8.0f claims/s   CPU %6.2f s = %8.0f claims/CPU-s   peak RSS %6.1f MiB   %s\n", l, b, r, e - s, r / (e - s), c, r / c, m / 1024, ok }'
    [[ $ok == ok ]]
}

echo "claims-batch: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), $records records"
for batch in $BATCH_SIZES; do
    rm -f "$work"/names.sqlite*
    run sqlite "sqlite:$work/names.sqlite" "$batch"
done
if [[ -n "${RULESKIT_POSTGRES_URL:-}" ]]; then
    separator=$([[ $RULESKIT_POSTGRES_URL == *\?* ]] && echo '&' || echo '?')
    for batch in $BATCH_SIZES; do
        run postgresql "${RULESKIT_POSTGRES_URL}${separator}schema=bench_$(date +%s%N)_$batch" "$batch"
    done
else
    echo "postgresql  skipped: RULESKIT_POSTGRES_URL is not set (eval \"\$(scripts/postgres start)\"; export RULESKIT_POSTGRES_URL)"
fi
