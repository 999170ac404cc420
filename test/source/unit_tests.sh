#!/usr/bin/env bash
# The unit tests compile as one unit per folder (Makefile.am, UNIT_TEST_UNITS), so each test file must not
# leak into the files compiled after it:
#   - every test/unit/**/test_*.cc opens `namespace <its file name> {` after its last #include and closes it
#     on its last line, so its helpers (in that namespace, or in an anonymous one inside it) cannot collide
#     with, or be picked by overload resolution over, another file's;
#   - no #include after that line (a header would land inside the namespace), no #define, no #undef;
#   - every test file is listed in Makefile.am's UNIT_TEST_FILES (the build checks the same; this says it
#     before a build).
set -euo pipefail
: "${JFP_SRCDIR:?run through make check (JFP_SRCDIR unset)}"
cd "$JFP_SRCDIR"

bad=0
fail() { echo "FAIL: $*"; bad=1; }

files=$(find test/unit -name 'test_*.cc' | sort)
[ "$(echo "$files" | grep -c .)" -ge 50 ] || { echo "FAIL: expected the unit test files under test/unit; found: $files"; exit 1; }
listed=$(sed -n '/^UNIT_TEST_FILES = /,/^[^[:space:]]/p' Makefile.am | tr -s ' \t\\' '\n' | grep '^test/unit/' || true)

for f in $files; do
    stem=$(basename "$f" .cc)
    last_include=$(grep -n '^#include' "$f" | tail -n1 | cut -d: -f1 || true)
    open=$(grep -n "^namespace $stem {\$" "$f" | head -n1 | cut -d: -f1 || true)
    if [ -z "$open" ]; then
        fail "$f: no line 'namespace $stem {' (its body must be in a namespace of its own name)"
        continue
    fi
    [ -n "$last_include" ] && [ "$last_include" -gt "$open" ] && fail "$f:$last_include: #include after 'namespace $stem {' (line $open)"
    # Between the includes and the namespace: only blank lines and comments.
    code=$(sed -n "$((${last_include:-0} + 1)),$((open - 1))p" "$f" | grep -v -E '^[[:space:]]*(//.*)?$' || true)
    [ -z "$code" ] || fail "$f: code between the last #include and 'namespace $stem {': $code"
    [ "$(grep -v -E '^[[:space:]]*$' "$f" | tail -n1)" = "}  // namespace $stem" ] ||
        fail "$f: the last line must close its namespace: '}  // namespace $stem'"
    if grep -n -E '^[[:space:]]*#[[:space:]]*(define|undef)' "$f"; then fail "$f: a macro would reach the folder's next file"; fi
    grep -qx "$f" <<<"$listed" || fail "$f: not in Makefile.am's UNIT_TEST_FILES: it would never be compiled"
done
for f in $listed; do
    [ -f "$f" ] || fail "Makefile.am's UNIT_TEST_FILES lists $f, which does not exist"
done
[ "$bad" = 0 ] && echo "unit_tests: $(echo "$files" | wc -l) test files, each in its own namespace and listed"
exit "$bad"
