#!/usr/bin/env bash
# The test command: installs the tools, then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --release --no-fail-fast -j 2
