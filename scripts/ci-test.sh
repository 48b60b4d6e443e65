#!/usr/bin/env bash
# npm test, then the plain closing line CI reads ("tests: N passed, N failed"), taken from the runner's tap summary
# ("# { total: N, pass: P, fail: F }"). When npm test dies before its summary the line says so and the exit is
# non-zero: a "0 passed, 0 failed" would read as a pass.
set -uo pipefail
log=$(mktemp)
status=0
npm test 2>&1 | tee "$log" || status=$?
summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -1 || true)
rm -f "$log"
if [ -z "$summary" ]; then
  echo "tests: npm test failed before its summary (exit $status)"
  [ "$status" -ne 0 ] || status=1
else
  pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
  fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
  echo "tests: ${pass:-0} passed, ${fail:-0} failed"
fi
exit "$status"
