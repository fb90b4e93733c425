#!/usr/bin/env bash
# `npm run test:busy`: the README's test command (`npm test`) with CPU-bound busy loops beside it (BUSY_LOOPS,
# default 2), as on a busy CI machine. Prints the wall time and the 1-minute load average (sampled every 10 s:
# mean and max) and stops exactly the processes it started, by PID. Extra arguments go to vitest.
set -uo pipefail
cd "$(dirname "$0")/../.."
n=${BUSY_LOOPS:-2}
pids=()
samples=$(mktemp)
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -f "$samples"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$n"); do
  node -e 'for (;;) {}' &
  pids+=($!)
done
( while :; do cut -d' ' -f1 /proc/loadavg >>"$samples"; sleep 10; done ) &
pids+=($!)
echo "test:busy: $n busy loops (pids ${pids[*]:0:$n}); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
npm test -- "$@"
rc=$?
wall=$(( $(date +%s) - start ))
load=$(awk '{ s += $1; if ($1 > m) m = $1 } END { if (NR) printf "mean %.1f, max %.1f over %d samples", s / NR, m, NR }' "$samples")
echo "test:busy: npm test exit $rc in $((wall / 60)) min $((wall % 60)) s beside $n busy loops; 1-min load average $load"
exit $rc
