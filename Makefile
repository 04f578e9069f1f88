# mrpsim: build everything from Debian packages and run the tests.
#
#   make demo     build what is needed, boot a ring of mrpsim switches running MRP
#   make check    build what is needed, run the tests (about 43 minutes
#                 from a fresh clone on 2 cores, 25 of them guest tests)
#   make check-long   the guest tests make check leaves out: veth rings,
#                     hostile frames, every profile, flaps, exactly-once
#                     on 4 switches, flood, races (about 30 minutes)
#   make check-scale  a ring of 50 switches (long: not part of make check)
#   make check-6.12   lint and guest suites on a linux-source-6.12 kernel
#                     (long: not part of make check)
#   make soak     14 switches at 500 us with traffic for 10 min, 1000 + 100 flaps
#   make fuzz     fuzz the device on an ASan/UBSan QEMU (SECONDS=600 SEED=)
#   make boots    boot the debug guest 20 times on a loaded host (BOOTS= LOAD=)
#   make bench    MRP recovery as traffic outage, rings of 4/14/50, assist/hw/sw,
#                 then two rings' interconnection, hw/sw (BENCH_ARGS=
#                 --interconnection: only that, --no-interconnection: without)
#
# Variables: KSRC_PKG=linux-source-6.12 builds against the 6.12 tree;
# DEBUG=0 builds the guest kernel without the debug options (tests want 1).
# Everything generated lives in build/ (make clean removes it).

KSRC_PKG ?= linux-source-6.1
DEBUG ?= 1
export KSRC_PKG DEBUG

.PHONY: all deps kernel module qemu tools iproute2 initramfs demo check \
	check-lint check-qtest check-tools check-guest check-long check-scale \
	check-6.12 check-fuzz fuzz boots soak bench clean help

all: initramfs qemu

help:
	@sed -n '2,21p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@bash -c '. scripts/lib.sh; ensure_deb_src; \
		need_pkgs $$PKGS_KERNEL $$PKGS_QEMU $$PKGS_GUEST $$PKGS_IPROUTE2 \
		$(KSRC_PKG)'

kernel: deps
	@bash scripts/kernel.sh all

module: deps
	@bash scripts/kernel.sh module

qemu: deps
	@bash scripts/qemu.sh build

tools: deps
	@$(MAKE) -s -C tools/mrp

# Debian's iproute2 with patches/iproute2 (bridge mrp): the guest's ip,
# bridge and devlink
iproute2: deps
	@bash scripts/iproute2.sh build

initramfs: kernel tools iproute2
	@bash scripts/initramfs.sh

demo: all
	@python3 tests/demo.py

check: all
	@python3 tests/run.py

check-lint: kernel qemu
	@python3 tests/run.py lint

check-qtest: qemu
	@python3 tests/run.py qtest

check-tools: tools
	@python3 tests/run.py tools

check-fuzz: qemu
	@python3 tests/run.py fuzz

check-guest: all
	@python3 tests/run.py guest

check-long: all
	@python3 tests/run.py long

check-scale: all
	@python3 tests/run.py scale

# The other supported kernel, built in its own tree with its own initramfs
# (build/kobj-linux-source-6.12-debug/): the driver's static checks and the
# guest suites, one summary line.
check-6.12:
	@$(MAKE) --no-print-directory KSRC_PKG=linux-source-6.12 all
	@KSRC_PKG=linux-source-6.12 python3 tests/run.py lint guest

soak: all
	@python3 tests/run.py soak

# Figures, not tests: MRP recovery as traffic outage on rings of 4, 14 and
# 50 switches, the engine with and without its recovery assist and the
# software fallback, profiles 10, 30 and 200 ms, then the interconnection
# of two rings of 4 (a cut of the link that carries the traffic, engine
# and software fallback); build/bench/report.md, bench.json and outage.png.  A guest kernel
# without the debug options (DEBUG=0), Debian's python3 for
# python3-matplotlib.  BENCH_ARGS="--sizes 4 --samples 2" for a
# short run, BENCH_ARGS=--interconnection for the interconnection alone
# (tests/bench.py --help).
bench: DEBUG = 0
bench: all
	@bash -c '. scripts/lib.sh; need_pkgs python3-matplotlib'
	@/usr/bin/python3 tests/bench.py $(BENCH_ARGS)

# The device fuzzer (tests/fuzz.py) for SECONDS (default 600) from SEED
# (default: a random one, printed), on a QEMU built with ASan and UBSan
# (build/qemu-asan, scripts/qemu.sh asan); make check runs seed 1 for 60 s
# on the plain build.  A failure leaves its command log in build/fuzz/.
SECONDS ?= 600
SEED ?=
fuzz: deps
	@bash scripts/qemu.sh asan
	@python3 tests/fuzz.py --qemu "$$(bash scripts/qemu.sh asan-path)" \
		--seconds $(SECONDS) $(if $(SEED),--seed $(SEED)) --timeout 60

# Boot robustness: BOOTS guests in a row (default 20), each must answer,
# while LOAD CPU-bound processes (default 2) keep the host busy.
BOOTS ?= 20
LOAD ?= 2
boots: all
	@python3 tests/boots.py --boots $(BOOTS) --load $(LOAD)

clean:
	rm -rf build
	-$(MAKE) -s -C tools/mrp clean
