//! The co-simulation job: a [`Config`]'s Verilated RTL in lockstep with its golden model under
//! the seeded §6 traffic, with the scoreboard on the fabric's node outputs and, on request, the
//! waveforms of both sides. `idemnet cosim`, the tests and the benchmark all run this one job.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use idemnet_cosim::{run_lockstep_observed, LockstepReport, VerilatedLib, VerilatorBuild};
use idemnet_model::block::ModelBlock;
use idemnet_model::switch::{HEAD, VALID};
use idemnet_model::{PortFst, PortVcd, Scoreboard};

use crate::config::{Block, Config, Model};
use idemnet_model::fault::Faults;
use idemnet_model::ni;
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::peers::{RxPeerParams, RxPeers};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::system::{layout, Layout, SystemHosts};

/// Rows of (measure, idempotent, RMPP) as an aligned table with a header.
pub fn side_by_side(rows: &[[String; 3]]) -> String {
    let w0 = rows.iter().map(|r| r[0].len()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r[1].len()).max().unwrap_or(0).max(10);
    let mut s = format!("  {:w0$}  {:>w1$}  {}\n", "", "idempotent", "RMPP");
    for r in rows {
        s.push_str(&format!("  {:w0$}  {:>w1$}  {}\n", r[0], r[1], r[2]));
    }
    s
}

/// What to run.
#[derive(Clone, Debug)]
pub struct CosimOptions {
    pub cycles: u64,
    pub seed: u64,
    /// Offered load, flits per source per cycle, `0..=1`.
    pub load: f64,
    /// Write `rtl.vcd` (Verilator) and `model.vcd` (golden model) into this folder.
    pub vcd_dir: Option<PathBuf>,
    /// The cycles the waveforms cover, `from..=to` (`None`: the whole run). The run is the
    /// same; only what is written changes.
    pub window: Option<(u64, u64)>,
    /// Write the waveforms as FST (`rtl.fst`, `model.fst`) instead of VCD.
    pub fst: bool,
    /// Simulate this Verilog file in place of the freshly emitted design (same top, same ports).
    pub verilog: Option<PathBuf>,
    /// Where Verilator builds are cached.
    pub cache_dir: PathBuf,
    /// Link faults (the system only).
    pub faults: Faults,
    /// The system only: after `cycles`, the hosts stop asking and the run goes on until every
    /// datagram is delivered and completed, for at most this many cycles.
    pub drain: u64,
    /// The system only: the RMPP traffic (its load 0 by default: datagrams only, at `load`).
    pub rmpp: MsgTraffic,
    /// The system only: run the idempotent datagrams (at `load`).
    pub idempotent: bool,
    /// The system only: every datagram this many payload bytes (`None`: uniform in 0..=32).
    pub dgram_len: Option<usize>,
    /// The system only: where the hosts send their datagrams.
    pub dgram_pattern: Pattern,
}

impl CosimOptions {
    /// `cycles` of seeded traffic at `load`, no faults, no waveforms, the default cache.
    pub fn new(cycles: u64, seed: u64, load: f64) -> CosimOptions {
        CosimOptions {
            cycles,
            seed,
            load,
            vcd_dir: None,
            window: None,
            fst: false,
            verilog: None,
            cache_dir: idemnet_cosim::default_cache_dir(),
            faults: Faults::default(),
            drain: 200_000,
            rmpp: MsgTraffic {
                load: 0.0,
                min_len: 0,
                max_len: 1024,
                pattern: Pattern::Uniform,
                send: SendConfig::DEFAULT,
            },
            idempotent: true,
            dgram_len: None,
            dgram_pattern: Pattern::Uniform,
        }
    }
}

/// Outcome of [`cosim`].
#[derive(Clone, Debug)]
pub struct CosimReport {
    pub config: Config,
    pub seed: u64,
    pub load: f64,
    pub lockstep: LockstepReport,
    pub flits_sent: u64,
    pub worms_sent: u64,
    /// Valid flits at the block's outputs (fabric: at `node_out`; switch: at every output).
    pub flits_delivered: u64,
    /// Worms delivered: complete worms at `node_out` (fabric), heads forwarded (switch).
    pub worms_delivered: u64,
    /// Worms the switches discarded (golden model's non-wrapping count).
    pub worms_discarded: u64,
    /// Scoreboard errors at `node_out` (fabric only) and the first one.
    pub scoreboard_errors: u64,
    pub first_scoreboard_error: Option<String>,
    /// Time to emit the Verilog and to build or load the Verilator library.
    pub build_time: Duration,
    pub from_cache: bool,
    /// The waveforms written, if any: (RTL, model).
    pub vcd: Option<(PathBuf, PathBuf)>,
    /// Figures particular to the block (the NI: requests, deliveries, completions, counters).
    pub extra: Vec<(String, u64)>,
    /// The system: both protocols' figures side by side (measure, idempotent, RMPP), and the
    /// same as numbers.
    pub table: Vec<[String; 3]>,
    pub figures: Option<idemnet_model::system::RunFigures>,
    /// The design's ports (`clock` excluded), as the waveforms name them.
    pub ports: Vec<idemnet_model::ports::PortSpec>,
}

/// The stimulus of a block: worms from every source, the peers of an NI, or the hosts of a
/// system.
enum Stimulus {
    Worms(Box<idemnet_model::TrafficGen>),
    Peers(Box<ni::peers::Peers>),
    Hosts(Box<SystemHosts>),
    RxPeers(Box<RxPeers>),
}

impl CosimReport {
    /// No mismatch and no scoreboard error.
    pub fn passed(&self) -> bool {
        self.lockstep.passed() && self.scoreboard_errors == 0
    }
}

impl fmt::Display for CosimReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = &self.lockstep;
        let secs = l.elapsed.as_secs_f64();
        writeln!(
            f,
            "{}: seed {}, load {}, {} cycles",
            self.config, self.seed, self.load, l.cycles
        )?;
        if matches!(self.config.block, Block::Fabric | Block::Switch) {
            writeln!(
                f,
                "  sent       {} flits in {} worms",
                self.flits_sent, self.worms_sent
            )?;
            writeln!(
                f,
                "  delivered  {} flits in {} worms",
                self.flits_delivered, self.worms_delivered
            )?;
            writeln!(f, "  discarded  {} worms", self.worms_discarded)?;
        }
        for (name, v) in &self.extra {
            writeln!(f, "  {name}: {v}")?;
        }
        if !self.table.is_empty() {
            write!(f, "{}", side_by_side(&self.table))?;
        }
        match &l.mismatch {
            None => writeln!(f, "  mismatches 0 ({} port comparisons)", l.comparisons)?,
            Some(m) => writeln!(f, "  mismatches 1, the first: {m}")?,
        }
        if matches!(
            self.config.block,
            Block::Fabric | Block::System | Block::RmppRx | Block::Ni
        ) {
            match &self.first_scoreboard_error {
                None => writeln!(f, "  scoreboard 0 errors")?,
                Some(e) => writeln!(
                    f,
                    "  scoreboard {} errors, the first: {e}",
                    self.scoreboard_errors
                )?,
            }
        }
        writeln!(
            f,
            "  speed      {:.0} cycles/s in lockstep ({:.2} s: rtl {:.2} s, model {:.2} s; build {:.2} s{})",
            if secs > 0.0 { l.cycles as f64 / secs } else { 0.0 },
            secs,
            l.rtl_time.as_secs_f64(),
            l.model_time.as_secs_f64(),
            self.build_time.as_secs_f64(),
            if self.from_cache { ", cached" } else { "" }
        )?;
        if let Some((r, m)) = &self.vcd {
            writeln!(f, "  waveforms  {} {}", r.display(), m.display())?;
        }
        Ok(())
    }
}

/// Builds (or loads from the cache) the Verilated library of `cfg`, or of `verilog` in its
/// place: a file that must have the same top (`top`) and the same ports.
pub fn verilate(cfg: &Config, verilog: Option<&Path>, cache_dir: &Path) -> Result<VerilatedLib> {
    verilate_tracing(cfg, verilog, cache_dir, false)
}

/// [`verilate`], tracing in FST when `fst` (a build of its own, cached beside the VCD one).
pub fn verilate_tracing(
    cfg: &Config,
    verilog: Option<&Path>,
    cache_dir: &Path,
    fst: bool,
) -> Result<VerilatedLib> {
    let (emitted, ports) = cfg.verilog()?;
    let text = match verilog {
        None => emitted,
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("--verilog {}: cannot read the file", p.display()))?;
            // A file of `idemnet verilog` names its modules after the block; the build's top
            // is `top` (module_name's renaming keeps every line where it was).
            let name = cfg.block.module_name();
            if idemnet_cosim::modules::declared_modules(&text).contains(&name) {
                idemnet_cosim::modules::rename_top(&text, name, "top")
                    .with_context(|| format!("--verilog {}", p.display()))?
            } else {
                text
            }
        }
    };
    let mut build = VerilatorBuild::new("top", text, ports);
    build.waivers = Some(idemnet_rtl::LINT_WAIVERS.to_string());
    build.source = verilog.map(Path::to_path_buf);
    build.fst = fst;
    build.build(cache_dir)
}

/// Builds (or loads from the cache) the Verilated library of a design (top module `top`) with
/// the project's lint waivers.
pub fn verilate_design(
    verilog: String,
    ports: Vec<idemnet_model::ports::PortSpec>,
    cache_dir: &Path,
) -> Result<VerilatedLib> {
    verilate_source(verilog, None, ports, cache_dir)
}

/// [`verilate_design`] of a design read from the file `source`, which a failed build names.
pub fn verilate_source(
    verilog: String,
    source: Option<&Path>,
    ports: Vec<idemnet_model::ports::PortSpec>,
    cache_dir: &Path,
) -> Result<VerilatedLib> {
    verilate_source_tracing(verilog, source, ports, cache_dir, false)
}

/// [`verilate_source`], tracing in FST when `fst` (a build of its own, cached beside the VCD
/// one).
pub fn verilate_source_tracing(
    verilog: String,
    source: Option<&Path>,
    ports: Vec<idemnet_model::ports::PortSpec>,
    cache_dir: &Path,
    fst: bool,
) -> Result<VerilatedLib> {
    let mut build = VerilatorBuild::new("top", verilog, ports);
    build.waivers = Some(idemnet_rtl::LINT_WAIVERS.to_string());
    build.source = source.map(Path::to_path_buf);
    build.fst = fst;
    build.build(cache_dir)
}

/// The golden model's waveform, in the format asked for.
enum ModelWave {
    Vcd(Box<PortVcd>),
    Fst(Box<PortFst>),
}

impl ModelWave {
    fn cycle(&mut self, t: u64, inputs: &[u64], outputs: &[u64]) -> std::io::Result<()> {
        match self {
            ModelWave::Vcd(w) => w.cycle(t, inputs, outputs),
            ModelWave::Fst(w) => w.cycle(t, inputs, outputs),
        }
    }
    fn outputs_before(&mut self, outputs: &[u64]) {
        match self {
            ModelWave::Vcd(w) => w.outputs_before(outputs),
            ModelWave::Fst(w) => w.outputs_before(outputs),
        }
    }
    fn finish(self) -> std::io::Result<()> {
        match self {
            ModelWave::Vcd(w) => w.finish(),
            ModelWave::Fst(w) => w.finish(),
        }
    }
}

/// The Verilated instance with its waveform open for the ticks of cycles `from..=to` only: the
/// trace opens before the tick of `from` (so its first dump holds every value, at `10 from`) and
/// closes after the tick of `to`.
pub(crate) struct Windowed<'a> {
    instance: &'a mut idemnet_cosim::Instance,
    /// The cycle of the next tick.
    next: u64,
    from: u64,
    to: u64,
    /// The RTL waveform, if one is written.
    path: Option<PathBuf>,
    /// The first failure to open or close it, which ends the run.
    error: Option<anyhow::Error>,
}

impl<'a> Windowed<'a> {
    /// `instance` traced to `path` (if any) for the cycles `from..=to`: opened here when the
    /// window starts at cycle 0, else before the tick of `from`.
    pub(crate) fn new(
        instance: &'a mut idemnet_cosim::Instance,
        path: Option<PathBuf>,
        (from, to): (u64, u64),
    ) -> Result<Windowed<'a>> {
        if from > to {
            bail!("the waveform window {from}..={to} is empty");
        }
        if let (Some(p), 0) = (&path, from) {
            instance.open_vcd(p)?;
        }
        Ok(Windowed {
            instance,
            next: 0,
            from,
            to,
            path,
            error: None,
        })
    }
}

impl idemnet_cosim::lockstep::Dut for Windowed<'_> {
    fn set_inputs(&mut self, words: &[u64]) {
        self.instance.set_inputs(words)
    }
    fn tick(&mut self) {
        if let Some(p) = &self.path {
            if self.next == self.from && self.from > 0 && self.error.is_none() {
                self.error = self.instance.open_vcd(p).err();
            }
        }
        self.instance.tick();
        if self.path.is_some() && self.next == self.to && self.error.is_none() {
            self.error = self.instance.close_vcd().err();
        }
        self.next += 1;
    }
    fn outputs(&mut self, words: &mut [u64]) {
        self.instance.outputs(words)
    }
    fn check(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(anyhow::anyhow!("{e:#}")),
            None => self.instance.check_vcd(),
        }
    }
}

/// Runs the job. Mismatches and scoreboard errors are results, not errors; errors are bad
/// options, unreadable files and tool failures.
pub fn cosim(
    cfg: &Config,
    opts: &CosimOptions,
    mut progress: impl FnMut(u64),
) -> Result<CosimReport> {
    if !(0.0..=1.0).contains(&opts.load) {
        bail!("load must be in 0..=1, got {}", opts.load);
    }
    let t0 = Instant::now();
    let lib = verilate_tracing(cfg, opts.verilog.as_deref(), &opts.cache_dir, opts.fst)?;
    let build_time = t0.elapsed();
    let ports = lib.ports().to_vec();
    let mut model = cfg.model()?;
    if model.ports() != ports {
        bail!("{cfg}: the golden model's port list differs from the RTL's");
    }
    let tree = cfg.tree()?;
    let lay = layout(&tree);
    for &j in &opts.faults.dead {
        if j >= lay.links {
            bail!(
                "dead link {j}: the {cfg} has inter-switch links 0..{}",
                lay.links
            );
        }
    }
    let stimulus = match cfg.block {
        Block::Ni => Stimulus::Peers(Box::new(cfg.peers(opts.load, opts.seed)?)),
        Block::System => Stimulus::Hosts(Box::new(
            SystemHosts::with_pattern(
                &tree,
                if opts.idempotent { opts.load } else { 0.0 },
                opts.dgram_pattern,
                opts.rmpp,
                opts.seed,
            )
            .and_then(|h| h.with_dgram_len(opts.dgram_len))
            .map_err(|e| anyhow::anyhow!(e))?,
        )),
        Block::RmppRx => {
            let d = RxPeerParams::default();
            let p = RxPeerParams {
                msg_rate: (d.msg_rate * 2.0 * opts.load).min(1.0),
                ..d
            };
            Stimulus::RxPeers(Box::new(
                RxPeers::new(cfg.rmpp, p, opts.seed).map_err(|e| anyhow::anyhow!(e))?,
            ))
        }
        _ => Stimulus::Worms(Box::new(cfg.traffic(opts.load, opts.seed)?)),
    };
    let mut instance = lib.instance();
    let mut vcd = None;
    let mut model_vcd = None;
    let (from, to) = opts.window.unwrap_or((0, u64::MAX));
    if from > to {
        bail!("the waveform window {from}..={to} is empty");
    }
    if let Some(dir) = &opts.vcd_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--vcd {}: cannot create the folder", dir.display()))?;
        let ext = if opts.fst { "fst" } else { "vcd" };
        let (r, m) = (
            dir.join(format!("rtl.{ext}")),
            dir.join(format!("model.{ext}")),
        );
        model_vcd = Some(if opts.fst {
            ModelWave::Fst(Box::new(PortFst::create_from(&m, &ports, from)?))
        } else {
            ModelWave::Vcd(Box::new(PortVcd::create(&m, &ports)?))
        });
        vcd = Some((r, m));
    }
    let mut rtl = Windowed::new(
        &mut instance,
        vcd.as_ref().map(|(r, _)| r.clone()),
        (from, to),
    )?;
    let sources = cfg.sources()?;
    let mut scoreboard = (cfg.block == Block::Fabric).then(|| Scoreboard::new(sources));
    // Flit outputs come first among the Out ports: node_out$p (fabric), down_out and up_out
    // (switch).
    let flit_outputs = match cfg.block {
        Block::Fabric => sources,
        Block::Switch => 2 * cfg.k,
        Block::Ni | Block::RmppRx => 1,
        Block::System => 0,
    };
    let (mut flits_in, mut flits_out, mut heads_out) = (0u64, 0u64, 0u64);
    let total_cycles = match cfg.block {
        Block::System => opts.cycles.checked_add(opts.drain).with_context(|| {
            format!(
                "{} cycles and a drain of {}: the run would pass 2^64 cycles",
                opts.cycles, opts.drain
            )
        })?,
        _ => opts.cycles,
    };
    let mut vcd_error = None;
    let stimulus = std::cell::RefCell::new(stimulus);
    let lockstep = run_lockstep_observed(
        &ports,
        |t, prev, inputs| match &mut *stimulus.borrow_mut() {
            Stimulus::Worms(g) => g.step(inputs),
            Stimulus::Peers(p) => p.step(t, prev, inputs),
            Stimulus::RxPeers(p) => p.step(t, prev, inputs),
            Stimulus::Hosts(h) => {
                h.set_quiet(t >= opts.cycles);
                h.step(t, prev, inputs);
                inputs[Layout::LOSS] = opts.faults.loss as u64;
                inputs[Layout::CORRUPT] = opts.faults.corrupt as u64;
                for &j in &opts.faults.dead {
                    inputs[lay.dead(j)] = 1;
                }
            }
        },
        &mut |i: &[u64], o: &mut [u64]| model.step(i, o),
        &mut rtl,
        total_cycles,
        |v| {
            if cfg.block == Block::Ni {
                flits_in += (v.inputs[ni::inp::NET_IN] & VALID != 0) as u64;
            }
            let outs = &v.rtl[..flit_outputs];
            for &f in outs {
                flits_out += (f & VALID != 0) as u64;
                heads_out += (f & (VALID | HEAD) == VALID | HEAD) as u64;
            }
            if let Some(sb) = scoreboard.as_mut() {
                sb.check(v.cycle, outs);
            }
            if let Some(w) = model_vcd.as_mut() {
                if v.cycle + 1 == from {
                    w.outputs_before(v.model);
                }
                if (from..=to).contains(&v.cycle) {
                    if let Err(e) = w.cycle(v.cycle, v.inputs, v.model) {
                        vcd_error = Some(e);
                        return false;
                    }
                }
            }
            if v.cycle & 0xffff == 0xffff {
                progress(v.cycle + 1);
            }
            match &mut *stimulus.borrow_mut() {
                Stimulus::RxPeers(p) => {
                    p.observe(v.rtl);
                    true
                }
                Stimulus::Hosts(h) => {
                    h.observe(v.cycle, v.rtl);
                    v.cycle < opts.cycles || h.in_flight() > 0
                }
                _ => true,
            }
        },
    )?;
    progress(lockstep.cycles);
    let stimulus = stimulus.into_inner();
    if let Some(e) = rtl.error.take() {
        return Err(e);
    }
    instance.close_vcd()?;
    if lockstep.cycles <= from {
        // The run stopped (a mismatch, the drain's end) before the window: no waveform.
        if let Some((_, m)) = vcd.take() {
            let _ = std::fs::remove_file(m);
        }
        model_vcd = None;
    }
    if let Some(e) = vcd_error {
        return Err(e.into());
    }
    if let Some(w) = model_vcd {
        w.finish()?;
    }
    let (worms_delivered, mut scoreboard_errors, mut first_scoreboard_error) = match &scoreboard {
        Some(sb) => (sb.worms(), sb.errors(), sb.first_error().map(str::to_owned)),
        None => (heads_out, 0, None),
    };
    let (mut table, mut figures) = (vec![], None);
    if let Stimulus::Hosts(h) = &stimulus {
        scoreboard_errors = h.failures();
        first_scoreboard_error = h.verdict(&tree, &opts.faults, &cfg.ni);
        table = h.figures(opts.cycles);
        figures = Some(h.summary(opts.cycles));
    }
    if let Stimulus::RxPeers(p) = &stimulus {
        scoreboard_errors = p.errors;
        first_scoreboard_error = p.first_error.clone();
    }
    if let Stimulus::Peers(p) = &stimulus {
        scoreboard_errors = p.errors;
        first_scoreboard_error = p.first_error.clone();
    }
    let (flits_sent, worms_sent, extra) = match (&stimulus, &model) {
        (Stimulus::Worms(g), _) => (g.flits_sent(), g.worms_sent(), vec![]),
        (Stimulus::Peers(p), Model::Ni(n)) => (flits_in, 0, ni_figures(p, n.counters())),
        (Stimulus::RxPeers(p), Model::RmppRx(r)) => {
            let mut extra = vec![
                ("messages sent by the peers".to_string(), p.messages),
                ("upcalls answered".to_string(), p.upcalls),
                ("messages delivered to the host".to_string(), p.delivered),
            ];
            for (name, &c) in idemnet_model::rmpp::COUNTERS.iter().zip(r.counters()) {
                extra.push((format!("cnt_{name}"), c as u64));
            }
            (0, p.messages, extra)
        }
        (Stimulus::Hosts(h), Model::System(s)) => {
            let mut extra = vec![(
                "worms discarded by the switches (both protocols)".to_string(),
                s.switch_drops(),
            )];
            // The counters up to `duplicate` count the packets discarded, by reason (§8.2: the
            // replay's drop reasons); `retransmit` and `host_error` count no arriving packet.
            let (ni_totals, rx_totals) = (h.ni_totals(), h.rx_totals());
            for (c, name) in ni::COUNTERS.iter().enumerate().take(ni::cnt::DUPLICATE + 1) {
                extra.push((
                    format!("idempotent worms discarded by the NIs: {name}"),
                    ni_totals[c],
                ));
            }
            for (c, name) in idemnet_model::rmpp::COUNTERS.iter().enumerate() {
                extra.push((format!("RMPP receive paths: {name}"), rx_totals[c]));
            }
            (0, h.idem.accepted + h.rmpp.sent, extra)
        }
        _ => (flits_in, 0, vec![]),
    };
    Ok(CosimReport {
        config: *cfg,
        seed: opts.seed,
        load: opts.load,
        lockstep,
        flits_sent,
        worms_sent,
        extra,
        flits_delivered: flits_out,
        worms_delivered,
        worms_discarded: model.worms_discarded(),
        scoreboard_errors,
        first_scoreboard_error,
        build_time,
        from_cache: lib.from_cache(),
        vcd,
        table,
        figures,
        ports,
    })
}

/// What the peers of an NI saw, and the NI's counters: the figures of an NI run.
fn ni_figures(peers: &ni::peers::Peers, counters: &[u16]) -> Vec<(String, u64)> {
    let mut figures = vec![
        ("requests taken whole".to_string(), peers.accepted),
        (
            "requests refused (not well formed)".to_string(),
            peers.refused,
        ),
        (
            "datagrams delivered to the host".to_string(),
            peers.delivered,
        ),
        ("sends completed".to_string(), peers.completed),
    ];
    for (name, &c) in ni::COUNTERS.iter().zip(counters) {
        figures.push((format!("cnt_{name}"), c as u64));
    }
    figures
}

/// An NI's golden model run alone under its peers.
#[derive(Clone, Debug)]
pub struct NiModelRun {
    pub cycles: u64,
    /// Figures of the run: what the peers saw, then the NI's counters.
    pub figures: Vec<(String, u64)>,
    /// What the peers saw that no peer or request explains, and the first such thing.
    pub errors: u64,
    pub first_error: Option<String>,
}

/// The NI of `cfg` on the golden model alone, under the peers `cosim --block ni` drives it with
/// (`opts`: cycles, load and seed), the peers judging every delivery and completion.
pub fn model_ni(cfg: &Config, opts: &CosimOptions) -> Result<NiModelRun> {
    if cfg.block != Block::Ni {
        bail!("model_ni runs an NI, not the {cfg}");
    }
    let mut model = ni::Ni::new(cfg.ni).map_err(|e| anyhow::anyhow!(e))?;
    let mut peers = cfg.peers(opts.load, opts.seed)?;
    let mut inputs = vec![0u64; ni::inp::WORDS];
    let mut outputs = vec![0u64; ni::out::WORDS];
    let mut prev = outputs.clone();
    for t in 0..opts.cycles {
        peers.step(t, &prev, &mut inputs);
        model.step(&inputs, &mut outputs);
        prev.copy_from_slice(&outputs);
    }
    Ok(NiModelRun {
        cycles: opts.cycles,
        figures: ni_figures(&peers, model.counters()),
        errors: peers.errors,
        first_error: peers.first_error.clone(),
    })
}
