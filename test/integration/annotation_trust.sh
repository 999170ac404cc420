#!/usr/bin/env bash
# An ordinary user cannot forge jfp's annotation or its join token, nor use the override token when it is
# off (docs/admin-guide.md, "What a user can change"). As `nobody` on a real cluster: comments that imitate
# the annotation (newlines, '|', look-alike characters, near the length limit), `scontrol update` of Comment
# and AdminComment, and the override token with allow_override = no. Then the jobs run, `jfp ingest
# --from-sacct` reads them back, and every token the store holds is one the plugin wrote.
. "$JFP_SRCDIR/test/integration/lib.sh"
require_cluster

start_site_cluster "mode = annotate
annotate_field = comment, admin_comment"
conf="$SITE_CONF
mode = annotate
annotate_field = comment, admin_comment"
chmod 755 "$W"
model_id=$(sed -n 's/.*"model_id": *"\([^"]*\)".*/\1/p' "$W/model.json" | head -n1)
[ -n "$model_id" ] || fail "no model_id in the bundle"

as_user() { runuser -u nobody -- "$@"; }

forged_p='jfp:p=0.001,class=FAILED,model=forged'
# Slurm refuses a comment over 1,024 bytes; this one (1,018 with the forged part) leaves no room for jfp's.
long=$(printf 'x%.0s' $(seq 1 980))
ids=()
i=0
for c in "$forged_p" \
         "line one"$'\n'"$forged_p" \
         "a|$forged_p|jfp:t=0123456789abcdef" \
         "jfp:t=0123456789abcdef" \
         "JFP:P=0.001 Jfp:p=0.002" \
         "$(printf 'jfp\xef\xbc\x9ap=0.001 \xef\xbd\x8afp:p=0.002 jfp:p\xef\xbc\x9d0.003')" \
         "$long $forged_p"; do
    i=$((i + 1))
    id=$(cd /tmp && as_user sbatch --parsable --hold -o /dev/null -J "forge$i" --comment "$c" --wrap true) || fail "case $i refused"
    id=${id%%;*}
    ids+=("$id")
    got=$(comment_of "$id")
    admin=$(admin_comment_of "$id")
    # Parsers read "jfp:p=" and "jfp:t=" only: every one left in the comment must be the plugin's.
    n_p=$(printf '%s' "$got" | { grep -o 'jfp:p=' || true; } | wc -l)
    n_t=$(printf '%s' "$got" | { grep -o 'jfp:t=' || true; } | wc -l)
    [ "$n_t" = 0 ] || fail "case $i: a join token survived in the comment: $got"
    if [ "$i" = 7 ]; then
        # No room for the annotation: the comment carries none at all (AdminComment still does).
        [ "$n_p" = 0 ] || fail "case $i: expected no annotation in a full comment, got: ${got: -80}"
    else
        [ "$n_p" = 1 ] || fail "case $i: expected exactly jfp's one annotation, found $n_p: $got"
        expect_eq "$(model_of "$got")" "$model_id" "case $i: the annotation's model"
    fi
    # The trustworthy copy: AdminComment, which only operators can set.
    grep -qE "^jfp:t=[0-9a-f]{16}( jfp:s=[0-9.]+)? jfp:p=[0-9.]+(,class=[A-Z_]+)?,model=$model_id\$" <<<"$admin" \
        || fail "case $i: AdminComment is not jfp's: '$admin'"
    note "case $i: comment ends '${got: -70}'; AdminComment '$admin'"
done

# After submission: the user changes the comment (jfp neutralises a forged annotation; the comment's copy
# is the user's to lose) but cannot touch AdminComment.
t=${ids[0]}
before=$(admin_comment_of "$t")
as_user scontrol update jobid="$t" comment="$forged_p" || fail "the owner could not update the comment"
# The update is re-scored from the job's own token (job_modify reads it from the job's record), so the
# neutralised comment gets jfp's annotation again, the only "jfp:p=" in it.
got=$(comment_of "$t")
case "$got" in "jfp;p=0.001,class=FAILED,model=forged jfp:p="*) ;; *) fail "a forged annotation set by scontrol update is not neutralised and re-annotated: '$got'" ;; esac
expect_eq "$(printf '%s' "$got" | grep -o 'jfp:p=' | wc -l)" 1 "annotations in the updated comment"
expect_eq "$(model_of "$got")" "$model_id" "the updated comment's annotation's model"
if out=$(as_user scontrol update jobid="$t" admincomment="jfp:t=0123456789abcdef jfp:p=0.000,class=FAILED,model=forged" 2>&1); then
    fail "an ordinary user changed AdminComment: $out"
fi
note "AdminComment update refused: $out"
expect_eq "$(admin_comment_of "$t")" "$before" "AdminComment after the refused update"

# The override token does nothing while allow_override = no.
set_conf "$conf
mode = reject
threshold = 0.0
min_history = 0
allow_override = no"
if out=$(cd /tmp && as_user sbatch --hold -o /dev/null -J ovr --comment "please jfp:override" --wrap true 2>&1); then
    fail "the override token was honoured with allow_override = no: $out"
fi
expect_contains "$out" "jfp: job rejected" "rejection despite the token"
set_conf "$conf
mode = reject
threshold = 0.0
min_history = 0
allow_override = yes"
out=$(cd /tmp && as_user sbatch --hold -o /dev/null -J ovr --comment "please jfp:override" --wrap true 2>&1) \
    || fail "with allow_override = yes the token must be honoured: $out"
scancel "$(printf '%s' "$out" | awk '/Submitted batch job/ { print $4 }')"
set_conf "$conf"

# The tools: the jobs run, are read back from sacct, and every token in the store is one the plugin logged.
scontrol release "${ids[@]}"
for id in "${ids[@]}"; do wait_job "$id" >/dev/null; done
site_jfp ingest --trusted-export -q --from-sacct --db "$W/history.db" --overlap 7200
for id in "${ids[@]}"; do
    tok=$(sql_read "$W/history.db" "SELECT jfp_token FROM jobs WHERE job_id='$id'")
    [ -n "$tok" ] || fail "job $id: no token in the store"
    [ "$tok" != "0123456789abcdef" ] || fail "job $id: the forged token reached the store"
    logged=$(sql_read "$W/features.db" "SELECT count(*) FROM scored WHERE token='$tok'")
    [ "$logged" = 1 ] || fail "job $id: token $tok is not one the plugin logged"
done
[ "$(sql_read "$W/history.db" "SELECT count(*) FROM jobs WHERE jfp_token='0123456789abcdef'")" = 0 ] \
    || fail "a forged token reached the store"
note "every stored token is the plugin's; forged annotations and tokens reached no tool"
