#!/usr/bin/env bash
# Times the batch CLI against reference tools on generated corpora, in one run, and prints ratios.
#
#   validate display-name --format summary  vs  grep -cP '<display-name pattern>'   (9 M lines; target >= 2x)
#   validate display-name --format jsonl    vs  grep -cP '<display-name pattern>'   (9 M lines; target >= 1x)
#   validate email --format summary         vs  Python email-validator 2.x          (1 M lines; target >= 100x)
#
# Best of RUNS (default 3) wall-clock runs each; release build; corpora from scripts/generate-corpus
# (fixed seed). Also times the engine alone (batch-engine-bench: grep's pattern as the only check)
# and reports peak RSS (/usr/bin/time -v) for the summary run.
# Usage: Benchmarks/compare-cli.sh            (RUNS=5 Benchmarks/compare-cli.sh for more runs)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
NAMES=corpus/generated/display-names.txt
EMAILS=corpus/generated/emails.txt
PATTERN='^(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9._]{3,30}$'
export LC_ALL=C.UTF-8

[[ -f $NAMES && -f $EMAILS ]] || scripts/generate-corpus
swift build -c release --product validate >&2
swift build -c release --product batch-engine-bench >&2
VALIDATE=.build/release/validate
ENGINE=.build/release/batch-engine-bench
python3 -c 'import email_validator' 2>/dev/null || python3 -m pip install -q email-validator >&2 \
    || python3 -m pip install -q --break-system-packages email-validator >&2

# best_of CMD...: prints the best wall-clock seconds of $RUNS runs. Output goes to a scratch
# file, not /dev/null: GNU grep stops at the first match when its output is /dev/null.
SCRATCH=$(mktemp)
trap 'rm -f "$SCRATCH"' EXIT
best_of() {
    local best="" start end elapsed
    for _ in $(seq "$RUNS"); do
        start=$(date +%s.%N)
        "$@" > "$SCRATCH" 2>&1 || true
        end=$(date +%s.%N)
        elapsed=$(echo "$end - $start" | bc -l)
        if [[ -z $best ]] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
    done
    printf '%.3f' "$best"
}

grep_count() { grep -cP "$PATTERN" "$NAMES"; }
validate_summary() { "$VALIDATE" display-name --quiet --format summary "$NAMES"; }
validate_jsonl() { "$VALIDATE" display-name --quiet --format jsonl "$NAMES"; }
engine_summary() { "$ENGINE" "$NAMES" summary; }
validate_email() { "$VALIDATE" email --quiet --format summary "$EMAILS"; }
python_email() {
    python3 - "$EMAILS" <<'PY'
import sys
from email_validator import validate_email, EmailNotValidError
valid = invalid = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        try:
            validate_email(line.rstrip("\n"), check_deliverability=False)
            valid += 1
        except EmailNotValidError:
            invalid += 1
print(valid, invalid)
PY
}

echo "machine: $(nproc) cores, $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "inputs: $(wc -l < "$NAMES") display names ($(stat -c %s "$NAMES") bytes), $(wc -l < "$EMAILS") emails"
echo "checks: grep valid=$(grep_count); validate: $("$VALIDATE" display-name --quiet --format summary-json "$NAMES" | cut -c1-60)"

t_grep=$(best_of grep_count)
t_summary=$(best_of validate_summary)
t_jsonl=$(best_of validate_jsonl)
t_engine=$(best_of engine_summary)
t_email=$(best_of validate_email)
t_python=$(RUNS=1; best_of python_email)

ratio() { echo "scale=2; $1 / $2" | bc -l; }
printf '%-46s %8ss\n' "grep -cP (display names)" "$t_grep"
printf '%-46s %8ss  %sx grep (target >= 2)\n' "validate display-name --format summary" "$t_summary" "$(ratio "$t_grep" "$t_summary")"
printf '%-46s %8ss  %sx grep (target >= 1)\n' "validate display-name --format jsonl" "$t_jsonl" "$(ratio "$t_grep" "$t_jsonl")"
printf '%-46s %8ss  %sx grep (engine alone, one PCRE2 match per record)\n' "batch-engine-bench summary (same pattern)" "$t_engine" "$(ratio "$t_grep" "$t_engine")"
printf '%-46s %8ss\n' "python email-validator (1 run)" "$t_python"
printf '%-46s %8ss  %sx email-validator (target >= 100)\n' "validate email --format summary" "$t_email" "$(ratio "$t_python" "$t_email")"

rss=$( { /usr/bin/time -v "$VALIDATE" display-name --quiet --format summary "$NAMES" > /dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
echo "peak RSS, display-name summary over $(stat -c %s "$NAMES") bytes: $((rss / 1024)) MiB"
