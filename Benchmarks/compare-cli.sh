#!/usr/bin/env bash
# Times the batch CLI against reference tools on generated corpora, in one run, and prints ratios.
#
#   validate display-name --format summary  vs  grep -cP '<display-name pattern>'   (9 M lines; target >= 2x)
#   validate display-name --format jsonl    vs  grep -cP '<display-name pattern>'   (9 M lines; target >= 1x)
#   validate email --format summary         vs  Python email-validator 2.x          (1 M lines; target >= 100x)
#
# Best of RUNS (default 3) wall-clock runs each; release build; corpora from scripts/generate-corpus
# (fixed seed). Also times the engine alone (BatchEngineBenchmark: grep's pattern as the only check)
# and reports peak RSS (/usr/bin/time -v) for the summary run.
# Usage: Benchmarks/compare-cli.sh            (RUNS=5 Benchmarks/compare-cli.sh for more runs)
# With VALIDATE_BUILT=1, VALIDATE=PATH and ENGINE=PATH name binaries built already (no build);
# PYTHON=PATH names the python with email-validator (a virtual environment's, say).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
NAMES=${NAMES:-corpus/generated/display-names.txt}
EMAILS=${EMAILS:-corpus/generated/emails.txt}
PATTERN='^(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9._]{3,30}$'
export LC_ALL=C.UTF-8

[[ -f $NAMES && -f $EMAILS ]] || scripts/generate-corpus
VALIDATE=${VALIDATE:-.build/release/validate}
ENGINE=${ENGINE:-Benchmarks/.build/release/BatchEngineBenchmark}
if [[ -z ${VALIDATE_BUILT:-} ]]; then
    swift build -c release --product validate >&2
    swift build -c release --package-path Benchmarks --product BatchEngineBenchmark >&2
fi
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import email_validator' 2>/dev/null || "$PYTHON" -m pip install -q email-validator >&2 \
    || "$PYTHON" -m pip install -q --break-system-packages email-validator >&2

# best_of CMD...: sets WALL to the best wall-clock seconds of $RUNS runs and CPU to that run's
# CPU seconds (user + system), each run after a sync; no subshell, so the EXIT trap's cleanup runs only once. Output goes to a scratch file, not /dev/null: GNU grep stops at
# the first match when its output is /dev/null.
SCRATCH=$(mktemp)
TIMES=$(mktemp)
trap 'rm -f "$SCRATCH" "$TIMES"' EXIT
best_of() {
    local best="" cpu="" wall used
    for _ in $(seq "$RUNS"); do
        # Each run starts with nothing left to write back: the last JSONL run's gigabyte would
        # otherwise be flushed by the kernel during this one.
        : > "$SCRATCH"
        sync
        /usr/bin/time -f "%e %U %S" -o "$TIMES" "$@" > "$SCRATCH" 2>/dev/null || true
        wall=$(cut -d' ' -f1 "$TIMES" | tail -n 1)
        used=$(awk 'END {print $2 + $3}' "$TIMES")
        if [[ -z $best ]] || (( $(echo "$wall < $best" | bc -l) )); then best=$wall; cpu=$used; fi
    done
    WALL=$(printf '%.2f' "$best")
    CPU=$(printf '%.2f' "$cpu")
}

PYTHON_EMAIL=$(mktemp --suffix=.py)
trap 'rm -f "$SCRATCH" "$TIMES" "$PYTHON_EMAIL"' EXIT
cat > "$PYTHON_EMAIL" <<'PY'
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

echo "machine: $(nproc) cores, $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "inputs: $(wc -l < "$NAMES") display names ($(stat -c %s "$NAMES") bytes), $(wc -l < "$EMAILS") emails"
echo "checks: grep valid=$(grep -cP "$PATTERN" "$NAMES"); validate: $("$VALIDATE" display-name --quiet --format summary-json "$NAMES" | cut -c1-60)"

best_of grep -cP "$PATTERN" "$NAMES"; t_grep=$WALL c_grep=$CPU
best_of "$VALIDATE" display-name --quiet --format summary "$NAMES"; t_summary=$WALL c_summary=$CPU
best_of "$VALIDATE" display-name --quiet --format jsonl "$NAMES"; t_jsonl=$WALL c_jsonl=$CPU
best_of "$ENGINE" "$NAMES" summary; t_engine=$WALL c_engine=$CPU
best_of "$VALIDATE" email --quiet --format summary "$EMAILS"; t_email=$WALL c_email=$CPU
RUNS=1 best_of "$PYTHON" "$PYTHON_EMAIL" "$EMAILS"; t_python=$WALL c_python=$CPU

ratio() { echo "scale=2; $1 / $2" | bc -l; }
row() { printf '%-44s %7ss wall %7ss cpu  %s\n' "$1" "$2" "$3" "$4"; }
row "grep -cP (display names)" "$t_grep" "$c_grep" ""
row "validate display-name --format summary" "$t_summary" "$c_summary" "$(ratio "$t_grep" "$t_summary")x grep (target >= 2)"
row "validate display-name --format jsonl" "$t_jsonl" "$c_jsonl" "$(ratio "$t_grep" "$t_jsonl")x grep (target >= 1)"
row "BatchEngineBenchmark summary (same pattern)" "$t_engine" "$c_engine" "$(ratio "$t_grep" "$t_engine")x grep (engine alone, one PCRE2 match per record)"
row "python email-validator (1 run)" "$t_python" "$c_python" ""
row "validate email --format summary" "$t_email" "$c_email" "$(ratio "$t_python" "$t_email")x email-validator (target >= 100)"

rss=$( { /usr/bin/time -v "$VALIDATE" display-name --quiet --format summary "$NAMES" > /dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
echo "peak RSS, display-name summary over $(stat -c %s "$NAMES") bytes: $((rss / 1024)) MiB"
