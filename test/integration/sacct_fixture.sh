#!/usr/bin/env bash
# Regenerates the real sacct fixture on a throwaway cluster and checks that jfp reads it exactly as it
# reads the checked-in copy (test/fixtures/sacct_22.05.txt): same jobs, same outcomes, nothing bad.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

export JFP_JOB_SUBMIT_PLUGINS=""   # the fixture is about accounting, not the plugin
cluster_start
fresh="$CLUSTER_DIR/sacct_fresh.txt"
"$JFP_SRCDIR/test/fixtures/make-sacct-fixture" "$fresh"

summary() {  # outcomes per job name as the store reads them
    local db=$1
    sqlite3 "$db" "SELECT name || ' ' || state || ' ' || outcome FROM jobs WHERE user IS NOT NULL ORDER BY name, job_key"
}
"$JFP" ingest --strict --db "$CLUSTER_DIR/fresh.db" "$fresh" || fail "ingesting the fresh export reported bad lines"
"$JFP" ingest --strict --db "$CLUSTER_DIR/fixture.db" "$JFP_SRCDIR/test/fixtures/sacct_22.05.txt" \
    || fail "ingesting the checked-in fixture reported bad lines"
got=$(summary "$CLUSTER_DIR/fresh.db")
want=$(summary "$CLUSTER_DIR/fixture.db")
note "fresh export:"; echo "$got" | sed 's/^/#   /'
[ "$got" = "$want" ] || fail "the fresh export differs from the fixture:
$(diff <(echo "$want") <(echo "$got"))"
for s in COMPLETED FAILED TIMEOUT CANCELLED; do
    echo "$got" | grep -q " $s " || fail "no $s job in the fresh export"
done
