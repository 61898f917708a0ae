#!/bin/bash
# The system tests (make test): every case of systests/tests/*.rs as its own
# test, run by cargo-nextest (settings in .config/nextest.toml), then the
# summary by case (tools/test-summary.py), whose last line is
# "N passed, M failed". Expects `make deps build` done.
#
#   tools/systests.sh            every case
#   tools/systests.sh --check    only check that ONLY matches some case
#   tools/systests.sh --list     the cases, one per line
# Environment: ONLY=<ERE>: only the cases whose name (area::[sh::…::]case)
# or area matches (make test ONLY=…); RPMIX_NEXTEST_PROFILE: nextest's
# profile (default `wide`: the bash drivers side by side; `default`: one
# bash case at a time).
set -u
cd "$(dirname "$0")/.."
STORE=target/nextest
PROFILE=${RPMIX_NEXTEST_PROFILE:-wide}
filter=()
[ -n "${ONLY:-}" ] && filter=(-E "test(/${ONLY}/) | binary(/${ONLY}/)")

cases() { cargo nextest list -p rpmix-systests --message-format oneline "${filter[@]}" 2>/dev/null; }
case ${1:-} in
    --list) cases | sed 's/^rpmix-systests:://'; exit 0 ;;
    --check)
        [ -z "${ONLY:-}" ] && exit 0
        # (without nextest yet, the check waits for the installers)
        cargo nextest --version >/dev/null 2>&1 || exit 0
        if [ -z "$(cases)" ]; then
            echo "make test: no case matches ONLY='$ONLY'; the areas are:"
            ls systests/tests | sed -n 's/\.rs$//p' | sed 's/^/  /'
            echo "0 passed, 1 failed"; exit 1
        fi
        exit 0 ;;
esac

# What the drivers would install when missing, installed first, once (the
# drivers run side by side and would race to install the same thing).
for installer in install-slurm install-debian13 install-consumers; do
    tools/$installer.sh >/dev/null || { echo "make test: tools/$installer.sh failed"; echo "0 passed, 1 failed"; exit 1; }
done
mkdir -p "$STORE" && rm -f "$STORE/skipped.txt" "$STORE/driver-cases.txt" "$STORE/$PROFILE/junit.xml" && touch "$STORE/.start"
cargo nextest run -p rpmix-systests --profile "$PROFILE" --no-fail-fast "${filter[@]}"
python3 tools/test-summary.py "$STORE/$PROFILE/junit.xml" "$STORE/.start" ${ONLY:+--filtered}
