#!/usr/bin/env bash
# Times the batch CLI on the shipped packs and on the shipped packs plus one custom rule of each
# kind (and a generated 40-rule display-name pack), in one run, and prints each ratio to the
# shipped pack's time: the cost of a team's own rule (docs/BENCHMARKS.md, "Custom rules").
#
#   display names (9 M): + must-not-match '__', + must-match '[A-Za-z].*', + list, + length,
#                        and a generated pack of 40 rules (target: each single rule <= 1.3x,
#                        the 40-rule pack <= 3x)
#   emails (1 M):        + list on ascii-domain, + must-not-match '[+]' on address (<= 1.3x)
#
# Best of RUNS (default 3) wall-clock runs each, release build, --format summary, corpora from
# scripts/generate-corpus. With BASELINE=PATH (another build's `validate`), the same runs of that
# binary follow, for a before/after in the same minute.
# Usage: Benchmarks/custom-packs.sh     (RUNS=5 BASELINE=../base/.build/release/validate …)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
NAMES=${NAMES:-corpus/generated/display-names.txt}
EMAILS=${EMAILS:-corpus/generated/emails.txt}
VALIDATE=${VALIDATE:-.build/release/validate}
export LC_ALL=C.UTF-8

[[ -f $NAMES && -f $EMAILS ]] || scripts/generate-corpus
[[ -n ${VALIDATE_BUILT:-} ]] || swift build -c release --product validate >&2

PACKS=$(mktemp -d)
TIMES=$(mktemp)
trap 'rm -rf "$PACKS" "$TIMES"' EXIT

# pack NAME FIELD RULE-YAML: a directory holding one extra pack (and a small list file).
pack() {
    mkdir -p "$PACKS/$1"
    printf 'blocked\nbanned\nexample.net\ncorp.example.net\n' > "$PACKS/$1/extra.txt"
    printf 'pack: extra\nfield: %s\nrules:\n%s\n' "$2" "$3" > "$PACKS/$1/extra.yaml"
}
pack dn-must-not-match display-name "  - {id: extra.underscores, code: X1, kind: must-not-match, pattern: '__', message: m}"
pack dn-must-match display-name "  - {id: extra.letter-first, code: X1, kind: must-match, pattern: '[A-Za-z].*', message: m}"
pack dn-list display-name "  - {id: extra.blocked, code: X1, kind: list, file: extra.txt, key: canonical, message: m}"
pack dn-length display-name "  - {id: extra.short, code: X1, kind: length, unit: code-points, max: 24, message: m}"
pack em-list email "  - {id: extra.blocked-domain, code: X1, kind: list, on: ascii-domain, file: extra.txt, key: canonical, message: m}"
pack em-must-not-match email "  - {id: extra.no-plus, code: X1, kind: must-not-match, on: address, pattern: '[+]', message: m}"
# 40 generated rules: substrings, classes, anchors and counted repeats, a list and two lengths.
mkdir -p "$PACKS/dn-generated-40"
python3 - "$PACKS/dn-generated-40" <<'PY'
import random, sys
rng = random.Random(40)
rules = []
words = ["admin", "root", "test", "null", "void", "sys", "mod", "bot", "spam", "fake", "xxx", "zzz"]
for i in range(36):
    kind = rng.choice(["word", "class-run", "anchor", "pair"])
    if kind == "word":
        pattern = rng.choice(words) + rng.choice(["", "[0-9]", "_"])
    elif kind == "class-run":
        pattern = "[%s]{%d}" % (rng.choice(["0-9", "A-Z", "xyz", "._"]), rng.randint(3, 6))
    elif kind == "anchor":
        pattern = rng.choice([r"\A[0-9]", r"[0-9]\z", r"\A_", r"_\z", r"\A(?:xx|yy)"])
    else:
        pattern = rng.choice(["a" + "[^a]", "q[^u]", "([a-z])x", "[._][0-9]{2}"])
    rules.append("  - {id: gen.r%d, code: G%d, kind: must-not-match, pattern: '%s', message: m}" % (i, 100 + i, pattern))
rules.append("  - {id: gen.letters, code: G200, kind: must-match, pattern: '[A-Za-z0-9._]*[A-Za-z0-9]', message: m}")
rules.append("  - {id: gen.list, code: G201, kind: list, file: extra.txt, key: lookalike, message: m}")
rules.append("  - {id: gen.min, code: G202, kind: length, unit: code-points, min: 4, message: m}")
rules.append("  - {id: gen.max, code: G203, kind: length, unit: utf8-octets, max: 28, message: m}")
open(sys.argv[1] + "/gen.yaml", "w").write("pack: generated\nfield: display-name\nrules:\n" + "\n".join(rules) + "\n")
open(sys.argv[1] + "/extra.txt", "w").write("admin\nroot\nsupport\n")
PY

best_of() {
    local best=""
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e" -o "$TIMES" "$@" > /dev/null 2>&1 || true
        local wall
        wall=$(tail -n 1 "$TIMES")
        if [[ -z $best ]] || (( $(echo "$wall < $best" | bc -l) )); then best=$wall; fi
    done
    WALL=$(printf '%.2f' "$best")
}
ratio() { echo "scale=2; $1 / $2" | bc -l; }

run_all() {
    local binary=$1 label=$2
    best_of "$binary" display-name --quiet --format summary "$NAMES"; local dn=$WALL
    printf '%-10s %-40s %6ss\n' "$label" "display names, shipped" "$dn"
    for variant in dn-must-not-match dn-must-match dn-list dn-length dn-generated-40; do
        best_of "$binary" display-name --quiet --format summary --rules "$PACKS/$variant" "$NAMES"
        printf '%-10s %-40s %6ss  %sx shipped\n' "$label" "display names, $variant" "$WALL" "$(ratio "$WALL" "$dn")"
    done
    best_of "$binary" email --quiet --format summary "$EMAILS"; local em=$WALL
    printf '%-10s %-40s %6ss\n' "$label" "emails, shipped" "$em"
    for variant in em-list em-must-not-match; do
        best_of "$binary" email --quiet --format summary --rules "$PACKS/$variant" "$EMAILS"
        printf '%-10s %-40s %6ss  %sx shipped\n' "$label" "emails, $variant" "$WALL" "$(ratio "$WALL" "$em")"
    done
}

echo "machine: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ)"
run_all "$VALIDATE" "this"
if [[ -n ${BASELINE:-} ]]; then run_all "$BASELINE" "baseline"; fi
