#!/usr/bin/env bash
# Installs what idemnet needs on a Debian 12 machine that has Rust: the open HDL tools from
# Debian's packages. Idempotent: a tool already on PATH is not installed again.
set -euo pipefail

need=()
command -v verilator     >/dev/null 2>&1 || need+=(verilator)
command -v iverilog      >/dev/null 2>&1 || need+=(iverilog)
command -v yosys         >/dev/null 2>&1 || need+=(yosys)
command -v nextpnr-ice40 >/dev/null 2>&1 || need+=(nextpnr-ice40)
command -v icepack       >/dev/null 2>&1 || need+=(fpga-icestorm)
command -v gtkwave       >/dev/null 2>&1 || need+=(gtkwave)
command -v g++           >/dev/null 2>&1 || need+=(g++)
command -v make          >/dev/null 2>&1 || need+=(make)

if [ ${#need[@]} -gt 0 ]; then
  echo "idemnet setup: installing ${need[*]} from Debian's packages"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
echo "idemnet setup: $(verilator --version | head -n1); iverilog $(iverilog -V 2>&1 | head -n1 | awk '{print $4}'); $(yosys -V)"
