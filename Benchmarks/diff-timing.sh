#!/usr/bin/env bash
# Times `validate rules diff` (release build) on the app's own rules against one-line edits.
#   [VALIDATE=path] Benchmarks/diff-timing.sh
# Each edit changes one line of rules/firestore.rules or rules/storage.rules (a widening, a
# narrowing, an equivalent rewrite); each diff is run 3 times and the best wall-clock time is
# kept with the CPU time (user + system, all threads) of that run; `RULESKIT_DIFF_TIMES=1`
# gives each change's wall-clock time, and the slowest change's best over the runs is kept. Targets (issue 32):
# ≤ 10 s per file, ≤ 2 s per change. See docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n "${VALIDATE:-}" ]]; then
    bin=$VALIDATE
else
    swift build -c release --product validate >&2
    bin=.build/release/validate
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# name|file|sed expression (one line changed)
edits=(
  "firestore: profile get for any signed-in user|rules/firestore.rules|s/allow get: if isOwner(userId);/allow get: if isSignedIn();/"
  "firestore: claim delete without the holder check|rules/firestore.rules|s/allow delete: if isSignedIn() \&\& resource.data.userId == request.auth.uid;/allow delete: if isSignedIn();/"
  "firestore: profile create for any signed-in user|rules/firestore.rules|s/allow create: if isOwner(userId)/allow create: if isSignedIn()/"
  "firestore: profile update for any signed-in user|rules/firestore.rules|s/allow update: if isOwner(userId)/allow update: if isSignedIn()/"
  "firestore: reordered conjuncts in isOwner|rules/firestore.rules|s/return isSignedIn() \&\& request.auth.uid == userId;/return request.auth.uid == userId \&\& isSignedIn();/"
  "storage: pictures up to 10 MiB|rules/storage.rules|s/request.resource.size <= 5 \* 1024 \* 1024/request.resource.size <= 10 * 1024 * 1024/"
  "storage: read signed out|rules/storage.rules|s/allow read: if isSignedIn();/allow read;/"
  "storage: delete closed|rules/storage.rules|s/allow delete: if isOwner(userId);/allow delete: if false;/"
)
printf '| edit | verdict | whole diff (best of 3) | CPU of that run | slowest change | changes compared |\n| --- | --- | ---: | ---: | ---: | ---: |\n'
for entry in "${edits[@]}"; do
    IFS='|' read -r name file expression <<<"$entry"
    edited="$work/$(basename "$file")"
    sed "$expression" "$file" >"$edited"
    if cmp -s "$file" "$edited"; then echo "diff-timing: the edit '$name' does not apply" >&2; exit 1; fi
    best="" cpu="" slowest="" verdict="" count=""
    for _ in 1 2 3; do
        start=$(date +%s.%N)
        RULESKIT_DIFF_TIMES=1 /usr/bin/time -f "cpu %U %S" -o "$work/cpu.txt" "$bin" rules diff "$file" "$edited" --format json >"$work/out.json" 2>"$work/times.txt" || true
        end=$(date +%s.%N)
        run_cpu=$(awk '/^cpu/ { printf "%.2f", $2 + $3 }' "$work/cpu.txt")
        if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(0 if $end-$start < $best else 1)"; then cpu=$run_cpu; fi
        best=$(python3 -c "t=$end-$start; b='$best'; print(f'{min(t, float(b)) if b else t:.2f}')")
        run_slowest=$(awk '/^diff-time/ { if ($2 > m) m = $2 } END { printf "%.2f", m }' "$work/times.txt")
        slowest=$(python3 -c "s='$slowest'; print(min(float(s), $run_slowest) if s else $run_slowest)")
        count=$(grep -c '^diff-time' "$work/times.txt")
        verdict=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['verdict'])" "$work/out.json")
    done
    printf '| %s | %s | %s s | %s s | %s s | %s |\n' "$name" "$verdict" "$best" "$cpu" "$slowest" "$count"
done
