#!/usr/bin/env bash
# `npm test`: the whole suite.
#   1. unit tests
#   2. integration tests on the embedded PostgreSQL (the default setup)
#   3. the same integration tests on a PostgreSQL server through DATABASE_URL
#      (TEST_SERVER_DATABASE_URL if set; else a throwaway cluster of the
#      machine's PostgreSQL if one is installed; else skipped with a notice)
#   4. end-to-end tests in Chromium against the built app (skipped with a
#      notice when no Chromium is installed, unless CI=true)
# It ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
results=.test-results
rm -rf "$results" && mkdir -p "$results"
status=0
run() { echo; echo "=== $1"; shift; "$@" || status=1; }

run "unit" npx vitest run --project unit --reporter=default --reporter=json --outputFile="$results/unit.json"
# The stall budget measures this process's event loop: it runs alone afterwards,
# so that another test file's CPU on the same two cores does not count as a stall.
stall=test/integration/stall-budget.test.ts
run "integration (embedded PostgreSQL)" env -u DATABASE_URL npx vitest run --project integration --exclude "$stall" \
  --reporter=default --reporter=json --outputFile="$results/integration-embedded.json"
run "stall budget (alone, embedded PostgreSQL)" env -u DATABASE_URL npx vitest run --project integration "$stall" \
  --reporter=default --reporter=json --outputFile="$results/stall-budget.json"

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
  run "integration (PostgreSQL server via DATABASE_URL)" env DATABASE_URL="$server_url" npx vitest run --project integration --exclude "$stall" \
    --reporter=default --reporter=json --outputFile="$results/integration-server.json"
else
  echo; echo "=== integration (PostgreSQL server): skipped, no PostgreSQL server installed (set TEST_SERVER_DATABASE_URL)"
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
  fi
fi

node scripts/summarize-tests.mjs "$results" || status=1
exit $status
