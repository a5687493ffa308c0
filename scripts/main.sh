#!/usr/bin/env bash
# The main job: emit the Verilog, then co-simulate the 16-node system (16 nodes, each an
# idempotent NI and an RMPP receive path, on the fat tree, a fault injector on every link:
# Verilator RTL in lockstep with the golden model) under seeded random traffic of both protocols
# with lost and corrupted flits, and print both protocols' figures side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --quiet --bin idemnet
./target/release/idemnet verilog --out build/verilog
./target/release/idemnet cosim --block system --k 4 --n 2 --cycles "${IDEMNET_CYCLES:-1000000}" \
  --seed "${IDEMNET_SEED:-1}" --protocol both --load 0.05 --rmpp-load 0.05 \
  --loss 0.001 --corrupt 0.0005 --drain 500000
# The FPGA self-test image (docs/protocol.md §14) under Verilator: 4 nodes, faults on every
# link, counters checked against a software scoreboard every cycle, UART lines decoded.
./target/release/idemnet selftest --board ice40-hx8k --cycles 2000000 --line-every 600000
