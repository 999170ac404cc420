#!/usr/bin/env bash
# The systemd units the jfp package ships (debian/jfp.NAME.service and .timer; docs/admin-guide.md, "Running
# it for months"):
#   - every option a unit gives jfp (on an Exec line, or in the Environment= default of a variable the line
#     expands) is one the subcommand defines: an add_option/add_flag name in its tools/commands/ or tools/operations/ source;
#   - each Documentation=man:PAGE(N) is docs/PAGE.N;
#   - each unit is shipped: debian/rules (dh_installsystemd --name), jfp.spec, scripts/check-deb; a timer has
#     its service;
#   - systemd-analyze verify accepts each unit and prints nothing about it (it exits 0 on an unknown key or a
#     value it ignores, so any line it prints fails the test). /usr/bin/jfp is replaced by a stub first:
#     verify wants every Exec binary to exist.
# Without systemd-analyze (a release root may lack it) the last check is skipped (exit 77) unless
# JFP_REQUIRE_SYSTEMD is set.
set -euo pipefail
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
cd "$JFP_SRCDIR"

bad=0
fail() { echo "FAIL: $*"; bad=1; }

units=$(ls debian/jfp.*.service debian/jfp.*.timer 2>/dev/null | sort || true)
[ "$(echo "$units" | grep -c .)" -ge 5 ] || { echo "FAIL: expected the 5 unit files debian/jfp.jfp-*.service, .timer; found: $units"; exit 1; }

# The options subcommand SUB defines, one a line (-q and --quiet from "-q,--quiet"; --no-queue from "!--no-queue").
options_of() {
    local file
    file=$(grep -l "add_subcommand(\"$1\"" tools/commands/*.cc tools/operations/*.cc | head -n1)
    [ -n "$file" ] || return 1
    {
        echo -h; echo --help
        grep -oE 'add_(option|flag)\("[^"]*"' "$file"
        # --conf, from site_conf.cc, on the commands that take their paths from jfp.conf
        if grep -q 'conf\.add_option(' "$file"; then grep -oE 'add_(option|flag)\("[^"]*"' tools/options/site_conf.cc; fi
    } | sed -E 's/^add_(option|flag)\("//; s/"$//' | tr ',' '\n' | sed 's/^!//'
}

# The options in TEXT: words starting with - or --, up to any =VALUE.
options_in() { grep -oE "(^|[[:space:]\"'])--?[A-Za-z][A-Za-z0-9-]*" <<<"$1" | sed -E "s/^[[:space:]\"']//" || true; }

checked=0
for u in $units; do
    name=${u#debian/jfp.}
    while IFS= read -r line; do
        # Every jfp it runs is the packages' /usr/bin/jfp (the stub below replaces that path only).
        for word in $(grep -oE "(^|[[:space:]\"'])[^[:space:]\"']*jfp( |$)" <<<"${line#*=}" | tr -d "\"' " || true); do
            [ "$word" = /usr/bin/jfp ] || fail "$name: runs '$word'; the packages install /usr/bin/jfp"
        done
        case "$line" in *"/usr/bin/jfp "*) ;; *) continue ;; esac
        rest=${line#*/usr/bin/jfp }
        sub=${rest%% *}
        args=${rest#"$sub"}
        args=${args%%[;|&]*}   # jfp's arguments end at a shell separator
        allowed=$(options_of "$sub") || { fail "$name: 'jfp $sub' is not a jfp subcommand (no add_subcommand(\"$sub\" in tools/commands/ or tools/operations/)"; continue; }
        given=$(options_in "$args")
        # The defaults (Environment=) of the variables the line expands: $VAR or ${VAR}.
        for var in $(grep -oE '\$\{?[A-Z_][A-Z0-9_]*' <<<"$args" | tr -d '${' || true); do
            value=$(grep '^Environment=' "$u" | grep -oE "\"$var=[^\"]*\"|(^|[[:space:]=])$var=[^[:space:]\"]*" | sed -E "s/^[^A-Z_]*$var=//; s/\"$//" || true)
            given+=$'\n'$(options_in "$value")
        done
        for o in $given; do
            checked=$((checked + 1))
            grep -qxF -- "$o" <<<"$allowed" || fail "$name: jfp $sub has no option $o (see tools/commands/, tools/operations/: add_option/add_flag)"
        done
    done < <(grep -E '^Exec[A-Za-z]*=' "$u")

    for page in $(grep '^Documentation=' "$u" | grep -oE 'man:[^ ]+' | sed -E 's/^man:([^(]+)\(([0-9])\)$/\1.\2/'); do
        [ -f "docs/$page" ] || fail "$name: Documentation= names a man page docs/ does not have: $page"
    done

    base=${name%.*}
    grep -qE "dh_installsystemd .*--name=$base( |$)" debian/rules || fail "$name: debian/rules does not install it (dh_installsystemd --name=$base)"
    grep -qxF "%{_unitdir}/$name" jfp.spec || fail "$name: jfp.spec's %files does not list %{_unitdir}/$name"
    grep -qE "^for u in (.* )?$name( |;)" jfp.spec || fail "$name: jfp.spec's %install does not install it"
    grep -qxF "/usr/lib/systemd/system/$name" scripts/check-deb || fail "$name: scripts/check-deb does not expect it in the jfp package"
    case "$name" in *.timer) [ -f "debian/jfp.$base.service" ] || fail "$name: no debian/jfp.$base.service for it to start" ;; esac
done
[ "$checked" -ge 4 ] || { echo "FAIL: only $checked jfp options found in the units; the test lost its way"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "# $(echo "$units" | wc -l) units: $checked options given to jfp, each one its subcommand defines; each unit shipped by debian/rules, jfp.spec, check-deb"

if ! command -v systemd-analyze >/dev/null; then
    if [ -n "${JFP_REQUIRE_SYSTEMD:-}" ]; then echo "ERROR: JFP_REQUIRE_SYSTEMD is set but systemd-analyze is not installed" >&2; exit 99; fi
    echo "SKIP: systemd-analyze is not installed: the units were not verified"
    exit 77
fi

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/bin" "$W/units"
printf '#!/bin/sh\nexit 0\n' >"$W/bin/jfp"
chmod +x "$W/bin/jfp"
for u in $units; do sed "s#/usr/bin/jfp #$W/bin/jfp #g" "$u" >"$W/units/${u#debian/jfp.}"; done
for u in $units; do
    name=${u#debian/jfp.}
    rc=0
    out=$(systemd-analyze verify --man=no "$W/units/$name" 2>&1) || rc=$?
    if [ "$rc" != 0 ] || [ -n "$out" ]; then fail "systemd-analyze verify $name (exit $rc):"; echo "$out" | sed "s#$W/units/#debian/jfp.#g"; fi
done
[ "$bad" = 0 ] || exit 1
echo "# systemd-analyze verify ($(systemd-analyze --version | head -n1)): every unit clean"
