# mrpsim: build everything from Debian packages and run the tests.
#
#   make demo     build what is needed, boot a ring of mrpsim switches running MRP
#   make check    build what is needed, run every test
#   make check-scale  a ring of 50 switches (long: not part of make check)
#   make bench    MRP recovery time and wire interval, hw vs software
#
# Variables: KSRC_PKG=linux-source-6.12 builds against the 6.12 tree;
# DEBUG=0 builds the guest kernel without the debug options (tests want 1).
# Everything generated lives in build/ (make clean removes it).

KSRC_PKG ?= linux-source-6.1
DEBUG ?= 1
export KSRC_PKG DEBUG

INITRD := build/initramfs.cpio

.PHONY: all deps kernel module qemu tools initramfs demo check check-lint \
	check-qtest check-tools check-guest check-scale bench clean help

all: initramfs qemu

help:
	@sed -n '2,11p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@bash -c '. scripts/lib.sh; ensure_deb_src; \
		need_pkgs $$PKGS_KERNEL $$PKGS_QEMU $$PKGS_GUEST $(KSRC_PKG)'

kernel: deps
	@bash scripts/kernel.sh all

module: deps
	@bash scripts/kernel.sh module

qemu: deps
	@bash scripts/qemu.sh build

tools: deps
	@$(MAKE) -s -C tools/mrp

initramfs: kernel tools
	@bash scripts/initramfs.sh $(INITRD)

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

check-guest: all
	@python3 tests/run.py guest

check-scale: all
	@python3 tests/run.py scale

# Figures, not tests: MRP recovery time, loss detection and wire test
# interval of the hardware path and the software fallback at 1 and 10 ms.
bench: all
	@python3 tests/bench.py $(BENCH_ARGS)

clean:
	rm -rf build
	-$(MAKE) -s -C tools/mrp clean
