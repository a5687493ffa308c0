//! The open HDL tools run on an emitted design: Verilator's lint, Icarus's compiler and yosys's
//! iCE40 synthesis. Each writes the design into a scratch folder, runs the tool, and fails with
//! the tool's own words; `scripts/setup.sh` installs them all.

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context, Result};

use crate::run_tool;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A scratch folder holding `top.v`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(verilog: &str) -> Result<Scratch> {
        let d = std::env::temp_dir().join(format!(
            "idemnet-tools-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
        fs::write(d.join("top.v"), verilog).context("writing top.v")?;
        Ok(Scratch(d))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `verilator --lint-only -Wall` with the `waivers` (a `.vlt` text); any warning fails.
pub fn verilator_lint(verilog: &str, waivers: &str) -> Result<()> {
    let d = Scratch::new(verilog)?;
    fs::write(d.0.join("waivers.vlt"), waivers).context("writing waivers.vlt")?;
    let out = run_tool(
        "verilator",
        Command::new("verilator").current_dir(&d.0).args([
            "--lint-only",
            "-Wall",
            "waivers.vlt",
            "top.v",
        ]),
        "lint",
    )?;
    let t = text(&out);
    if t.contains("%Warning") {
        bail!("verilator lint warnings:\n{t}");
    }
    Ok(())
}

/// `iverilog -g2012`; any warning fails.
pub fn iverilog_compile(verilog: &str) -> Result<()> {
    let d = Scratch::new(verilog)?;
    let out = run_tool(
        "iverilog",
        Command::new("iverilog")
            .current_dir(&d.0)
            .args(["-g2012", "-o", "top.vvp", "top.v"]),
        "compile",
    )?;
    let t = text(&out);
    if t.to_lowercase().contains("warning") {
        bail!("iverilog warnings:\n{t}");
    }
    Ok(())
}

/// Cell counts of an iCE40 synthesis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ice40Cells {
    /// `SB_LUT4`.
    pub luts: u64,
    /// Every `SB_DFF*` flip-flop.
    pub flip_flops: u64,
    /// `SB_CARRY`.
    pub carries: u64,
    /// `SB_RAM40_4K`.
    pub brams: u64,
}

/// `yosys -p "synth_ice40 -top top; stat"`: the cell counts of the flattened top.
pub fn yosys_ice40(verilog: &str) -> Result<Ice40Cells> {
    let d = Scratch::new(verilog)?;
    let out = run_tool(
        "yosys",
        Command::new("yosys")
            .current_dir(&d.0)
            .args(["-p", "synth_ice40 -top top; stat", "top.v"]),
        "synth_ice40",
    )?;
    let t = text(&out);
    let stat = t
        .rfind("=== top ===")
        .map(|i| &t[i..])
        .ok_or_else(|| anyhow::anyhow!("yosys printed no statistics for `top`"))?;
    let mut c = Ice40Cells::default();
    for line in stat.lines() {
        let mut w = line.split_whitespace();
        let (Some(name), Some(n)) = (w.next(), w.next()) else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else {
            continue;
        };
        match name {
            "SB_LUT4" => c.luts += n,
            "SB_CARRY" => c.carries += n,
            "SB_RAM40_4K" => c.brams += n,
            x if x.starts_with("SB_DFF") => c.flip_flops += n,
            _ => {}
        }
    }
    if c.luts == 0 {
        bail!("yosys statistics without LUTs:\n{stat}");
    }
    Ok(c)
}
