//! idemnet co-simulation: Verilator and Icarus runs of any block, waveform comparison and
//! lockstep comparison against the golden model.
//!
//! Everything is driven by a block's port list (`&[PortSpec]`, `clock` excluded): the Verilator
//! C++ shim, the Icarus testbench, the flat word buffers and the port names in waveforms. There
//! is no per-block binding code.
//!
//! - [`verilator`]: build a Verilog top into a cached shared library and step it
//!   ([`VerilatorBuild`], [`VerilatedLib`], [`Instance`]).
//! - [`icarus`]: run the same top under `iverilog -g2012` / `vvp` from a stimulus
//!   ([`run_icarus`]).
//! - [`wavediff`]: compare two waveform files signal by signal and over time ([`wavediff()`]).
//! - [`tools`]: Verilator lint, Icarus compile and yosys iCE40 synthesis of an emitted design.
//! - [`lockstep`]: run a model and an RTL instance cycle by cycle and stop at the first
//!   differing output ([`run_lockstep`]).
//!
//! Flat word buffers: the In (or Out) ports in port order, each port `ceil(width / 64)` 64-bit
//! words, least significant word first; bits above the port width are ignored on input and zero
//! on output. Time contract: docs/protocol.md §1 (10 time units of 1 ns per cycle, inputs change
//! with the clock fall at `10t`, rising edge at `10t + 5`).

mod build_steps;
pub mod icarus;
pub mod lockstep;
pub mod modules;
pub mod tools;
mod vcd_check;
pub mod verilator;
pub mod wavediff;

pub use icarus::{run_icarus, ICARUS_ROOT};
pub use idemnet_model::block::{input_words, output_words};
pub use idemnet_model::ports::{PortDir, PortSpec};
pub use lockstep::{
    run_lockstep, run_lockstep_observed, CycleView, Dut, LockstepReport, Mismatch, ModelFn,
    StepModel,
};
pub use verilator::{Instance, VerilatedLib, VerilatorBuild};
pub use wavediff::{wavediff, DiffOptions, SignalDiff, Span, WaveDiff};

use std::process::{Command, Output};

use anyhow::{bail, Result};

/// Where Verilator builds are cached: `$IDEMNET_CACHE`, else `$XDG_CACHE_HOME/idemnet`, else
/// `$HOME/.cache/idemnet`, else `idemnet-cache` in the system's temporary folder.
pub fn default_cache_dir() -> std::path::PathBuf {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = env("IDEMNET_CACHE") {
        return d.into();
    }
    if let Some(d) = env("XDG_CACHE_HOME") {
        return std::path::PathBuf::from(d).join("idemnet");
    }
    if let Some(d) = env("HOME") {
        return std::path::PathBuf::from(d).join(".cache/idemnet");
    }
    std::env::temp_dir().join("idemnet-cache")
}

/// Mask of the valid bits of word `i` of a `width`-bit value.
pub(crate) fn word_mask(width: u32, i: usize) -> u64 {
    let lo = i * 64;
    let w = width as usize;
    if w >= lo + 64 {
        u64::MAX
    } else if w <= lo {
        0
    } else {
        (1u64 << (w - lo)) - 1
    }
}

/// Hex string (`0x…`, `ceil(width / 4)` digits) of a `width`-bit value held in `words`.
pub fn hex_value(width: u32, words: &[u64]) -> String {
    let digits = (width as usize).div_ceil(4).max(1);
    let mut s = String::with_capacity(digits + 2);
    s.push_str("0x");
    for d in (0..digits).rev() {
        let bit = d * 4;
        let w = words.get(bit / 64).copied().unwrap_or(0) & word_mask(width, bit / 64);
        let nib = (w >> (bit % 64)) & 0xf;
        s.push(char::from_digit(nib as u32, 16).unwrap());
    }
    s
}

/// Checks that `ports` is usable as a top's port list: non-empty unique names, widths >= 1,
/// no `clock`.
pub(crate) fn check_ports(ports: &[PortSpec]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for p in ports {
        if p.name.is_empty() {
            bail!("port list: empty port name");
        }
        if p.name == "clock" {
            bail!("port list: `clock` must not be in the port list (it is implicit)");
        }
        if p.width == 0 {
            bail!("port list: port `{}` has width 0", p.name);
        }
        if !seen.insert(p.name.as_str()) {
            bail!("port list: duplicate port `{}`", p.name);
        }
    }
    Ok(())
}

/// Last `n` lines of a tool's output.
pub(crate) fn tail(bytes: &[u8], n: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Runs `cmd` (named `tool` in errors) to its end, whatever its exit status; fails only if it
/// cannot be started.
pub(crate) fn tool_output(tool: &str, cmd: &mut Command, what: &str) -> Result<Output> {
    cmd.output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            anyhow::anyhow!(
                "{tool} not found in PATH ({what}); install it (Debian: apt-get install {tool})"
            )
        } else {
            anyhow::anyhow!("failed to start {tool} ({what}): {e}")
        }
    })
}

/// Runs `cmd` (named `tool` in errors), failing with the tail of its stderr/stdout unless it
/// exits successfully.
pub(crate) fn run_tool(tool: &str, cmd: &mut Command, what: &str) -> Result<Output> {
    let out = tool_output(tool, cmd, what)?;
    if !out.status.success() {
        bail!(
            "{tool} failed ({what}), {}:\n--- stderr (tail) ---\n{}\n--- stdout (tail) ---\n{}",
            out.status,
            tail(&out.stderr, 40),
            tail(&out.stdout, 20)
        );
    }
    Ok(out)
}

/// Runs `tool --version`-like command and returns its trimmed stdout.
pub(crate) fn tool_version(tool: &str, arg: &str) -> Result<String> {
    let out = run_tool(tool, Command::new(tool).arg(arg), "version query")?;
    let mut s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if s.is_empty() {
        s = String::from_utf8_lossy(&out.stderr).trim().to_string();
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex() {
        assert_eq!(hex_value(35, &[0x7_ffff_ffff]), "0x7ffffffff");
        assert_eq!(hex_value(35, &[u64::MAX]), "0x7ffffffff");
        assert_eq!(hex_value(1, &[1]), "0x1");
        assert_eq!(hex_value(70, &[1, 0x3f]), "0x3f0000000000000001");
        assert_eq!(word_mask(70, 1), 0x3f);
        assert_eq!(word_mask(64, 0), u64::MAX);
    }
}
