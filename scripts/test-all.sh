#!/usr/bin/env bash
# `npm test`: the whole suite.
#   1. unit tests
#   2. integration tests on the embedded PostgreSQL (the default setup)
#   3. the integration files about the database server itself
#      (scripts/server-pass-files.txt, docs/adr/0053) on a PostgreSQL server
#      through DATABASE_URL (TEST_SERVER_DATABASE_URL if set; else a throwaway
#      cluster of the machine's PostgreSQL if one is installed; else skipped
#      with a notice)
#   4. end-to-end tests in Chromium against the built app (skipped with a
#      notice when no Chromium is installed, unless CI=true)
# It ends with the wall time of each pass, then one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
results=.test-results
rm -rf "$results" && mkdir -p "$results"
status=0
# Each pass's wall time in whole seconds ("-" when skipped), "seconds<TAB>pass" a line;
# scripts/summarize-tests.mjs prints them as a table before the closing line.
timings="$results/timings"
record_time() { printf '%s\t%s\n' "$(( SECONDS - $1 ))" "$2" >>"$timings"; }
record_skip() { printf -- '-\t%s\n' "$1" >>"$timings"; }
run() {
  local label=$1 started=$SECONDS; shift
  echo; echo "=== $label"
  "$@" || status=1
  record_time "$started" "$label"
}
# An integration run whose files failed runs those files once more, each on a fresh
# database (every file makes its own): real processes and wall-clock waits on two
# cores can miss once under load, and a genuine defect fails twice. The summary
# names each file that passed only the second time. (Vitest's own per-test retry
# ran a test again on what its first attempt left behind, and often failed on that.)
integration() {
  local started=$SECONDS
  integration_pass "$@"
  record_time "$started" "$1"
}
# One integration pass with its rerun of the failed files (timed by integration above).
# The files of the first run only (all when empty): the rerun names its own.
only_files=()
integration_pass() {
  local label=$1 report=$2; shift 2
  local unhandled="$results/$report.unhandled"
  echo; echo "=== $label"
  VITEST_UNHANDLED_ERRORS_FILE="$unhandled" "$@" "${only_files[@]}" --reporter=default --reporter=json --outputFile="$results/$report.json" \
    --reporter=./scripts/vitest-unhandled-errors.mjs && return
  # An error outside any test (the JSON report does not hold it) is not a file's flake: no rerun.
  if [ "$(cat "$unhandled" 2>/dev/null || echo 1)" != 0 ]; then status=1; return; fi
  local files
  if ! files=$(node scripts/failed-test-files.mjs "$results/$report.json"); then status=1; return; fi
  echo; echo "=== $label: the failed files once more: $files"
  # shellcheck disable=SC2086 # one word per file
  "$@" $files --reporter=default --reporter=json --outputFile="$results/$report.rerun.json" || status=1
}

run "unit" npx vitest run --project unit --reporter=default --reporter=json --outputFile="$results/unit.json"
# A stall budget measures this process's event loop, a CPU budget this process's CPU: the files that hold one
# (named *stall*.test.ts, *cpu-budget*.test.ts) run afterwards, one at a time, so that another test file's
# CPU on the same two cores counts as neither a stall nor this file's cost.
stall='test/integration/*stall*.test.ts'
budget='test/integration/*cpu-budget*.test.ts'
integration "integration (embedded PostgreSQL)" integration-embedded env -u DATABASE_URL npx vitest run --project integration --exclude "$stall" --exclude "$budget"
# The filters are the first run's only: the rerun names just the failed files.
only_files=(stall cpu-budget)
integration "stall and CPU budgets (one file at a time, embedded PostgreSQL)" stall-budget env -u DATABASE_URL npx vitest run --project integration --maxWorkers=1
only_files=()

server_url="${TEST_SERVER_DATABASE_URL:-}"
cluster_dir=""
if [ -z "$server_url" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$pgbin" ] && [ -x "$pgbin/initdb" ]; then
    cluster_dir=$(mktemp -d /tmp/mailroom-pgserver-XXXXXX)
    port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    as_pg=()
    if [ "$(id -u)" = 0 ]; then
      id postgres >/dev/null 2>&1 || useradd -r -m postgres
      chown postgres "$cluster_dir"; chmod 755 "$cluster_dir"
      as_pg=(runuser -u postgres --)
    fi
    "${as_pg[@]}" "$pgbin/initdb" -D "$cluster_dir/data" -U mailroom --auth=trust -E UTF8 >/dev/null
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$cluster_dir/data" -l "$cluster_dir/log" -w \
      -o "-p $port -k $cluster_dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
    server_url="postgres://mailroom@127.0.0.1:$port/postgres"
    echo "Started a throwaway PostgreSQL server ($("$pgbin/postgres" --version)) on port $port"
  fi
fi
if [ -n "$server_url" ]; then
  mapfile -t only_files < <(grep -v '^#' scripts/server-pass-files.txt | grep .)
  for f in "${only_files[@]}"; do [ -f "$f" ] || { echo "scripts/server-pass-files.txt names $f, which does not exist"; status=1; }; done
  integration "integration (PostgreSQL server via DATABASE_URL, the server's own files)" integration-server env DATABASE_URL="$server_url" npx vitest run --project integration
  only_files=()
else
  echo; echo "=== integration (PostgreSQL server): skipped, no PostgreSQL server installed (set TEST_SERVER_DATABASE_URL)"
  record_skip "integration (PostgreSQL server via DATABASE_URL, the server's own files)"
fi
if [ -n "$cluster_dir" ]; then
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$cluster_dir/data" -m fast stop >/dev/null 2>&1
  rm -rf "$cluster_dir"
fi

if [ -f playwright.config.ts ]; then
  if [ -x /usr/bin/chromium ] || [ "${CI:-}" = "true" ]; then
    run "end-to-end (Chromium)" env PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" npx playwright test --reporter=list,json
  else
    echo; echo "=== end-to-end: skipped, /usr/bin/chromium is not installed (apt-get install chromium)"
    record_skip "end-to-end (Chromium)"
  fi
fi

node scripts/summarize-tests.mjs "$results" || status=1
exit $status
