#!/bin/bash
# `make deb`: the two Debian packages of rpmix, built with dpkg-deb from the
# tree `make install DESTDIR=<stage> PREFIX=/usr/lib/rpmix` installs (so the
# Makefile's install target is the one list of what is installed):
#   rpmix          rpmix beside OpenPMIx, never over it: /usr/lib/rpmix/{lib
#                  (libpmix.so.2, libpmix.so, pkgconfig/pmix.pc), include,
#                  bin, share/man}; /usr/bin/pmixrun and /usr/bin/pmixctl and
#                  the manual pages linked into /usr/share/man; the modulefile
#                  (Environment Modules: /usr/share/modules/modulefiles/rpmix,
#                  Lmod: /etc/lmod/modules/rpmix, a link to it)
#   rpmix-system   the switch: its maintainer scripts divert OpenPMIx's
#                  libpmix.so.2 files to rpmix (packaging/rpmix-system.*)
# dpkg-deb is part of dpkg, on every Debian machine: no debhelper, no
# cargo-deb, nothing from the network.
#
# Usage: tools/make-deb.sh [out-dir]   (default target/debian; the library
# and the programs must be built: `make deb` builds them first)
set -eE
trap 'echo "make-deb: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for t in dpkg-deb objdump strip; do
    command -v "$t" >/dev/null 2>&1 || { echo "make-deb: $t is needed (dpkg, binutils: a Debian system)" >&2; exit 1; }
done
OUT=${1:-$ROOT/target/debian}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
PREFIX=/usr/lib/rpmix
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)
DEBVER=$VERSION-1
ARCH=$(dpkg --print-architecture)
TRIPLET=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
STAGE=$OUT/stage
rm -rf "$STAGE"
mkdir -p "$OUT" "$STAGE"

# ---- rpmix ----
R=$STAGE/rpmix
make -s -C "$ROOT" install DESTDIR="$R" PREFIX="$PREFIX" >/dev/null
# without the debugging information of the release build (as Debian ships)
strip --strip-debug "$R$PREFIX"/lib/libpmix.so.2 "$R$PREFIX"/bin/*
# the commands and manual pages where users look for them (links into the prefix)
mkdir -p "$R/usr/bin"
for b in "$R$PREFIX"/bin/*; do ln -s "$PREFIX/bin/${b##*/}" "$R/usr/bin/${b##*/}"; done
if [ -d "$R$PREFIX/share/man" ]; then
    for m in "$R$PREFIX"/share/man/man*/*; do
        [ -f "$m" ] || continue
        s=${m#"$R$PREFIX"/share/man/}
        mkdir -p "$R/usr/share/man/${s%/*}"
        ln -s "$PREFIX/share/man/$s" "$R/usr/share/man/$s"
    done
fi
# the modulefile, for Environment Modules and (a link) for Lmod
mkdir -p "$R/usr/share/modules/modulefiles/rpmix" "$R/etc/lmod/modules"
sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" "$ROOT/packaging/rpmix.modulefile.in" \
    >"$R/usr/share/modules/modulefiles/rpmix/$VERSION"
chmod 644 "$R/usr/share/modules/modulefiles/rpmix/$VERSION"
ln -s /usr/share/modules/modulefiles/rpmix "$R/etc/lmod/modules/rpmix"
mkdir -p "$R/usr/share/doc/rpmix"
cp "$ROOT/LICENSE" "$R/usr/share/doc/rpmix/copyright"
[ -f "$ROOT/docs/deployment.md" ] && cp "$ROOT/docs/deployment.md" "$R/usr/share/doc/rpmix/"
# the C library the programs need, by the newest symbol version they use
glibc=$(objdump -T "$R$PREFIX"/lib/libpmix.so.2 "$R$PREFIX"/bin/* 2>/dev/null |
    grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n | tail -n1)
[ -n "$glibc" ] || { echo "make-deb: no GLIBC symbol version found in the library (objdump -T)" >&2; exit 1; }
# GCC's unwinder library, only when something links it (the build links
# the static one when the compiler has it: build.rs)
gcc_s=
if objdump -p "$R$PREFIX"/lib/libpmix.so.2 "$R$PREFIX"/bin/* 2>/dev/null | grep -q 'NEEDED *libgcc_s'; then gcc_s=", libgcc-s1"; fi
mkdir -p "$R/DEBIAN"
cat >"$R/DEBIAN/control" <<CTL
Package: rpmix
Version: $DEBVER
Architecture: $ARCH
Maintainer: rpmix developers <rpmix@localhost>
Depends: libc6 (>= $glibc)$gcc_s
Section: libs
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$R" | cut -f1)
Description: PMIx in Rust: a drop-in libpmix.so.2, installed beside OpenPMIx
 rpmix implements the PMIx interface of OpenPMIx 4.2.2 (libpmix.so.2, the
 same C ABI) with its launcher pmixrun and its tool pmixctl.
 .
 This package installs it under $PREFIX, beside the system's OpenPMIx,
 which it leaves untouched: \`module load rpmix\` (Environment Modules or Lmod)
 puts one user's jobs on it. The package rpmix-system switches the whole
 machine over (Slurm, Open MPI, python3-pmix, ...) and back.
CTL

# ---- rpmix-system ----
S=$STAGE/rpmix-system
mkdir -p "$S/DEBIAN" "$S/usr/share/doc/rpmix-system"
cp "$ROOT/LICENSE" "$S/usr/share/doc/rpmix-system/copyright"
cat >"$S/DEBIAN/control" <<CTL
Package: rpmix-system
Version: $DEBVER
Architecture: $ARCH
Maintainer: rpmix developers <rpmix@localhost>
Depends: rpmix (= $DEBVER)
Section: libs
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$S" | cut -f1)
Description: switch the whole machine from OpenPMIx to rpmix
 Installing this package makes every program that loads libpmix.so.2 load
 rpmix's ($PREFIX/lib/libpmix.so.2): Slurm's mpi/pmix plugin (slurmstepd),
 Open MPI, python3-pmix, OpenPMIx's tools. It diverts OpenPMIx's library
 file with dpkg-divert (the diversion survives upgrades of OpenPMIx's
 package) and puts a link to rpmix in its place. Removing it restores
 OpenPMIx's file and removes the diversion.
CTL
for s in postinst postrm; do
    { printf '#!/bin/sh\n# rpmix-system %s (generated by tools/make-deb.sh)\nset -e\n' "$s"
      sed -e "s|@PREFIX@|$PREFIX|g" "$ROOT/packaging/rpmix-system.functions"
      cat "$ROOT/packaging/rpmix-system.$s"; } >"$S/DEBIAN/$s"
    chmod 755 "$S/DEBIAN/$s"
    sh -n "$S/DEBIAN/$s"
done
sed -e "s|@TRIPLET@|$TRIPLET|g" "$ROOT/packaging/rpmix-system.triggers" >"$S/DEBIAN/triggers"

for p in rpmix rpmix-system; do
    find "$STAGE/$p" -path "$STAGE/$p/DEBIAN" -prune -o -type f -printf '%P\n' | sort |
        (cd "$STAGE/$p" && xargs -r md5sum) >"$STAGE/$p/DEBIAN/md5sums"
    dpkg-deb --root-owner-group -Zxz --build "$STAGE/$p" "$OUT/${p}_${DEBVER}_$ARCH.deb" >/dev/null
    echo "$OUT/${p}_${DEBVER}_$ARCH.deb"
done
rm -rf "$STAGE"
