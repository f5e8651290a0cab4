#!/usr/bin/env bash
# Search time and predicted runtime of every example with all of the search's tricks, with each
# of freezing, hierarchical sampling, memoization and the final coordinate descent (polish) turned
# off, and with all four off.
# Prints a markdown table (ratios are within this one run, so machine noise mostly cancels).
#   scripts/bench/search_ablation.sh [APP...]      (default: every example)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
hlsched=${HLSCHED:-$here/build/bin/hlsched}
apps=("$@")
if ((${#apps[@]} == 0)); then
  for d in "$here"/examples/*/; do apps+=("$(basename "$d")"); done
fi
configs=("" "--no-freeze" "--no-sampling" "--no-memo" "--no-polish" "--no-freeze --no-sampling --no-memo --no-polish")
names=("all tricks" "no freeze" "no sampling" "no memo" "no polish" "none")

measure() {  # app, flags -> "time_ms predicted_ms states"
  # shellcheck disable=SC2086
  "$hlsched" schedule "$here/examples/$1/$1_generator.cpp" --json --work-budget 600 --time-budget 600 --timeout 900 $2 |
    python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["search"]; print("%.0f %.4f %d" % (s["time_ms"], d["predicted_runtime_ms"], s["states_evaluated"]))'
}

echo "| app | $(IFS='|'; echo "${names[*]}" | sed 's/|/ ms (pred) | /g') ms (pred) | speed-up of tricks | pred. ratio (tricks/none) |"
echo "|---|---|---|---|---|---|---|---|---|"
for app in "${apps[@]}"; do
  row="| $app |"
  first_t="" first_p="" last_t="" last_p=""
  for i in "${!configs[@]}"; do
    read -r t p s < <(measure "$app" "${configs[$i]}")
    row+=" $t ($p) |"
    if ((i == 0)); then first_t=$t first_p=$p; fi
    last_t=$t last_p=$p
  done
  ratio=$(python3 -c "print('%.1fx' % ($last_t / max($first_t, 1)))")
  pred=$(python3 -c "print('%.3f' % ($first_p / $last_p))")
  echo "$row $ratio | $pred |"
done
