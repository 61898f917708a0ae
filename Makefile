# rpmix: a drop-in libpmix.so.2 (OpenPMIx 4.2.2 C ABI) in Rust.
#
#   make            build target/release/libpmix.so.2
#   make demo       the project's main job (installs what it needs)
#   make test       every test case (installs what it needs; run as root on
#                   Debian): systests/tests/*.rs, run by cargo-nextest
#                   (tools/systests.sh); the last line is "N passed, M failed",
#                   the JUnit report target/nextest/default/junit.xml
#   make test ONLY=<ERE>          only the cases whose name or area matches
#                                 (e.g. ONLY=faults, ONLY='^launch_', ONLY=garbage)
#   make test-list  the cases, one per line
#   make bench      rpmix vs OpenPMIx 4.2.2, side by side
#   make fuzz       the mutation fuzzer and the coverage-guided targets (cargo
#                   fuzz, fuzz/), FUZZ_SECONDS (default 300) per target
#   make soak       the soak (systests/tests/soak.rs) at full size: a persistent
#                   pmixrun takes SOAK_JOBS (default 10000) jobs of mixed kinds,
#                   SOAK_WIDTH (4) at a time; a C host runs SOAK_NAMESPACES
#                   (10000) namespaces; their RSS, fds, threads, directories
#                   and sockets are printed every tenth and must come back;
#                   Open MPI's mpirun on rpmix runs SOAK_MPIRUN_JOBS (1000)
#                   spawning jobs
#   make chaos      the chaos rounds (systests/tests/chaos.rs) at full size:
#                   CHAOS_ROUNDS (200) seeded rounds of 64-256 ranks, a rank or
#                   tool killed or stopped in each (at a fence, in init, in a
#                   tool's attach); CHAOS_SPAWN_ROUNDS (100) in a spawn or a
#                   connect; CHAOS_MPIRUN_ROUNDS (40) under Open MPI's mpirun,
#                   on rpmix and OpenPMIx; CHAOS_IOF_ROUNDS (40) on a rank
#                   writing with a tool following; CHAOS_DEBUG_ROUNDS (60) on
#                   the tool or daemons holding a job for a debugger;
#                   CHAOS_CONNECT_ROUNDS (100) in a connect among one job's
#                   ranks; CHAOS_SEED replays a run
#   make headers    regenerate include/*.h from the Rust sources
#   make install PREFIX=<dir> [DESTDIR=<root>]   (the library, headers, pmix.pc,
#                   pmixrun, pmixctl and their manual pages)
#   make deb        the Debian packages rpmix and rpmix-system, in DEBDIR
#                   (default target/debian; tools/make-deb.sh)

PREFIX   ?= /usr/local
CARGO    ?= cargo
LIBDIR   := target/release
LIB      := $(LIBDIR)/libpmix.so.2
BUILD    := c-tests/build
# Binaries the project installs under $(PREFIX)/bin.
BINARIES := pmixrun pmixctl

# ONLY=<ERE> reaches tools/systests.sh as ONLY.
RUN_TESTS = $(if $(ONLY),ONLY='$(value ONLY)') tools/systests.sh

.PHONY: hot-code all build deps headers check-headers test test-check-only test-list unit demo bench soak chaos fuzz install deb clean

all: build

build:
	$(CARGO) build --release
	@ln -sf libpmix.so $(LIB)

deps:
	@tools/install-deps.sh

headers: build
	cp "$$(tools/generated-headers-dir.sh)"/*.h include/

check-headers: build
	@diff -ru include "$$(tools/generated-headers-dir.sh)" \
	  && echo "headers: include/ matches the generator" \
	  || { echo "headers: include/ differs from what build.rs generates: run 'make headers'"; exit 1; }

unit:
	$(CARGO) test --release

# The functions a rank runs, for the linker to place together (tools/hot-code.py).
hot-code: build
	python3 tools/hot-code.py generate target/release target/release
	$(CARGO) build --release

# (an unknown ONLY step fails before anything is installed or built)
test: test-check-only deps build
	@$(RUN_TESTS)

test-check-only:
	@$(RUN_TESTS) --check

test-list:
	@tools/systests.sh --list

demo: deps build
	@mkdir -p $(BUILD)
	cc -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude c-tests/demo_job.c -o $(BUILD)/demo_job -L$(LIBDIR) -l:libpmix.so.2
	LD_LIBRARY_PATH=$(LIBDIR) $(LIBDIR)/pmixrun -n 4 $(BUILD)/demo_job

# The mutation fuzzer (src/bin/rpmix-fuzz.rs), then the coverage-guided
# targets (fuzz/, cargo fuzz: tools/fuzz-coverage.sh), FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 300
fuzz: build
	$(LIBDIR)/rpmix-fuzz --seconds $(FUZZ_SECONDS)
	tools/fuzz-coverage.sh $(FUZZ_SECONDS)

bench: deps build
	@tools/bench-compare.sh $(BUILD)
	@tools/bench-codecs.sh
	@tools/bench-core.sh $(BUILD)
	@tools/bench-mixed.sh $(BUILD)
	@tools/bench-opxclients.sh $(BUILD)
	@tools/bench-ompi.sh $(BUILD)
	@tools/bench-jctl.sh $(BUILD)
	@tools/bench-iof.sh $(BUILD)
	@tools/bench-slurm.sh $(BUILD)
	@tools/bench-slurm2.sh $(BUILD)
	@tools/bench-twohost.sh $(BUILD)
	@tools/bench-scale.py $(BUILD)
	@tools/bench-consumers.sh $(BUILD)
	@tools/bench-launch.sh $(BUILD)

SOAK_JOBS       ?= 10000
SOAK_WIDTH      ?= 4
SOAK_NAMESPACES ?= 10000
SOAK_MPIRUN_JOBS ?= 1000
soak: build
	RPMIX_SOAK_JOBS=$(SOAK_JOBS) RPMIX_SOAK_WIDTH=$(SOAK_WIDTH) RPMIX_SOAK_NAMESPACES=$(SOAK_NAMESPACES) RPMIX_SOAK_MPIRUN_JOBS=$(SOAK_MPIRUN_JOBS) \
	  $(CARGO) nextest run -p rpmix-systests --test soak -j1 --no-capture

CHAOS_ROUNDS ?= 200
CHAOS_SPAWN_ROUNDS ?= 100
CHAOS_MPIRUN_ROUNDS ?= 40
CHAOS_IOF_ROUNDS ?= 40
CHAOS_DEBUG_ROUNDS ?= 60
CHAOS_CONNECT_ROUNDS ?= 100
chaos: build
	$(if $(CHAOS_SEED),RPMIX_CHAOS_SEED=$(CHAOS_SEED)) RPMIX_CHAOS_ROUNDS=$(CHAOS_ROUNDS) RPMIX_CHAOS_SPAWN_ROUNDS=$(CHAOS_SPAWN_ROUNDS) \
	  RPMIX_CHAOS_MPIRUN_ROUNDS=$(CHAOS_MPIRUN_ROUNDS) RPMIX_CHAOS_IOF_ROUNDS=$(CHAOS_IOF_ROUNDS) \
	  RPMIX_CHAOS_DEBUG_ROUNDS=$(CHAOS_DEBUG_ROUNDS) RPMIX_CHAOS_CONNECT_ROUNDS=$(CHAOS_CONNECT_ROUNDS) \
	  RPMIX_CHAOS_MIN_RANKS=64 RPMIX_CHAOS_MAX_RANKS=256 \
	  $(CARGO) nextest run -p rpmix-systests --test chaos -j1 --no-capture

install: build
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(LIBDIR)/libpmix.so $(DESTDIR)$(PREFIX)/lib/libpmix.so.2
	ln -sf libpmix.so.2 $(DESTDIR)$(PREFIX)/lib/libpmix.so
	install -m 0644 include/*.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e "s|@VERSION@|$$(sed -n 's/^version = \"\(.*\)\"/\1/p' Cargo.toml | head -1)|" \
	  pmix.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/pmix.pc
	for b in $(BINARIES); do install -m 0755 $(LIBDIR)/$$b $(DESTDIR)$(PREFIX)/bin/; done
	install -m 0644 $(addprefix man/,$(addsuffix .1,$(BINARIES))) $(DESTDIR)$(PREFIX)/share/man/man1/

# rpmix beside OpenPMIx (/usr/lib/rpmix) and the system switch: docs/deployment.md
DEBDIR ?= target/debian
deb: build
	@tools/make-deb.sh $(DEBDIR)

clean:
	$(CARGO) clean
	rm -rf $(BUILD)
