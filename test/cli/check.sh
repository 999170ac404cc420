#!/usr/bin/env bash
# jfp check (issue 27 item 1): a site laid out as the admin guide says passes with no problem; each
# misconfiguration planted in turn is reported as a PROBLEM with its fix, and the exit status is 1.
# SlurmUser is 'nobody' here: an unprivileged account that owns the site directory, as slurm does at a site.
set -euo pipefail
: "${JFP_BUILDDIR:?run through make check (JFP_BUILDDIR unset)}"
JFP="$JFP_BUILDDIR/tools/jfp"
SO="$JFP_BUILDDIR/plugin/.libs/job_submit_jfp.so"
[ -f "$SO" ] || { echo "SKIP: no plugin built ($SO)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root, to lay out files owned by another user"; exit 77; }
W=$(mktemp -d /tmp/jfp-check.XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
fail() { echo "FAIL: $*" >&2; exit 1; }

built=$(grep -ao 'jfp-built-for-slurm=[0-9.]*' "$SO" | cut -d= -f2)
[ -n "$built" ] || fail "the plugin carries no build marker"
mkdir -p "$W/etc" "$W/plugins" "$W/bin" "$W/site" "$W/root"  # root: where the systemd units are looked for
cp "$SO" "$W/plugins/"
printf '#!/bin/sh\necho "slurm-wlm %s"\n' "$built" >"$W/bin/slurmctld"  # as Debian's slurmctld -V says
printf '#!/bin/sh\necho "slurm 99.11.0"\n' >"$W/bin/slurmctld-other"
# slurmctld compares major.minor.micro: a plugin of 22.05.8 stops a 22.05.9 slurmctld at start.
printf '#!/bin/sh\necho "slurm %s"\n' "$(echo "$built" | awk -F. '{ printf "%s.%s.%d", $1, $2, $3 + 1 }')" >"$W/bin/slurmctld-micro"
chmod 755 "$W/bin/"*
cat >"$W/etc/slurm.conf" <<CONF
ClusterName=check
SlurmUser=nobody
# the plugin list, as a site writes it
JobSubmitPlugins=lua,jfp
PluginDir=$W/plugins
CONF
cat >"$W/etc/jfp.conf" <<CONF
mode = warn
model = $W/site/model.json
store = $W/site/history.db
exempt_users = root
CONF
# A history that ended an hour ago: 600 jobs over ten days, u3's runs of job2 failing.
python3 - >"$W/h.txt" <<'PY'
import datetime
now = datetime.datetime.now().replace(microsecond=0)
print("JobIDRaw|JobID|User|UID|Account|Partition|JobName|Submit|Start|End|State")
for i in range(600):
    s = now - datetime.timedelta(hours=1) - datetime.timedelta(minutes=24 * (600 - i))
    e = s + datetime.timedelta(minutes=5)
    f = lambda d: d.strftime("%Y-%m-%dT%H:%M:%S")
    bad = (i % 10 == 3 and (i // 10) % 3 == 2) or i % 41 == 0
    print(f"{i+1}|{i+1}|u{i%10}|{6000+i%10}|a|batch|job{(i//10)%3}|{f(s)}|{f(s)}|{f(e)}|{'FAILED' if bad else 'COMPLETED'}")
PY
"$JFP" ingest --trusted-export -q --db "$W/site/history.db" "$W/h.txt"
"$JFP" train --db "$W/site/history.db" --out "$W/model.json" --no-progress --nthread 2 >/dev/null
"$JFP" publish "$W/model.json" --conf "$W/etc/jfp.conf" >/dev/null
chown -R nobody:nogroup "$W/site"
chmod 750 "$W/site"
chown root:root "$W/site/model.json"

# check [EXPECTED-RC]: runs jfp check on the layout; its output is in out.txt
check() {
    local want=${1:-0} rc=0
    shift || true
    "$JFP" check --conf "$W/etc/jfp.conf" --slurm-conf "$W/etc/slurm.conf" --slurmctld "${CTLD:-$W/bin/slurmctld}" \
        --root "$W/root" "$@" >"$W/out.txt" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || fail "jfp check exited $rc, expected $want: $(cat "$W/out.txt")"
}
# planted WHAT PROBLEM-TEXT [CHECK-ARGS...]: the layout as it is now gives that PROBLEM, with a fix, exit 1.
planted() {
    local what=$1 text=$2
    shift 2
    check 1 "$@"
    grep -A1 -F "PROBLEM  " "$W/out.txt" | grep -F -- "$text" >/dev/null || fail "$what: no PROBLEM saying '$text': $(cat "$W/out.txt")"
    grep -A1 -F -- "$text" "$W/out.txt" | grep "fix: " >/dev/null || fail "$what: the problem comes without a fix: $(cat "$W/out.txt")"
    echo "ok: $what: $(grep -F -- "$text" "$W/out.txt" | head -n1 | sed 's/^ *//' | cut -c1-150)"
}

check 0
grep -q "jfp check: 0 problems" "$W/out.txt" || fail "the clean layout: $(cat "$W/out.txt")"
grep -q "ok       .*job_submit_jfp.so is built for Slurm $built" "$W/out.txt" || fail "plugin release not confirmed: $(cat "$W/out.txt")"
echo "ok: the admin guide's layout: $(tail -n1 "$W/out.txt")"

sed -i 's/^JobSubmitPlugins=.*/JobSubmitPlugins=lua/' "$W/etc/slurm.conf"
planted "the plugin not listed" "JobSubmitPlugins is 'lua': slurmctld does not load jfp"
sed -i 's/^JobSubmitPlugins=.*/JobSubmitPlugins=lua,jfp/' "$W/etc/slurm.conf"

mv "$W/plugins/job_submit_jfp.so" "$W/plugins/x.so"
planted "the plugin missing" "job_submit_jfp.so is not in PluginDir ($W/plugins)"
mv "$W/plugins/x.so" "$W/plugins/job_submit_jfp.so"
CTLD="$W/bin/slurmctld-other" planted "a plugin of another Slurm release" "is built for Slurm $built, slurmctld is 99.11.0"
CTLD="$W/bin/slurmctld-micro" planted "a plugin of another micro release" "is built for Slurm $built, slurmctld is $(echo "$built" | awk -F. '{ printf "%s.%s.%d", $1, $2, $3 + 1 }')"

chown root "$W/site"
chmod 755 "$W/site"
planted "a site directory SlurmUser cannot write" "SlurmUser nobody cannot create the feature log $W/site/features.db"
chown nobody "$W/site"
chmod 750 "$W/site"

chmod 600 "$W/site/model.json"
planted "a model only root can read" "SlurmUser nobody cannot read the model $W/site/model.json (owned by root, mode 0600)"
chmod 666 "$W/site/model.json"
planted "a model anyone can write" "model: "
chmod 644 "$W/site/model.json"
mv "$W/site/model.json" "$W/site/real.json"
ln -s "$W/site/real.json" "$W/site/model.json"
chown -h 12345 "$W/site/model.json"
planted "a model that is someone's symbolic link" "is a symbolic link owned by uid 12345"
rm "$W/site/model.json"
mv "$W/site/real.json" "$W/site/model.json"

python3 - "$W/site/model.json" "$W/worse.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["kind"] = "rules"; b["rule"] = "user_failure_rate_last10"; b["failure_model"] = None
b.pop("reference_rows", None)
c = b["model_choice"]
for r in c["rules"]:
    c["rules"][r]["pr_auc"] = 0.2
c["rules"]["last_outcome_user_name"]["pr_auc"] = 0.6
json.dump(b, open(sys.argv[2], "w"))
PY
cp "$W/site/model.json" "$W/good.json"
cp "$W/worse.json" "$W/site/model.json"
planted "a model the rules beat" "model: not fit to publish: the rule 'last run of user+name failed' ranks failures better"
cp "$W/good.json" "$W/site/model.json"

chown root "$W/site/history.db"
planted "a store SlurmUser cannot read" "SlurmUser nobody cannot read the store $W/site/history.db"
chown nobody "$W/site/history.db"
planted "a store nothing feeds" "hours ago: nothing is feeding it" --stale-hours 1

# The snapshot slurmctld starts from (jfp ingest wrote it beside the store).
check 0
grep -qF "ok       history snapshot $W/site/history.db.snapshot is usable" "$W/out.txt" || fail "snapshot not confirmed: $(cat "$W/out.txt")"
chown root "$W/site/history.db.snapshot"
planted "a snapshot SlurmUser cannot read" "SlurmUser nobody cannot read the history snapshot $W/site/history.db.snapshot"
chown nobody "$W/site/history.db.snapshot"
printf 'x' >>"$W/site/history.db.snapshot"
check 0
grep -qF "warning  the plugin will not use the history snapshot: $W/site/history.db.snapshot: it has bytes after its zstd frame" "$W/out.txt" ||
    fail "a damaged snapshot not reported: $(cat "$W/out.txt")"
rm "$W/site/history.db.snapshot"
check 0
grep -qF "warning  no history snapshot $W/site/history.db.snapshot: slurmctld replays the store at every start" "$W/out.txt" ||
    fail "a missing snapshot not reported: $(cat "$W/out.txt")"
echo "ok: the history snapshot: usable, unreadable by SlurmUser, damaged, missing"

# Two controllers (issue 36): the files beside StateSaveLocation pass; StateSaveLocation elsewhere (tmpfs,
# another device) makes every local file one each controller keeps for itself.
mkdir -p "$W/state"
printf 'SlurmctldHost=%s(127.0.0.1)\nSlurmctldHost=jfp-backup(127.0.0.2)\nStateSaveLocation=%s\n' "$(hostname -s)" "$W/state" >>"$W/etc/slurm.conf"
check 0
grep -qF "slurm.conf names 2 controllers: $(hostname -s) (primary), jfp-backup (backup); this host is $(hostname -s)" "$W/out.txt" ||
    fail "two controllers not read: $(cat "$W/out.txt")"
store_line=$(grep -F "the store $W/site/history.db is on " "$W/out.txt" || true)
[[ "$store_line" == *"on the same file system as StateSaveLocation"* ]] || fail "the store beside StateSaveLocation: $(cat "$W/out.txt")"
if [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$W")" ]; then
    sed -i "s|^StateSaveLocation=.*|StateSaveLocation=/dev/shm|" "$W/etc/slurm.conf"
    check 0
    log_line=$(grep -F "warning  the feature log $W/site/features.db is on " "$W/out.txt" || true)
    [[ "$log_line" == *"not on StateSaveLocation's file system (/dev/shm)"* ]] || fail "a feature log apart from StateSaveLocation: $(cat "$W/out.txt")"
    echo "ok: two controllers, the files apart from StateSaveLocation: $(grep -F "the feature log $W/site/features.db is on" "$W/out.txt" | sed 's/^ *//' | cut -c1-150)"
else
    echo "note: /dev/shm is on $W's device here: the StateSaveLocation-apart case is left to the unit test"
fi
sed -i '/^SlurmctldHost=/d; /^StateSaveLocation=/d' "$W/etc/slurm.conf"

# A store on a FUSE mount (bindfs), which jfp counts as shared between hosts: in WAL mode it is a problem;
# one ingest as SlurmUser switches it to the rollback journal, and then it is a warning that names the mount.
if command -v bindfs >/dev/null && mkdir -p "$W/fuse" && bindfs "$W/site" "$W/fuse" 2>"$W/bindfs.err"; then
    trap 'fusermount -u "$W/fuse" 2>/dev/null || umount -l "$W/fuse" 2>/dev/null || true; rm -rf "$W"' EXIT
    sed -i "s|^store = .*|store = $W/fuse/history.db|" "$W/etc/jfp.conf"
    [ "$(stat -f -c %t "$W/fuse")" = 65735546 ] || fail "bindfs mounted something that is not FUSE: $(stat -f "$W/fuse")"
    planted "a WAL store on a shared (FUSE) file system" "the store $W/fuse/history.db is on fuse, shared between hosts, in SQLite's WAL mode"
    tail -n 5 "$W/h.txt" | sed '1i JobIDRaw|JobID|User|UID|Account|Partition|JobName|Submit|Start|End|State' >"$W/h5.txt"
    chmod 644 "$W/h5.txt"
    install -D -m 755 "$JFP" "$W/bin-nobody/jfp"  # the build tree may be in a directory only root enters
    runuser -u nobody -- "$W/bin-nobody/jfp" ingest --trusted-export -q --db "$W/fuse/history.db" "$W/h5.txt" 2>"$W/ingest.err" || fail "ingest onto FUSE: $(cat "$W/ingest.err")"
    grep -qF "is on fuse, shared between hosts: jfp keeps it in SQLite's rollback journal" "$W/ingest.err" ||
        fail "the ingest did not say it switched the journal: $(cat "$W/ingest.err")"
    [ "$(head -c 20 "$W/site/history.db" | od -An -tu1 -j18 | tr -s ' ')" = " 1 1" ] || fail "the store is still in WAL mode after the ingest"
    check 0
    grep -A1 -F "warning  the store $W/fuse/history.db is on fuse, shared between hosts: jfp keeps it in SQLite's rollback journal" "$W/out.txt" |
        grep -qF "never 'nolock'" || fail "the store on FUSE, in the rollback journal: $(cat "$W/out.txt")"
    echo "ok: a store on FUSE: $(grep -F "the store $W/fuse/history.db is on" "$W/out.txt" | sed 's/^ *//' | cut -c1-150)"
    sed -i "s|^store = .*|store = $W/site/history.db|" "$W/etc/jfp.conf"
    fusermount -u "$W/fuse" || umount -l "$W/fuse"
    trap 'rm -rf "$W"' EXIT
else
    echo "SKIP (part): no FUSE mount here ($(cat "$W/bindfs.err" 2>/dev/null)): the store on a shared file system is left to the unit test"
fi

echo "exempt_users = root, nosuchuser" >>"$W/etc/jfp.conf"
planted "an exemption naming no one" "exempt_users names 'nosuchuser', who has no account here"
sed -i '/nosuchuser/d' "$W/etc/jfp.conf"
# decide_by = waste with no budget in jfp.conf or the bundle: said, with what to do.
cp -p "$W/site/model.json" "$W/model.keep.json"
python3 - "$W/site/model.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b.setdefault("waste_choice", {}).pop("budget", None)
json.dump(b, open(sys.argv[1], "w"))
PY
echo "decide_by = waste" >>"$W/etc/jfp.conf"
check 0
said=$(grep -A1 -F "warning  decide_by = waste, but no waste budget" "$W/out.txt" || true)
grep -qF "fix: set waste_budget in jfp.conf" <<<"$said" || fail "decide_by = waste without a budget: $(cat "$W/out.txt")"
echo "waste_budget = 100" >>"$W/etc/jfp.conf"
check 0
! grep -qF "no waste budget" "$W/out.txt" || fail "a budget in jfp.conf is a budget: $(cat "$W/out.txt")"
sed -i '/^decide_by = waste$/d; /^waste_budget = 100$/d' "$W/etc/jfp.conf"
cp -p "$W/model.keep.json" "$W/site/model.json"
echo "ok: decide_by = waste without a budget is said"
echo "mode = loud" >>"$W/etc/jfp.conf"
planted "a jfp.conf that does not parse" "mode"
sed -i '/mode = loud/d' "$W/etc/jfp.conf"
chmod 775 "$W/etc"
chgrp 100 "$W/etc"
planted "a directory above jfp.conf others can write" "the directory $W/etc above the jfp.conf is owned by root, mode 0775"
chmod 755 "$W/etc"

# The shipped units, installed as the package installs them: not enabled, nothing to say but that.
U="$W/root/usr/lib/systemd/system"
E="$W/root/etc/systemd/system"
mkdir -p "$U" "$E"
for f in "$JFP_SRCDIR"/debian/jfp.jfp-*.service "$JFP_SRCDIR"/debian/jfp.jfp-*.timer; do
    cp "$f" "$U/$(basename "$f" | sed 's/^jfp\.//')"
done
check 0
grep -q "ok       jfp-prune.timer is installed, not enabled" "$W/out.txt" || fail "installed units: $(cat "$W/out.txt")"
# Enabled (systemctl enable: links in .wants/), they run as User=slurm, with a private /tmp, and write only
# ReadWritePaths=/var/lib/jfp; this site's SlurmUser is nobody and its files are in $W/site, under /tmp.
NOGROUP=$(id -gn nobody)
mkdir -p "$E/multi-user.target.wants" "$E/timers.target.wants"
ln -s /usr/lib/systemd/system/jfp-ingest.service "$E/multi-user.target.wants/"
ln -s /usr/lib/systemd/system/jfp-prune.timer /usr/lib/systemd/system/jfp-retrain.timer "$E/timers.target.wants/"
planted "a unit running as another user than SlurmUser" "jfp-ingest.service runs as slurm, and SlurmUser is nobody"
grep -A1 -F "jfp-ingest.service runs as slurm" "$W/out.txt" |
    grep -qF "fix: systemctl edit jfp-ingest.service, and under [Service] set User=nobody and Group=$NOGROUP" ||
    fail "no drop-in fix for the ingest unit's user: $(cat "$W/out.txt")"
planted "a store under the units' private /tmp" \
    "jfp-ingest.service cannot write in $W/site (the store): PrivateTmp= gives the unit an empty /tmp of its own"
planted "a feature log under the units' private /tmp" "jfp-prune.service cannot write in $W/site (the feature log): PrivateTmp="
planted "the retrain unit's model under the private /tmp" "jfp-retrain.service cannot write in $W/site (the model): PrivateTmp="
grep -q "ok       jfp-monitor.timer is installed, not enabled" "$W/out.txt" || fail "the monitor timer: $(cat "$W/out.txt")"
# systemctl edit writes /etc/systemd/system/UNIT.d/override.conf; a vendor drop-in of the same name is
# overridden by it. The user mended (numerically), and /tmp shared: the strict file system still hides the site.
mkdir -p "$U/jfp-ingest.service.d"
printf '[Service]\nUser=root\n' >"$U/jfp-ingest.service.d/override.conf"
for u in jfp-ingest jfp-prune jfp-retrain; do
    mkdir -p "$E/$u.service.d"
    printf '[Service]\nUser=%s\nGroup=%s\nPrivateTmp=no\n' "$(id -u nobody)" "$NOGROUP" >"$E/$u.service.d/override.conf"
done
planted "the ingest unit's read-only file system" \
    "jfp-ingest.service cannot write in $W/site (the store): ProtectSystem=strict makes every directory read-only but ReadWritePaths= (/var/lib/jfp)"
grep -A1 -F "jfp-ingest.service cannot write in $W/site (the store)" "$W/out.txt" |
    grep -qF "fix: systemctl edit jfp-ingest.service, and under [Service] set ReadWritePaths=$W/site" ||
    fail "no drop-in fix for the ingest unit's paths: $(cat "$W/out.txt")"
! grep -q "runs as .*SlurmUser is" "$W/out.txt" || fail "User=$(id -u nobody) is SlurmUser nobody, or the vendor drop-in won: $(cat "$W/out.txt")"
for u in jfp-ingest jfp-prune jfp-retrain; do
    echo "ReadWritePaths=$W/site" >>"$E/$u.service.d/override.conf"
done
# A ReadWritePaths= directory that does not exist stops the unit at start (looked for under --root).
planted "a ReadWritePaths= directory that does not exist" \
    "jfp-ingest.service: ReadWritePaths=/var/lib/jfp does not exist: systemd does not start the unit (status 226/NAMESPACE)"
grep -A1 -F "jfp-ingest.service: ReadWritePaths=/var/lib/jfp does not exist" "$W/out.txt" |
    grep -qF "fix: install -d -o nobody -g $NOGROUP -m 750 /var/lib/jfp" || fail "no fix for the missing directory: $(cat "$W/out.txt")"
mkdir -p "$W/root/var/lib/jfp" "$W/root$W/site"
check 0
grep -q "ok       jfp-prune.timer is enabled: jfp-prune.service runs as $(id -u nobody) and may write in $W/site" "$W/out.txt" ||
    fail "the mended prune unit: $(cat "$W/out.txt")"
grep -q "ok       jfp-ingest.service is enabled: it runs as $(id -u nobody) and may write in $W/site" "$W/out.txt" ||
    fail "the mended ingest unit: $(cat "$W/out.txt")"
echo "ok: the drop-ins the fixes name mend the units: $(grep -m1 'jfp-ingest.service is enabled' "$W/out.txt" | sed 's/^ *//')"
# An empty ReadWritePaths= resets the list, as in systemd: a later drop-in that clears it is a problem again.
printf '[Service]\nReadWritePaths=\n' >"$E/jfp-ingest.service.d/zz-reset.conf"
planted "a drop-in that resets ReadWritePaths=" \
    "jfp-ingest.service cannot write in $W/site (the store): ProtectSystem=strict makes every directory read-only but ReadWritePaths= (none)"
rm "$E/jfp-ingest.service.d/zz-reset.conf"
# A masked service whose timer is enabled never runs.
ln -s /dev/null "$E/jfp-prune.service"
planted "an enabled timer of a masked service" "jfp-prune.timer is enabled, but jfp-prune.service is masked: it never runs"
rm "$E/jfp-prune.service"
check 0
echo "ok: restored, no problem"
echo "PASS"
