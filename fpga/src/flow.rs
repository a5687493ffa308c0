//! Synthesis, place and route, bitstream packing and the report, for one board and design.
//!
//! Files, all in `build/fpga/<board>/<design>/`: `top.v` (the design and its board top),
//! the constraint file, `ecp5_mux_map.v` (the techmap of the ECP5's multiplexer mappings),
//! `yosys.log`, `stat.json`, `board.json` (the netlist), `nextpnr.log`,
//! `nextpnr-report.json`, the bitstream (`board.bin` for the iCE40, `board.bit` for the ECP5),
//! `icetime.txt` (iCE40) and `idemnet-report.json` (the [`Report`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use serde_json::Value;

use crate::board::{Board, LutMapping, Synthesizer, ECP5_MUX_MAP, ECP5_MUX_MAP_TEXT};
use crate::design::Design;

/// How far a flow goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Synthesis and its cell counts only (seconds: the CI check).
    Synth,
    /// Synthesis, place and route, timing and the bitstream.
    Bitstream,
}

/// The worst path nextpnr reports for the clock.
/// nextpnr's placement seed unless `idemnet fpga --seed` names another: every figure the
/// README quotes without a seed is this one's.
pub const DEFAULT_PLACER_SEED: u32 = 1;

#[derive(Clone, Debug, Default, Serialize)]
pub struct CriticalPath {
    /// The cell and port the path starts and ends at, as nextpnr names them.
    pub from: String,
    pub to: String,
    pub logic_ns: f64,
    pub routing_ns: f64,
}

/// What a flow found (also `idemnet-report.json`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub board: String,
    pub design: String,
    pub luts: u64,
    pub flip_flops: u64,
    pub carries: u64,
    pub brams: u64,
    /// How yosys mapped the logic to LUTs ([`LutMapping::name`]).
    pub lut_mapping: String,
    /// Whether its `abc9` took the flip-flops too (`-dff`, [`Board::abc_dff`]).
    pub abc_dff: bool,
    /// Shares of the device, in percent.
    pub lut_pct: f64,
    pub ff_pct: f64,
    pub carry_pct: f64,
    pub bram_pct: f64,
    /// The LUT positions the LUT4, carry and distributed RAM cells take at least
    /// ([`Board::lut_positions`]: on the ECP5 each carry cell takes two, and each 16x4 RAM two
    /// more for its write port beside the four in `luts`: nextpnr's "Total LUT4s") and their
    /// share of the device's LUTs; what must fit.
    pub lut_positions: u64,
    pub lut_position_pct: f64,
    /// The logic cells nextpnr packed the design into and their share of the device
    /// (`ICESTORM_LC` on the iCE40: a LUT4, its flip-flop and carry; `TRELLIS_COMB` on the ECP5).
    /// On the iCE40 this, not `luts`, is what must fit: a flip-flop fed by no LUT of its own and
    /// a lone carry take a cell each. From nextpnr's packing: when synthesis already exceeds
    /// the device, the flow packs without placing, to give this count.
    pub logic_cells: Option<u64>,
    pub logic_cell_pct: Option<f64>,
    /// The stimulus harness's own cells, included in the totals above (0 for the self-test,
    /// which has none): its board top synthesized alone around a black box in place of the
    /// design, by the same script (`harness/` in the build folder). On a block with many output
    /// bits the harness's XOR fold is large (the node: 925 bits into 256 registers); past
    /// [`crate::harness::FOLD_LIMIT`] output bits (system16) it keeps them without a fold.
    pub harness_luts: u64,
    pub harness_flip_flops: u64,
    /// The design's own LUT positions (the totals' less the harness's) and their share of the
    /// device: what the design would take in a user's image. What must fit is the total.
    pub design_lut_positions: u64,
    pub design_lut_position_pct: f64,
    /// The clock constraint the place and route ran against.
    pub constraint_mhz: f64,
    /// nextpnr's placer and router, as passed to it (`heap` is its default placer): system16
    /// takes another placer than the blocks ([`Design::placer`]); all take [`ROUTER`].
    pub placer: String,
    pub router: String,
    /// nextpnr's placement seed. One netlist's Fmax spreads over seeds by several MHz (the
    /// docs/fpga.md), so a figure is reproduced with its seed.
    pub seed: u32,
    /// nextpnr's Fmax for the clock (after place and route).
    pub fmax_mhz: Option<f64>,
    /// icetime's estimate (iCE40 only).
    pub icetime_mhz: Option<f64>,
    pub critical_path: Option<CriticalPath>,
    /// nextpnr's Fmax meets the constraint.
    pub timing_met: Option<bool>,
    /// The design fits the device (false: more cells than it has, counting each ECP5 carry cell
    /// as the two LUT positions it takes ([`Board::lut_positions`]), or nextpnr could not place
    /// it; no bitstream then, and nextpnr only packs, for `logic_cells`).
    pub fits: bool,
    /// Why it does not fit, in nextpnr's words.
    pub unfit: Option<String>,
    pub bitstream: Option<PathBuf>,
    /// Wall-clock time of each stage: synthesis, place and route, and the bitstream (packing,
    /// and icetime on the iCE40).
    pub synth_seconds: f64,
    pub pnr_seconds: f64,
    pub bitstream_seconds: f64,
    /// The tools that ran, each as its path and the version line it prints.
    pub tools: Vec<String>,
}

/// nextpnr's router for every design: its default, `router1`, which rips up and reroutes one
/// net at a time. On system16 as placed by the static placer (77.8 % of the LUT positions,
/// f493b3d's netlist) it routed in 717 s at 65.94 MHz, where `router2`, which routes all nets
/// at once with a congestion cost, got down to 60 overused wires after 58 iterations and then
/// diverged (4,522 after 152). On the 90 % netlist of 085a60d `router1` was still at 302,000
/// overused wires after 30 minutes, which is why system16 took `router2` from 7e49cc6 to
/// 0124743 (docs/fpga.md).
pub const ROUTER: &str = "router1";

/// Where the ECP5 tools live: `$IDEMNET_FPGA_VENV`, else the workspace's `.venv-fpga` (made by
/// `scripts/setup.sh`).
pub fn venv() -> PathBuf {
    match std::env::var_os("IDEMNET_FPGA_VENV") {
        Some(v) => PathBuf::from(v),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-fpga"),
    }
}

/// The LUT mapping of a flow on `board`: `$IDEMNET_LUT_MAPPING` (a [`LutMapping::name`], to
/// measure the others), else the board's choice, [`Board::lut_mapping`].
pub fn lut_mapping(board: Board) -> Result<LutMapping> {
    let Some(name) = std::env::var_os("IDEMNET_LUT_MAPPING") else {
        return Ok(board.lut_mapping());
    };
    let name = name.to_string_lossy();
    LutMapping::from_name(&name)
        .filter(|m| board.lut_mappings().contains(m))
        .ok_or_else(|| {
            let known: Vec<&str> = board.lut_mappings().iter().map(|m| m.name()).collect();
            anyhow!(
                "IDEMNET_LUT_MAPPING={name}: {board} supports {}",
                known.join(", ")
            )
        })
}

/// Whether `name` is a program on `PATH`.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(name).is_file()))
}

/// Whether a flow on `board` gives its `abc9` the flip-flops: `$IDEMNET_ABC_DFF` (`1` or `0`,
/// to measure the other), else the board's choice, [`Board::abc_dff`].
pub fn abc_dff(board: Board) -> Result<bool> {
    match std::env::var("IDEMNET_ABC_DFF") {
        Ok(value) => match value.as_str() {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => bail!("IDEMNET_ABC_DFF={value}: 1 or 0"),
        },
        Err(_) => Ok(board.abc_dff()),
    }
}

/// The yosys of a flow on the ECP5 for `design`: `$IDEMNET_ECP5_YOSYS` (a
/// [`Synthesizer::name`], to measure the other), else the design's choice,
/// [`Design::synthesizer`]. (The iCE40's yosys is always Debian's.)
pub fn synthesizer(board: Board, design: Design) -> Result<Synthesizer> {
    if board == Board::Ice40Hx8k {
        return Ok(Synthesizer::Debian);
    }
    match std::env::var("IDEMNET_ECP5_YOSYS") {
        Ok(name) => Synthesizer::from_name(&name)
            .ok_or_else(|| anyhow!("IDEMNET_ECP5_YOSYS={name}: yowasp or debian")),
        Err(_) => Ok(design.synthesizer()),
    }
}

/// The yosys command that gives abc9 its delay target for `design` at `mhz`
/// ([`Design::abc9_delay_share`] of the period, in picoseconds), or none; a mapping that does
/// not run abc9 does not read it.
pub fn abc9_delay_target(design: Design, mhz: f64) -> String {
    match design.abc9_delay_share() {
        None => String::new(),
        Some(share) => {
            let picoseconds = (1e6 / mhz * share).round() as u64;
            format!("scratchpad -set abc9.D {picoseconds}; ")
        }
    }
}

/// The yosys program of `synthesizer` on `board`.
fn yosys(board: Board, synthesizer: Synthesizer) -> Result<PathBuf> {
    match synthesizer {
        Synthesizer::Debian if on_path("yosys") => Ok(PathBuf::from("yosys")),
        Synthesizer::Debian => bail!(
            "yosys not found on PATH: Debian's yosys synthesizes this design; \
             run `bash scripts/setup.sh`"
        ),
        Synthesizer::YoWasp => tool(board, "yosys"),
    }
}

/// The program of a tool on `board`. The iCE40 tools are Debian's. For the ECP5, a native
/// `nextpnr-ecp5` or `ecppack` on `PATH` is used when there is one (it runs natively, not as
/// WebAssembly); yosys is YoWASP's even when Debian's is present, because Debian 12's yosys 0.23
/// maps the ECP5 designs to more LUTs (the NI: 5,433 LUT4 against YoWASP 0.70's 4,915), unless
/// the design asks for Debian's ([`yosys`]).
fn tool(board: Board, name: &str) -> Result<PathBuf> {
    match board {
        Board::Ice40Hx8k => Ok(PathBuf::from(name)),
        Board::Ecp5_85k if name != "yosys" && on_path(name) => Ok(PathBuf::from(name)),
        Board::Ecp5_85k => {
            let p = venv().join("bin").join(format!("yowasp-{name}"));
            if !p.exists() {
                bail!(
                    "{} not found: the ECP5 tools come from PyPI into {}; run `bash scripts/setup.sh`",
                    p.display(),
                    venv().display()
                );
            }
            Ok(p)
        }
    }
}

/// The first line a tool prints for `version_flag`, as the report names the tool (for example
/// `Yosys 0.23 (git sha1 7ce5011c24b)`); the program's path when it prints none.
fn tool_version(board: Board, name: &str, version_flag: &str) -> Result<String> {
    program_version(&tool(board, name)?, version_flag)
}

fn program_version(prog: &Path, version_flag: &str) -> Result<String> {
    let line = Command::new(prog)
        .arg(version_flag)
        .output()
        .ok()
        .and_then(|o| {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            text.lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string)
        });
    Ok(format!(
        "{}: {}",
        prog.display(),
        line.unwrap_or_else(|| "(no version line)".into())
    ))
}

fn run(board: Board, name: &str, dir: &Path, args: &[&str]) -> Result<String> {
    run_program(&tool(board, name)?, dir, args)
}

fn run_program(prog: &Path, dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new(prog)
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| {
            anyhow!(
                "cannot run {} ({e}); run `bash scripts/setup.sh` to install the FPGA tools",
                prog.display()
            )
        })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        let tail: Vec<&str> = text.lines().rev().take(25).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "{} failed ({}) in {}:\n{}",
            prog.display(),
            out.status,
            dir.display(),
            tail.join("\n")
        );
    }
    Ok(text)
}

/// The build folder of a board and design under `root`.
pub fn build_dir(root: &Path, board: Board, design: Design) -> PathBuf {
    root.join(board.name()).join(design.name())
}

/// What yosys's statistics count, as the report needs it.
#[derive(Clone, Copy, Debug, Default)]
struct Cells {
    /// LUT4, distributed RAM included (four per ECP5 16x4 block).
    luts: u64,
    flip_flops: u64,
    carries: u64,
    brams: u64,
    /// LUT positions that distributed RAM's write ports take beside the RAM's own (two per ECP5
    /// 16x4 block: nextpnr's "RAMW LUTs"), usable for nothing else.
    ram_write: u64,
}

impl Cells {
    /// The LUT positions these cells take at least (nextpnr's "Total LUT4s" before packing).
    fn lut_positions(&self, board: Board) -> u64 {
        board.lut_positions(self.luts, self.carries) + self.ram_write
    }
}

/// Cell counts from yosys's `stat -json`.
fn cells(stat: &Value, board: Board) -> Result<Cells> {
    let by_type = stat
        .pointer("/design/num_cells_by_type")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("yosys statistics without num_cells_by_type"))?;
    let (mut l, mut f, mut c, mut b, mut w) = (0, 0, 0, 0, 0);
    for (name, n) in by_type {
        let n = n.as_u64().unwrap_or(0);
        match (board, name.as_str()) {
            (Board::Ice40Hx8k, "SB_LUT4") | (Board::Ecp5_85k, "LUT4") => l += n,
            (Board::Ice40Hx8k, "SB_CARRY") | (Board::Ecp5_85k, "CCU2C") => c += n,
            (Board::Ice40Hx8k, x) if x.starts_with("SB_RAM40") => b += n,
            (Board::Ecp5_85k, "DP16KD") | (Board::Ecp5_85k, "PDPW16KD") => b += n,
            (Board::Ice40Hx8k, x) if x.starts_with("SB_DFF") => f += n,
            (Board::Ecp5_85k, "TRELLIS_FF") => f += n,
            // Distributed RAM is built of LUTs: four per 16x4 block (nextpnr's "RAM LUTs"),
            // and two more that its write port (RAMW) takes from a slice ([`Cells::ram_write`]).
            (Board::Ecp5_85k, "TRELLIS_DPR16X4") => {
                l += 4 * n;
                w += 2 * n;
            }
            _ => {}
        }
    }
    if l == 0 {
        bail!("yosys statistics without LUTs");
    }
    Ok(Cells {
        luts: l,
        flip_flops: f,
        carries: c,
        brams: b,
        ram_write: w,
    })
}

fn pct(n: u64, of: u64) -> f64 {
    (n as f64 * 1000.0 / of as f64).round() / 10.0
}

/// Fmax and the critical path from nextpnr's `--report`.
fn timing(report: &Value) -> (Option<f64>, Option<CriticalPath>) {
    let fmax = report.get("fmax").and_then(Value::as_object).and_then(|m| {
        m.values()
            .filter_map(|c| c.get("achieved").and_then(Value::as_f64))
            .reduce(f64::min)
    });
    let path = report
        .get("critical_paths")
        .and_then(Value::as_array)
        .and_then(|ps| {
            ps.iter().find(|p| {
                p.get("from")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s != "<async>")
                    && p.get("to")
                        .and_then(Value::as_str)
                        .is_some_and(|s| s != "<async>")
            })
        })
        .and_then(|p| p.get("path").and_then(Value::as_array))
        .map(|steps| {
            let end = |s: Option<&Value>, k: &str| {
                s.and_then(|s| s.get(k))
                    .map(|e| {
                        format!(
                            "{}.{}",
                            e.get("cell").and_then(Value::as_str).unwrap_or("?"),
                            e.get("port").and_then(Value::as_str).unwrap_or("?")
                        )
                    })
                    .unwrap_or_default()
            };
            let sum = |kind: &str| {
                steps
                    .iter()
                    .filter(|s| s.get("type").and_then(Value::as_str) == Some(kind))
                    .filter_map(|s| s.get("delay").and_then(Value::as_f64))
                    .sum::<f64>()
            };
            CriticalPath {
                from: end(steps.first(), "from"),
                to: end(steps.last(), "to"),
                logic_ns: sum("logic") + sum("clk-to-q") + sum("setup"),
                routing_ns: sum("routing"),
            }
        });
    (fmax, path)
}

/// icetime's estimate: "Total path delay: 12.34 ns (81.04 MHz)".
/// The used and available logic cells of nextpnr's device utilisation (its log).
fn packed_cells(log: &str, board: Board) -> Option<(u64, u64)> {
    let kind = match board {
        Board::Ice40Hx8k => "ICESTORM_LC:",
        Board::Ecp5_85k => "TRELLIS_COMB:",
    };
    let line = log.lines().find(|l| l.contains(kind))?;
    let (used, avail) = line.split(kind).nth(1)?.split_once('/')?;
    let avail = avail.split_whitespace().next()?;
    Some((used.trim().parse().ok()?, avail.parse().ok()?))
}

fn icetime_mhz(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.contains("Total path delay"))?;
    let open = line.find('(')?;
    line[open + 1..].split_whitespace().next()?.parse().ok()
}

/// Runs the flow of `design` on `board` up to `stage` in `root/<board>/<design>`, against
/// `freq_mhz` (the board clock if `None`), nextpnr placing with `seed`
/// ([`DEFAULT_PLACER_SEED`] unless the user asks for another).
pub fn run_flow(
    root: &Path,
    board: Board,
    design: Design,
    stage: Stage,
    freq_mhz: Option<f64>,
    seed: u32,
) -> Result<Report> {
    let (dut, ports, top) = design.verilog(board)?;
    let dir = build_dir(root, board, design);
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    fs::write(dir.join("top.v"), format!("{dut}\n{top}")).context("writing top.v")?;
    let constraint_mhz = freq_mhz.unwrap_or(board.clock_mhz());
    let (cname, ctext) = board.constraints_at(constraint_mhz);
    fs::write(dir.join(cname), ctext).with_context(|| format!("writing {cname}"))?;
    let mapping = lut_mapping(board)?;
    let synthesizer = synthesizer(board, design)?;
    let dff = abc_dff(board)?;
    let synth = board
        .synth_script(mapping, synthesizer, dff)
        .ok_or_else(|| anyhow!("{board} has no LUT mapping {mapping}"))?;
    let synth = format!("{}{synth}", abc9_delay_target(design, constraint_mhz));
    if matches!(
        mapping,
        LutMapping::MuxcoverAbc9NoWideLut | LutMapping::MuxcoverAbc9
    ) {
        fs::write(dir.join(ECP5_MUX_MAP), ECP5_MUX_MAP_TEXT)
            .with_context(|| format!("writing {ECP5_MUX_MAP}"))?;
    }
    let yosys = yosys(board, synthesizer)?;
    let tools = vec![program_version(&yosys, "-V")?];
    let label = format!("idemnet fpga: {board} / {design}");
    eprintln!("{label}: synthesis, LUT mapping {mapping} ({synth}) ...");
    let t0 = Instant::now();
    let stat = synthesize(&yosys, &synth, &dir)?;
    let synth_seconds = t0.elapsed().as_secs_f64();
    eprintln!("{label}: synthesis took {synth_seconds:.1} s");
    let all = cells(&stat, board)?;
    let Cells {
        luts,
        flip_flops,
        carries,
        brams,
        ..
    } = all;
    let harness = match design.harness(&ports) {
        None => Cells::default(),
        Some(harness) => {
            eprintln!("{label}: synthesis of the stimulus harness alone ...");
            let t = Instant::now();
            let h = synthesize_harness(board, &yosys, &synth, &dir, &harness)?;
            eprintln!(
                "{label}: the harness alone: {} LUT4, {} flip-flops, {} carries ({:.1} s)",
                h.luts,
                h.flip_flops,
                h.carries,
                t.elapsed().as_secs_f64()
            );
            h
        }
    };
    let lut_positions = all.lut_positions(board);
    let design_lut_positions = lut_positions.saturating_sub(harness.lut_positions(board));
    let cap = board.capacity();
    let mut report = Report {
        board: board.name().into(),
        design: design.name().into(),
        luts,
        flip_flops,
        carries,
        brams,
        lut_mapping: mapping.name().into(),
        abc_dff: dff,
        lut_pct: pct(luts, cap.luts),
        ff_pct: pct(flip_flops, cap.flip_flops),
        carry_pct: pct(carries, cap.carries),
        bram_pct: pct(brams, cap.brams),
        lut_positions,
        lut_position_pct: pct(lut_positions, cap.luts),
        logic_cells: None,
        logic_cell_pct: None,
        harness_luts: harness.luts,
        harness_flip_flops: harness.flip_flops,
        design_lut_positions,
        design_lut_position_pct: pct(design_lut_positions, cap.luts),
        constraint_mhz,
        placer: design.placer().unwrap_or("heap").into(),
        router: ROUTER.into(),
        seed,
        fmax_mhz: None,
        icetime_mhz: None,
        critical_path: None,
        timing_met: None,
        fits: lut_positions <= cap.luts
            && flip_flops <= cap.flip_flops
            && carries <= cap.carries
            && brams <= cap.brams,
        unfit: None,
        bitstream: None,
        synth_seconds,
        pnr_seconds: 0.0,
        bitstream_seconds: 0.0,
        tools,
    };
    if stage == Stage::Bitstream && !report.fits {
        // Pack only, for the cell count nextpnr would have to place.
        let mut a = board.nextpnr_device().to_vec();
        a.extend([
            "--json",
            "board.json",
            "--pack-only",
            "-q",
            "-l",
            "nextpnr.log",
        ]);
        place(board, board.nextpnr(), &dir, &a, &mut report)?;
    }
    if stage == Stage::Bitstream && report.fits {
        let freq = format!("{constraint_mhz}");
        let seed_text = format!("{seed}");
        let t1 = Instant::now();
        let common = [
            "--json",
            "board.json",
            "--freq",
            &freq,
            "--seed",
            &seed_text,
            "--router",
            ROUTER,
            "--report",
            "nextpnr-report.json",
            "--timing-allow-fail",
            "-q",
            "-l",
            "nextpnr.log",
        ];
        let mut a = board.nextpnr_device().to_vec();
        a.extend(match board {
            Board::Ice40Hx8k => ["--asc", "board.asc"],
            Board::Ecp5_85k => ["--textcfg", "board.config"],
        });
        a.extend(common);
        if let Some(placer) = design.placer() {
            a.extend(["--placer", placer]);
        }
        report
            .tools
            .push(tool_version(board, board.nextpnr(), "--version")?);
        eprintln!(
            "{label}: place and route at {constraint_mhz} MHz (placer {}, {}) ...",
            report.placer, report.router
        );
        let placed = place(board, board.nextpnr(), &dir, &a, &mut report)?;
        // The time of an attempt that found no placement too: on a full device it is long.
        report.pnr_seconds = t1.elapsed().as_secs_f64();
        if !placed {
            eprintln!(
                "{label}: place and route gave up after {:.1} s",
                report.pnr_seconds
            );
            return finish(&dir, report);
        }
        eprintln!("{label}: place and route took {:.1} s", report.pnr_seconds);
        let t2 = Instant::now();
        let bitstream = match board {
            Board::Ice40Hx8k => {
                run(board, "icepack", &dir, &["board.asc", "board.bin"])?;
                let t = run(
                    board,
                    "icetime",
                    &dir,
                    &[
                        "-d",
                        "hx8k",
                        "-P",
                        "cb132",
                        "-p",
                        "board.pcf",
                        "-t",
                        "board.asc",
                    ],
                )?;
                fs::write(dir.join("icetime.txt"), &t).context("writing icetime.txt")?;
                report.icetime_mhz = icetime_mhz(&t);
                dir.join("board.bin")
            }
            Board::Ecp5_85k => {
                report
                    .tools
                    .push(tool_version(board, "ecppack", "--version")?);
                run(
                    board,
                    "ecppack",
                    &dir,
                    &["--compress", "board.config", "board.bit"],
                )?;
                dir.join("board.bit")
            }
        };
        report.bitstream_seconds = t2.elapsed().as_secs_f64();
        eprintln!("{label}: bitstream took {:.1} s", report.bitstream_seconds);
        let nr: Value = serde_json::from_str(
            &fs::read_to_string(dir.join("nextpnr-report.json"))
                .context("reading nextpnr-report.json")?,
        )
        .context("parsing nextpnr-report.json")?;
        let (fmax, path) = timing(&nr);
        report.fmax_mhz = fmax;
        report.critical_path = path;
        report.timing_met = fmax.map(|f| f >= constraint_mhz);
        if !bitstream.exists() {
            bail!("no bitstream at {}", bitstream.display());
        }
        report.bitstream = Some(bitstream);
    }
    finish(&dir, report)
}

/// Synthesizes `top.v` in `dir` by `synth` (the netlist `board.json`, the log `yosys.log`) and
/// returns yosys's statistics (`stat.json`).
fn synthesize(yosys: &Path, synth: &str, dir: &Path) -> Result<Value> {
    run_program(
        yosys,
        dir,
        &[
            "-q",
            "-l",
            "yosys.log",
            "-p",
            &format!("{synth}; tee -q -o stat.json stat -json"),
            "top.v",
        ],
    )?;
    let file = dir.join("stat.json");
    serde_json::from_str(
        &fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?,
    )
    .with_context(|| format!("parsing {}", file.display()))
}

/// The cells of the board top `harness` (the design a black box),
/// synthesized by `synth` in `dir/harness`.
fn synthesize_harness(
    board: Board,
    yosys: &Path,
    synth: &str,
    dir: &Path,
    harness: &str,
) -> Result<Cells> {
    let hdir = dir.join("harness");
    fs::create_dir_all(&hdir).with_context(|| format!("creating {}", hdir.display()))?;
    fs::write(hdir.join("top.v"), harness).context("writing harness/top.v")?;
    if dir.join(ECP5_MUX_MAP).exists() {
        fs::copy(dir.join(ECP5_MUX_MAP), hdir.join(ECP5_MUX_MAP))
            .with_context(|| format!("copying {ECP5_MUX_MAP}"))?;
    }
    cells(&synthesize(yosys, synth, &hdir)?, board)
}

/// Runs place and route; `false` (and `fits` cleared, with nextpnr's words in `unfit`) when
/// the design does not fit the device.
fn place(board: Board, prog: &str, dir: &Path, args: &[&str], report: &mut Report) -> Result<bool> {
    let result = run(board, prog, dir, args);
    let log = fs::read_to_string(dir.join("nextpnr.log")).unwrap_or_default();
    if let Some((used, avail)) = packed_cells(&log, board) {
        report.logic_cells = Some(used);
        report.logic_cell_pct = Some(pct(used, avail));
    }
    match result {
        Ok(_) => Ok(true),
        Err(e) => {
            let msg = format!("{e:#}");
            match unfit_line(&msg) {
                Some(line) => {
                    report.fits = false;
                    report.unfit = Some(line.trim().to_string());
                    Ok(false)
                }
                None => Err(e),
            }
        }
    }
}

/// The line of nextpnr's output that says the design does not fit the device, if one does.
fn unfit_line(output: &str) -> Option<&str> {
    const UNFIT: [&str; 5] = [
        "Failed to expand region",
        "Unable to place",
        "Unable to find legal placement",
        "too large",
        "Not enough",
    ];
    output
        .lines()
        .find(|line| UNFIT.iter().any(|u| line.contains(u)))
}

fn finish(dir: &Path, report: Report) -> Result<Report> {
    fs::write(
        dir.join("idemnet-report.json"),
        serde_json::to_string_pretty(&report)? + "\n",
    )
    .context("writing idemnet-report.json")?;
    Ok(report)
}

/// The reports as a table (Markdown, so that the README can carry it as printed).
pub fn table(reports: &[Report]) -> String {
    let mut s = String::from(
        "| board | design | LUT mapping | logic cells (packed) | LUT4 | flip-flops | carry | block RAM | harness LUT4 / FF | LUT positions without it | constraint | Fmax (nextpnr) | icetime | timing |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        let mhz = |x: Option<f64>| x.map(|f| format!("{f:.1} MHz")).unwrap_or("-".into());
        let met = match r.timing_met {
            _ if !r.fits => "DOES NOT FIT the device".to_string(),
            Some(true) => "met".to_string(),
            Some(false) => format!(
                "MISSED by {:.1} MHz",
                r.constraint_mhz - r.fmax_mhz.unwrap_or(0.0)
            ),
            None => "(synthesis only)".to_string(),
        };
        let cells = match (r.logic_cells, r.logic_cell_pct) {
            (Some(n), Some(p)) => format!("{n} ({p}%)"),
            _ => "-".into(),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} ({}%) | {} ({}%) | {} ({}%) | {} ({}%) | {} / {} | {} ({}%) | {} MHz | {} | {} | {} |\n",
            r.board,
            r.design,
            if r.abc_dff {
                format!("{} -dff", r.lut_mapping)
            } else {
                r.lut_mapping.clone()
            },
            cells,
            r.luts,
            r.lut_pct,
            r.flip_flops,
            r.ff_pct,
            r.carries,
            r.carry_pct,
            r.brams,
            r.bram_pct,
            r.harness_luts,
            r.harness_flip_flops,
            r.design_lut_positions,
            r.design_lut_position_pct,
            r.constraint_mhz,
            mhz(r.fmax_mhz),
            mhz(r.icetime_mhz),
            met
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// system16's abc9 is told half the period of the asked clock, in picoseconds; the blocks'
    /// abc9 maps for its least delay.
    #[test]
    fn abc9_delay_target_is_half_the_period_for_system16_only() {
        assert_eq!(
            abc9_delay_target(Design::System16, 50.0),
            "scratchpad -set abc9.D 10000; "
        );
        assert_eq!(
            abc9_delay_target(Design::System16, 62.5),
            "scratchpad -set abc9.D 8000; "
        );
        for design in [Design::Switch, Design::Ni, Design::RmppRx, Design::Node] {
            assert_eq!(abc9_delay_target(design, 100.0), "", "{design}");
        }
    }

    #[test]
    fn parses_packed_cells() {
        let log = "Info: port $nextpnr_ICESTORM_LC_43.I1, connected\nInfo: \t         ICESTORM_LC:  9163/ 7680   119%\n";
        assert_eq!(packed_cells(log, Board::Ice40Hx8k), Some((9163, 7680)));
        let log = "Info: \t        TRELLIS_COMB:    5941/  83640     7%\n";
        assert_eq!(packed_cells(log, Board::Ecp5_85k), Some((5941, 83640)));
        assert_eq!(packed_cells(log, Board::Ice40Hx8k), None);
    }

    /// nextpnr-ecp5's words when the placer gives up on a full device (system16 at 98.5 % of
    /// the LFE5U-85F's LUTs), and a failure that is not about size.
    #[test]
    fn knows_a_design_that_does_not_fit() {
        let out = "Info: Running main analytical placer, max placement attempts per cell = 48372802.\n\
                   ERROR: Unable to find legal placement for all cells, design is probably at utilisation limit.\n\
                   0 warnings, 1 error\n";
        assert!(unfit_line(out)
            .unwrap()
            .starts_with("ERROR: Unable to find legal placement"));
        assert_eq!(unfit_line("ERROR: cannot open board.json\n"), None);
    }

    #[test]
    fn parses_icetime() {
        let t =
            "// Timing estimate: 12.50 ns (80.00 MHz)\nTotal path delay: 15.71 ns (63.66 MHz)\n";
        assert_eq!(icetime_mhz(t), Some(63.66));
        assert_eq!(icetime_mhz("nothing"), None);
    }

    #[test]
    fn parses_nextpnr_timing() {
        let r: Value = serde_json::from_str(
            r#"{"fmax": {"clk": {"achieved": 63.5, "constraint": 100.0}},
                "critical_paths": [
                  {"from": "<async>", "to": "posedge clk", "path": []},
                  {"from": "posedge clk", "to": "posedge clk", "path": [
                    {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "a", "port": "CLK"}, "to": {"cell": "a", "port": "Q"}},
                    {"type": "routing", "delay": 2.0, "from": {"cell": "a", "port": "Q"}, "to": {"cell": "b", "port": "I0"}},
                    {"type": "setup", "delay": 0.25, "from": {"cell": "b", "port": "I0"}, "to": {"cell": "b", "port": "D"}}]}]}"#,
        )
        .unwrap();
        let (f, p) = timing(&r);
        assert_eq!(f, Some(63.5));
        let p = p.unwrap();
        assert_eq!((p.from.as_str(), p.to.as_str()), ("a.CLK", "b.D"));
        assert_eq!((p.logic_ns, p.routing_ns), (0.75, 2.0));
    }
}
