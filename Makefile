# rrxe: soft RoCE v2 in Rust. The two commands a newcomer needs:
#   make run    build what is missing, boot the test kernel, show rrxe0/rrxe1
#               and ping-pong between them
#   make test   every test; ends with "N passed, N failed"
# Build outputs live in $(RRXE_CACHE) (default ~/.cache/rrxe), never in the clone.
# (Kbuild, not this file, is what kbuild reads for `make -C $KDIR M=$PWD`.)

FLAVOUR ?= test

.PHONY: run test soak bench kernel module clippy image host-test fuzz

run:
	scripts/demo

test:
	scripts/test

# make test at the issues' full scale (10,000-object churn, 64 MiB loss
# transfer, 100 link cycles, perftest's full size x MTU x family product):
# 70 min to over 3 h under TCG, so not what CI runs.
soak:
	scripts/test --soak

# perftest, rrxe against rdma_rxe on the perf kernel: JSON, PNG and ratios.
bench:
	scripts/bench

kernel:
	scripts/kernel --flavour $(FLAVOUR) build

module: kernel
	scripts/module --flavour $(FLAVOUR)

clippy: kernel
	scripts/kernel --flavour $(FLAVOUR) clippy
	scripts/module --flavour $(FLAVOUR) CLIPPY=1

image:
	scripts/guest-image

host-test:
	cd tools/rrxe-proto && CARGO_TARGET_DIR=$${RRXE_CACHE:-$$HOME/.cache/rrxe}/target-proto cargo test

fuzz:
	tools/rrxe-proto/fuzz.sh $${FUZZ_SECONDS:-60}
