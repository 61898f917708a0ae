#!/bin/bash
# Install, when missing, the third-party consumers of libpmix.so.2 that
# systests/tests/consumers.rs runs with their own tests:
#   - Debian's python3-mpi4py (on Open MPI 4.1) and its own test suite, from
#     the source distribution of the same version on PyPI (the Debian
#     package does not ship the tests);
#   - Intel MPI's runtime from PyPI (the impi-rt wheel: libmpi, hydra, the
#     IMB benchmarks), unpacked as it is (not pip-installed: nothing of it
#     goes into a Python environment);
#   - rixa's wheel from PyPI (a PMIx store for PyTorch; it bundles OpenPMIx 5);
#   - OpenPMIx's own test programs (test/simple) and its Python client test,
#     from Debian's source package of the installed OpenPMIx.
# Both are cached outside the work tree in ${RPMIX_CACHE:-$HOME/.cache/rpmix}/consumers
# and re-made when missing. Prints the cache directory on its last line.
# A failure names the command that failed and shows its output.
set -eE
trap 'echo "install-consumers: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
CACHE=${RPMIX_CACHE:-$HOME/.cache/rpmix}/consumers
IMPI_VERSION=${RPMIX_IMPI_VERSION:-2021.19.0}
PY=/usr/bin/python3
mkdir -p "$CACHE"
LOG=$CACHE/install.log
INSTALLER=install-consumers
: >"$LOG"
. "$(dirname "$0")/installlib.sh"

# wheel <package> <version> <directory>: the wheel from PyPI, unpacked as it
# is into <directory> (nothing goes into a Python environment)
wheel() {
    rm -rf "$3" "$CACHE/wheel"
    run_logged "pip download $1==$2" "${PIP[@]}" download -q --no-deps -d "$CACHE/wheel" "$1==$2"
    run_logged "unpacking the $1 wheel" python3 -m zipfile -e "$CACHE"/wheel/*.whl "$3"
    rm -rf "$CACHE/wheel"
}

# Debian's mpi4py (and Open MPI under it: tools/install-deps.sh has it).
if ! "$PY" -c 'import mpi4py' 2>/dev/null; then
    echo "install-consumers: installing python3-mpi4py" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt_install apt-get install -y -q python3-mpi4py
fi
# pip: the machine's own, or Debian's python3's
PIP=(python3 -m pip)
python3 -m pip --version >/dev/null 2>&1 || PIP=("$PY" -m pip)

# mpi4py's test suite, of the very version Debian ships.
M4P=$("$PY" -c 'import mpi4py; print(mpi4py.__version__)')
if [ ! -f "$CACHE/mpi4py-$M4P/test/runtests.py" ]; then
    echo "install-consumers: mpi4py $M4P's test suite" >&2
    rm -rf "$CACHE/mpi4py-$M4P" "$CACHE/sdist"
    run_logged "pip download mpi4py==$M4P (source)" "${PIP[@]}" download -q --no-deps --no-binary :all: -d "$CACHE/sdist" "mpi4py==$M4P"
    run_logged "unpacking mpi4py's source" tar -xzf "$CACHE/sdist/mpi4py-$M4P.tar.gz" -C "$CACHE"
    rm -rf "$CACHE/sdist"
fi
ln -sfn "mpi4py-$M4P" "$CACHE/mpi4py"

# Intel MPI's runtime.
IMPI=$CACHE/impi-$IMPI_VERSION
if [ ! -x "$IMPI/bin/IMB-MPI1" ]; then
    echo "install-consumers: Intel MPI $IMPI_VERSION (PyPI's impi-rt)" >&2
    rm -rf "$IMPI"
    wheel impi-rt "$IMPI_VERSION" "$CACHE/impi-wheel"
    mv "$CACHE/impi-wheel/impi_rt-$IMPI_VERSION.data/data" "$IMPI"
    chmod +x "$IMPI"/bin/*
    rm -rf "$CACHE/impi-wheel"
fi
ln -sfn "impi-$IMPI_VERSION" "$CACHE/impi"

# rixa (PyPI): a PMIx key-value store for PyTorch and NVSHMEM jobs; its
# wheel carries its own OpenPMIx 5.0 (libpmix-<hash>.so.2.13.9, found through
# its RPATH). Unpacked as it is, plus a copy whose bundled library is to be
# replaced by rpmix's (systests/tests/consumers.rs does that, per run).
RIXA_VERSION=${RPMIX_RIXA_VERSION:-0.0.3}
RIXA=$CACHE/rixa-$RIXA_VERSION
if [ ! -f "$RIXA/rixa/__init__.py" ]; then
    echo "install-consumers: rixa $RIXA_VERSION (PyPI)" >&2
    wheel rixa "$RIXA_VERSION" "$RIXA"
fi
ln -sfn "rixa-$RIXA_VERSION" "$CACHE/rixa"

# OpenPMIx's own test programs (test/simple) and its Python bindings' test
# client: from Debian's source package of the installed OpenPMIx, fetched
# with apt through a private sources list (deb-src of the machine's archive:
# the machine's own apt configuration is not touched).
OPX=$(dpkg-query -W -f='${source:Version}' libpmix2 2>/dev/null || true)
if [ -n "$OPX" ] && [ ! -f "$CACHE/openpmix-src/.complete-$OPX" ]; then
    echo "install-consumers: OpenPMIx $OPX's sources (Debian's source package)" >&2
    rm -rf "$CACHE/openpmix-src" "$CACHE/apt-src"
    mkdir -p "$CACHE/apt-src/lists/partial" "$CACHE/apt-src/dl"
    MIRROR=$("$(dirname "$0")/debian-mirror.sh")
    CODENAME=$(. /etc/os-release; echo "$VERSION_CODENAME")
    echo "deb-src $MIRROR $CODENAME main" >"$CACHE/apt-src/sources.list"
    APTSRC=(-q -o Dir::Etc::SourceList="$CACHE/apt-src/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o Dir::State::Lists="$CACHE/apt-src/lists" -o APT::Sandbox::User=root)
    run_logged "apt-get update (deb-src)" apt-get "${APTSRC[@]}" update
    run_logged "apt-get source pmix=$OPX" sh -c "cd '$CACHE/apt-src/dl' && apt-get $(printf '%q ' "${APTSRC[@]}") source --download-only 'pmix=$OPX'"
    mkdir -p "$CACHE/openpmix-src"
    run_logged "unpacking OpenPMIx's sources" tar -xJf "$CACHE"/apt-src/dl/pmix_*.orig.tar.xz -C "$CACHE/openpmix-src" --strip-components=1 \
        --wildcards '*/test/simple/*' '*/bindings/python/tests/python/*'
    rm -rf "$CACHE/apt-src"
    touch "$CACHE/openpmix-src/.complete-$OPX"
fi
echo "$CACHE"
