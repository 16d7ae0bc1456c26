#!/usr/bin/env bash
# Times `validate rules verify` (release build) per property and per property file.
#   [VALIDATE=path] Benchmarks/verify-timing.sh [PROPS…]   default: rules/properties/*.props.json
# Each property is run alone (a one-property copy of its file, rules path made absolute), best of
# 3 wall-clock runs; then each whole file, best of 3. Targets (issue 16): ≤ 2 s per property of
# the app's rules, ≤ 10 s per property file. See docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# VALIDATE=path uses an already built binary (e.g. .build/debug/validate) instead.
if [[ -n "${VALIDATE:-}" ]]; then
    bin=$VALIDATE
else
    swift build -c release --product validate >&2
    bin=.build/release/validate
fi
files=("$@")
[[ ${#files[@]} -eq 0 ]] && files=(rules/properties/*.props.json)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best() {  # best wall-clock seconds of 3 runs of "$@"
    local best=""
    for _ in 1 2 3; do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || true
        end=$(date +%s.%N)
        best=$(python3 -c "t=$end-$start; b='$best'; print(f'{min(t, float(b)) if b else t:.3f}')")
    done
    echo "$best"
}
for file in "${files[@]}"; do
    count=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['properties']))" "$file")
    for ((i = 0; i < count; i++)); do
        python3 - "$file" "$i" "$work/p.json" <<'PY'
import json, os, sys
path, index, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = json.load(open(path))
data["rules"] = os.path.abspath(os.path.join(os.path.dirname(path), data["rules"]))
data["properties"] = [data["properties"][index]]
json.dump(data, open(out, "w"))
PY
        name=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['properties'][0]['name'])" "$work/p.json")
        printf '%s\t%s\t%s s\n' "$file" "$name" "$(best "$bin" rules verify "$work/p.json")"
    done
    printf '%s\t(whole file, %s properties)\t%s s\n' "$file" "$count" "$(best "$bin" rules verify "$file")"
done
