#!/usr/bin/env bash
# The strength estimate against python zxcvbn 4.5.0 on the same 10,000 generated passwords
# (StrengthCorpus, seed 28, with their user inputs): per-password time of each, best of R rounds,
# and the ratio (issue 28's target: at least 100x). Needs the release build and the oracles'
# virtual environment (scripts/bootstrap --with-oracles). Run on an otherwise idle machine,
# pinned to one core:
#
#     swift build -c release --package-path Benchmarks --product ValidatorBenchmark
#     taskset -c 1 Benchmarks/strength-vs-zxcvbn.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
Benchmarks/.build/release/ValidatorBenchmark --write-strength-samples "$samples" >/dev/null
swift_line=$(Benchmarks/.build/release/ValidatorBenchmark --count 1000 --rounds "$rounds" --only StrengthEstimator | grep '^StrengthEstimator')
echo "$swift_line"
swift_ns=$(awk '{print $2}' <<<"$swift_line")
python_ns=$(.venv-oracles/bin/python3 - "$samples" "$rounds" <<'PY'
import json, sys, time
from zxcvbn import zxcvbn
samples = [json.loads(line) for line in open(sys.argv[1])]
zxcvbn("warm-up")
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    for s in samples:
        zxcvbn(s["password"], user_inputs=s["userInputs"])
    best = min(best, (time.perf_counter() - start) / len(samples) * 1e9)
print(f"{best:.1f}")
PY
)
printf 'python zxcvbn 4.5.0 zxcvbn()                  %9.1f ns/op\n' "$python_ns"
awk -v p="$python_ns" -v s="$swift_ns" 'BEGIN { printf "StrengthEstimator vs python zxcvbn: %.0fx faster (target >= 100x)\n", p / s }'
