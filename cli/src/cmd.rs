//! The subcommands. Each returns the exit code of a run that worked (0, or 1 for a difference
//! found) or an error, which `main` prints in one line with exit code 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use idemnet_cosim::{wavediff as diff_waves, DiffOptions};
use idemnet_model::fault::Faults;
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::Reachability;
use idemnet_spec::flit::{describe, FLIT_BITS};
use idemnet_spec::CYCLE_TIME_NS;
use idemnet_testbench::{cosim as run_cosim, Block, Config, CosimOptions, CosimReport};

use crate::output::write_whole;
use crate::progress::Progress;
use crate::results;
use crate::{out, outln, BlockArg, Command, Engine, ReplayBlock};

fn config(block: BlockArg, k: usize, n: usize) -> Result<Config> {
    let block = match block {
        BlockArg::Router => Block::Switch,
        BlockArg::Fabric => Block::Fabric,
        BlockArg::Ni => return Config::named("ni"),
        BlockArg::System => Block::System,
        BlockArg::RmppRx => return Config::named("rmpp-rx"),
    };
    Config::new(block, k, n)
}

/// What `cosim` and `model` share: the block, its tree, the run's length and stimulus, faults
/// and traffic, and which engine the tree's size is checked for.
pub struct RunSettings<'a> {
    pub block: BlockArg,
    pub k: usize,
    pub n: usize,
    pub cycles: u64,
    pub seed: u64,
    pub load: f64,
    pub faults: &'a FaultArgs,
    pub traffic: &'a TrafficArgs,
    pub ni: &'a NiArgs,
    /// The Verilated RTL runs (`cosim`), not the golden model alone (`model`).
    pub rtl: bool,
}

impl Command {
    /// The settings of a `cosim` or `model` command.
    pub fn run_settings(&self) -> Option<RunSettings<'_>> {
        let (block, k, n, cycles, seed, load, faults, traffic, ni, rtl) = match self {
            Command::Cosim {
                block,
                k,
                n,
                cycles,
                seed,
                load,
                faults,
                traffic,
                ni,
                ..
            } => (block, k, n, cycles, seed, load, faults, traffic, ni, true),
            Command::Model {
                block,
                k,
                n,
                cycles,
                seed,
                load,
                faults,
                traffic,
                ni,
                ..
            } => (block, k, n, cycles, seed, load, faults, traffic, ni, false),
            _ => return None,
        };
        Some(RunSettings {
            block: *block,
            k: *k,
            n: *n,
            cycles: *cycles,
            seed: *seed,
            load: *load,
            faults,
            traffic,
            ni,
            rtl,
        })
    }
}

impl RunSettings<'_> {
    /// The configuration and options of the run, every option checked: the block (one the
    /// engine runs), its tree and size (for the RTL or the golden model), faults, traffic, length.
    pub fn setup(&self) -> Result<(Config, CosimOptions)> {
        if !self.rtl {
            model_block(self.block)?;
        }
        let mut cfg = config(self.block, self.k, self.n)?;
        cfg.rmpp.selective = !self.traffic.rmpp_in_order;
        self.ni.apply(&mut cfg.ni)?;
        if self.rtl {
            cfg.check_rtl_size()?;
        } else {
            cfg.check_system_nodes()?;
        }
        let mut opts = CosimOptions {
            drain: self.faults.drain,
            ..CosimOptions::new(self.cycles, self.seed, self.load)
        };
        opts.faults = self.faults.faults(&cfg)?;
        self.traffic.apply(&cfg, &mut opts)?;
        if self.rtl && self.traffic.protocol.baseline().is_some() {
            bail!(
                "--protocol {}: a baseline of the golden model only, with no RTL \
                 (docs/protocol.md §15): run it with `idemnet model --block system`",
                self.traffic.protocol.name()
            );
        }
        Ok((cfg, opts))
    }
}

/// The blocks `idemnet model` runs: the fabric, the NI and the system.
fn model_block(block: BlockArg) -> Result<BlockArg> {
    match block {
        BlockArg::System | BlockArg::Fabric | BlockArg::Ni => Ok(block),
        other => bail!(
            "--block {}: `idemnet model` runs the fabric, the NI or the system",
            format!("{other:?}").to_lowercase()
        ),
    }
}

/// Checks a command without running it: every configuration it would build, every bound and
/// every option, as the run itself checks them first (the same functions).
pub fn validate(command: &Command) -> Result<()> {
    match command {
        Command::Verilog { k, n, .. } => verilog_designs(*k, *n).map(|_| ()),
        Command::Sweep(a) => a.grid().check(),
        _ => match command.run_settings() {
            Some(run) => run.setup().map(|_| ()),
            None => Ok(()),
        },
    }
}

/// The files `idemnet verilog` writes and the configuration of each, validated (the tree's size
/// included: [`Config::check_rtl_size`]).
fn verilog_designs(k: usize, n: usize) -> Result<Vec<(&'static str, Config)>> {
    let designs = vec![
        ("switch.v", Config::new(Block::Switch, k, n)?),
        ("fabric.v", Config::new(Block::Fabric, k, n)?),
        ("ni.v", Config::named("ni")?),
        ("rmpp_rx.v", Config::named("rmpp-rx")?),
        ("system.v", Config::new(Block::System, k, n)?),
    ];
    for (_, cfg) in &designs {
        cfg.check_rtl_size()?;
    }
    Ok(designs)
}

/// `idemnet verilog`: `switch.v` (leaf switch 0), `fabric.v`, `ni.v` (the `ni` configuration),
/// `rmpp_rx.v` (the `rmpp-rx` configuration), `system.v`, the lint waivers and a FuseSoC core
/// file. Each design's modules are named after its block (`idemnet_fabric`,
/// `idemnet_fabric$switches$0`, ...), so that all the files compile together, and each file
/// starts with a header naming the generator, its version and the configuration. Each file is
/// written whole or not at all.
pub fn verilog(out: &Path, k: usize, n: usize) -> Result<ExitCode> {
    let designs = verilog_designs(k, n)?;
    crate::output::create_folder("--out", out)?;
    let mut emitted = vec![];
    for (file, cfg) in designs {
        let (v, ports) = cfg.verilog()?;
        let name = cfg.block.module_name();
        let header = format!(
            "// {name}: the {cfg}, as docs/protocol.md specifies it.\n\
             // Generated by idemnet {} with rust-hdl 0.46.0 (`idemnet verilog --k {k} --n {n}`); do not edit.\n\
             // Top module {name}, {} ports (clock included); its submodules are {name}$<instance path>.\n",
            crate::VERSION,
            ports.len() + 1
        );
        let v = header + &idemnet_cosim::modules::rename_top(&v, "top", name)?;
        let path = out.join(file);
        write_whole(&path, v.as_bytes())?;
        outln!(
            "{}: {cfg}, top module `{name}`, {} ports, {} bytes",
            path.display(),
            ports.len() + 1,
            v.len()
        )?;
        emitted.push((file, name));
    }
    let w = out.join("waivers.vlt");
    write_whole(&w, idemnet_rtl::LINT_WAIVERS.as_bytes())?;
    outln!(
        "{}: Verilator lint waivers (verilator --lint-only -Wall waivers.vlt fabric.v)",
        w.display()
    )?;
    let core = out.join("idemnet.core");
    write_whole(&core, core_file(&emitted, k, n).as_bytes())?;
    outln!(
        "{}: FuseSoC core {CORE_NAME} (fusesoc --cores-root {} run --target sim {CORE_NAME})",
        core.display(),
        out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The FuseSoC name (vendor:library:name:version) of what `idemnet verilog` emits.
pub const CORE_NAME: &str = concat!("idemnet:net:blocks:", env!("CARGO_PKG_VERSION"));

/// The Icarus options of the core's simulation targets: rust-hdl declares every output `reg`,
/// and the block-RAM cells drive theirs with `assign`, which SystemVerilog allows and
/// Verilog-2005 does not (the project's own Icarus runs use -g2012 too).
const ICARUS: &str = "    tools:\n      icarus:\n        iverilog_options: [-g2012]\n";

/// A FuseSoC CAPI2 core of the emitted files: `default` (the files, top `idemnet_system`),
/// `sim` (Icarus by default, all the files, top `idemnet_system`), `sim_<block>` (one top) and
/// `lint` (Verilator -Wall with the waivers, every top at once).
fn core_file(emitted: &[(&str, &str)], k: usize, n: usize) -> String {
    let files: Vec<String> = emitted
        .iter()
        .map(|(f, _)| format!("      - {f}"))
        .collect();
    let tops: Vec<&str> = emitted.iter().map(|(_, m)| *m).collect();
    format!(
        "CAPI=2:\n\
         # Generated by idemnet {version} (`idemnet verilog --k {k} --n {n}`); do not edit.\n\
         # Top modules: {tops}. Target sim builds them all (top idemnet_system), sim_<block> one,\n\
         # lint lints them all: fusesoc --cores-root . run --target sim_fabric {CORE_NAME}\n\
         name: {CORE_NAME}\n\
         description: idemnet's blocks (k = {k}, n = {n}), emitted from rust-hdl\n\
         filesets:\n\
         \x20 rtl:\n\
         \x20   file_type: verilogSource\n\
         \x20   files:\n{files}\n\
         \x20 waivers:\n\
         \x20   file_type: vlt\n\
         \x20   files:\n\
         \x20     - waivers.vlt\n\
         targets:\n\
         \x20 default:\n\
         \x20   filesets: [rtl]\n\
         \x20   toplevel: idemnet_system\n\
         \x20 sim:\n\
         \x20   default_tool: icarus\n\
         \x20   filesets: [rtl]\n\
         \x20   toplevel: idemnet_system\n\
         {icarus}\
         \x20 lint:\n\
         \x20   default_tool: verilator\n\
         \x20   filesets: [rtl, waivers]\n\
         \x20   toplevel: idemnet_system\n\
         \x20   tools:\n\
         \x20     verilator:\n\
         \x20       mode: lint-only\n\
         \x20       verilator_options: [-Wall, -Wno-MULTITOP]\n{per_block}",
        version = crate::VERSION,
        icarus = ICARUS,
        tops = tops.join(", "),
        files = files.join("\n"),
        per_block = emitted
            .iter()
            .map(|(file, top)| format!(
                "  sim_{}:\n    default_tool: icarus\n    filesets: [rtl]\n    toplevel: {top}\n{ICARUS}",
                file.trim_end_matches(".v")
            ))
            .collect::<String>(),
    )
}

/// The fault options of `idemnet cosim` and `idemnet model`, as given (system only).
#[derive(clap::Args)]
pub struct FaultArgs {
    /// System: probability that a link drops a flit (every link), 0..=1.
    #[arg(long, default_value_t = 0.0, value_parser = crate::args::fraction, allow_negative_numbers = true)]
    pub loss: f64,
    /// System: probability that a link flips a data bit of a flit, 0..=1.
    #[arg(long, default_value_t = 0.0, value_parser = crate::args::fraction, allow_negative_numbers = true)]
    pub corrupt: f64,
    /// System: kill up port PORT of switch SWITCH (global switch index), both directions;
    /// may be given more than once.
    #[arg(long, value_name = "SWITCH:PORT")]
    pub dead_link: Vec<String>,
    /// System: cycles the drain may take at most after the traffic stops, 0 to 10^12.
    #[arg(long, default_value_t = 200_000, value_parser = crate::args::drain)]
    pub drain: u64,
}

impl FaultArgs {
    /// The injectors' settings; `--dead-link S:U` is inter-switch link `j = S k + U` (§9).
    fn faults(&self, cfg: &Config) -> Result<Faults> {
        let mut f = Faults::from_probabilities(self.loss, self.corrupt)
            .map_err(|e| anyhow::anyhow!("--loss / --corrupt: {e}"))?;
        let tree = cfg.tree()?;
        let inner = (tree.n - 1) * tree.per_level();
        for d in &self.dead_link {
            let bad = || {
                anyhow::anyhow!(
                    "--dead-link {d}: expected SWITCH:PORT with SWITCH in 0..{inner} (a switch \
                     below the top level) and PORT in 0..{}",
                    tree.k
                )
            };
            let (s, u) = d.split_once(':').ok_or_else(bad)?;
            let (s, u): (usize, usize) = (
                s.trim().parse().map_err(|_| bad())?,
                u.trim().parse().map_err(|_| bad())?,
            );
            if s >= inner || u >= tree.k {
                return Err(bad());
            }
            f.dead.push(s * tree.k + u);
        }
        Ok(f)
    }
}

/// Which protocols carry the system's traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    Idempotent,
    Rmpp,
    Both,
    /// ParaStation2's ACK/NACK go-back-N in place of the datagrams (golden model only, §15).
    Parastation,
    /// U-Net's lazy acknowledgements in place of the datagrams (golden model only, §15).
    Unet,
}

impl Protocol {
    /// The seed protocol a baseline runs, if this is one.
    pub fn baseline(self) -> Option<idemnet_model::baseline::Policy> {
        use idemnet_model::baseline::Policy;
        match self {
            Protocol::Parastation => Some(Policy::ParaStation),
            Protocol::Unet => Some(Policy::UNet),
            _ => None,
        }
    }

    pub fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string())
    }
}

/// The traffic options of the system (`idemnet cosim` and `idemnet model`).
#[derive(clap::Args)]
pub struct TrafficArgs {
    /// System: which protocols carry traffic (datagrams at --load, messages at --rmpp-load;
    /// parastation and unet carry the datagrams' traffic, in the golden model only).
    #[arg(long, value_enum, default_value = "idempotent")]
    pub protocol: Protocol,
    /// System: offered RMPP load, flits of data worms per sending node per cycle, 0..=1. RMPP
    /// restarts whole blocks on a loss, so it saturates far below the idempotent protocol.
    #[arg(long, default_value_t = 0.05, value_parser = crate::args::fraction, allow_negative_numbers = true)]
    pub rmpp_load: f64,
    /// System: RMPP message lengths are uniform in 0..=MAX_LEN bytes (at most 1024, the
    /// receive path's buffer per message).
    #[arg(long, default_value_t = 1024)]
    pub max_len: usize,
    /// System: every other node sends its messages to node N (many to one): its datagrams with
    /// `--protocol idempotent` or a baseline, its RMPP messages with `rmpp` or `both` (the
    /// datagrams of `both` stay uniform).
    #[arg(long, value_name = "N")]
    pub to_one: Option<u16>,
    /// System: every datagram exactly B payload bytes, 0..=32 (without it, uniform in 0..=32).
    #[arg(long, value_name = "B")]
    pub dgram_len: Option<usize>,
    /// System and RMPP receive path: the RMPP paper's in-order receivers, which drop every
    /// packet after a missing one, instead of the default selective acceptance (receivers keep
    /// up to 16 packets past a missing one and say in their CTS which they hold; senders send
    /// again only the missing ones: docs/protocol.md §11.7).
    #[arg(long)]
    pub rmpp_in_order: bool,
}

impl TrafficArgs {
    /// Applies the options to `opts` (the system only; rejected elsewhere).
    fn apply(&self, cfg: &Config, opts: &mut CosimOptions) -> Result<()> {
        if self.max_len > cfg.rmpp.max_msg {
            bail!(
                "--max-len {}: the receive path keeps at most {} bytes per message",
                self.max_len,
                cfg.rmpp.max_msg
            );
        }
        let nodes = cfg.tree()?.nodes();
        if let Some(d) = self.to_one {
            if d as usize >= nodes {
                bail!("--to-one {d}: the nodes are 0..{nodes}");
            }
        }
        idemnet_testbench::config::check_dgram_len(self.dgram_len)?;
        opts.dgram_len = self.dgram_len;
        opts.idempotent = self.protocol != Protocol::Rmpp;
        opts.dgram_pattern = match (self.protocol, self.to_one) {
            (Protocol::Idempotent, Some(d)) => Pattern::ToOne(d),
            _ => Pattern::Uniform,
        };
        opts.rmpp = MsgTraffic {
            load: if matches!(self.protocol, Protocol::Rmpp | Protocol::Both) {
                self.rmpp_load
            } else {
                0.0
            },
            min_len: 0,
            max_len: self.max_len,
            pattern: self.to_one.map(Pattern::ToOne).unwrap_or(Pattern::Uniform),
            send: SendConfig {
                mtu: cfg.rmpp.mtu,
                selective: cfg.rmpp.selective,
                ..SendConfig::DEFAULT
            },
        };
        Ok(())
    }
}

/// The idempotent NI's parameters (docs/protocol.md §8.2), for every NI of the system and for
/// `--block ni`; what is not given keeps its default. The RTL is generated with them too, so a
/// co-simulation checks the same NI the golden model runs.
#[derive(clap::Args)]
pub struct NiArgs {
    /// NI: send slots, 1..=16 (default 4): the datagrams a node has in flight at most.
    #[arg(long, value_name = "N")]
    pub send_slots: Option<usize>,
    /// NI: receive slots, 1..=16 (default 8): the uids a node remembers until their FORGET.
    #[arg(long, value_name = "N")]
    pub recv_slots: Option<usize>,
    /// NI: cycles between two SENDs of one datagram, 1..=65535 (default 128), spread as
    /// --retry-spread says.
    #[arg(long, value_name = "CYCLES")]
    pub retry_interval: Option<u16>,
    /// NI: the retry's random spread, 0 or a power of two up to --retry-interval (default: an
    /// eighth of the retry interval, rounded down to a power of two: 16 for 128).
    #[arg(long, value_name = "CYCLES")]
    pub retry_spread: Option<u16>,
    /// NI: cycles between two ACKs of one uid, 1..=65535 (default 32).
    #[arg(long, value_name = "CYCLES")]
    pub ack_interval: Option<u16>,
}

impl NiArgs {
    /// The defaults with the parameters given set, unchecked; the spread follows a retry
    /// interval given without one, as in a replay trace (docs/replay.md).
    pub fn config(&self) -> idemnet_model::ni::NiConfig {
        let mut ni = idemnet_model::ni::NiConfig::DEFAULT;
        self.set(&mut ni);
        ni
    }

    fn set(&self, ni: &mut idemnet_model::ni::NiConfig) {
        if let Some(v) = self.send_slots {
            ni.send_slots = v;
        }
        if let Some(v) = self.recv_slots {
            ni.recv_slots = v;
        }
        if let Some(v) = self.retry_interval {
            ni.retry_interval = v;
            ni.retry_spread = idemnet_model::ni::NiConfig::spread_for(v);
        }
        if let Some(v) = self.retry_spread {
            ni.retry_spread = v;
        }
        if let Some(v) = self.ack_interval {
            ni.ack_interval = v;
        }
    }

    /// Sets the parameters given in `ni` and checks the whole (§8.2's ranges).
    pub fn apply(&self, ni: &mut idemnet_model::ni::NiConfig) -> Result<()> {
        self.set(ni);
        idemnet_testbench::config::check_ni_options(ni)
    }
}

/// The system's settings as the first line of a run prints them, and, when the dead links
/// disconnect nodes, a second line saying so before the run.
fn system_header(
    cfg: &Config,
    opts: &CosimOptions,
    faults: &FaultArgs,
    traffic: &TrafficArgs,
) -> Result<String> {
    // `--to-one` redirects the datagrams of `idempotent` (and a baseline's), else RMPP's.
    let to_one = traffic
        .to_one
        .map(|d| format!(", all to node {d}"))
        .unwrap_or_default();
    let (dgram_to_one, mut rmpp_to_one) = match traffic.protocol {
        Protocol::Rmpp | Protocol::Both => (String::new(), to_one),
        _ => (to_one, String::new()),
    };
    if traffic.rmpp_in_order {
        rmpp_to_one += ", in-order acceptance";
    }
    let mut s = format!(
        ", protocol {:?} (datagrams {} bytes{dgram_to_one}; RMPP load {}, 0..={} bytes{rmpp_to_one}), loss {} corrupt {} (thresholds {} {} of 65536), dead links {:?}",
        traffic.protocol,
        opts.dgram_len
            .map_or("0..=32".to_string(), |b| b.to_string()),
        opts.rmpp.load,
        opts.rmpp.max_len,
        faults.loss,
        faults.corrupt,
        opts.faults.loss,
        opts.faults.corrupt,
        opts.faults.dead
    );
    if let Some(cut) = Reachability::new(&cfg.tree()?, &opts.faults.dead).describe() {
        s += &format!("\n  warning: {cut}: what they send each other cannot arrive");
    }
    Ok(s)
}

/// A waveform format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WaveFormat {
    Vcd,
    Fst,
}

/// Where a run's waveforms go, and which cycles they cover.
pub struct Waves {
    pub dir: Option<PathBuf>,
    pub window: Option<(u64, u64)>,
    /// FST instead of VCD.
    pub fst: bool,
    /// Where a run without `dir` that mismatches writes the waveforms of its last
    /// [`MISMATCH_CYCLES`] cycles, re-run from its seed (`None`: it does not).
    pub on_mismatch: Option<PathBuf>,
}

/// The cycles up to a mismatch that its waveform shows: enough for a whole worm of the longest
/// packets to cross the 16-node tree several times.
pub const MISMATCH_CYCLES: u64 = 500;

/// `--trace-from` and `--trace-to` as a window `from..=to`, `None` when neither is given.
pub fn window(from: Option<u64>, to: Option<u64>) -> Result<Option<(u64, u64)>> {
    if from.is_none() && to.is_none() {
        return Ok(None);
    }
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(u64::MAX));
    if from > to {
        bail!("--trace-from {from} is after --trace-to {to}: the window is empty");
    }
    Ok(Some((from, to)))
}

/// `idemnet cosim`: exit 1 on a mismatch, a scoreboard error or a lost datagram.
pub fn cosim(
    run: RunSettings,
    waves: Waves,
    verilog: Option<PathBuf>,
    quiet: bool,
    json: Option<&Path>,
) -> Result<ExitCode> {
    let (cfg, opts) = run.setup()?;
    let (faults, traffic) = (run.faults, run.traffic);
    let opts = CosimOptions {
        vcd_dir: waves.dir,
        window: waves.window,
        fst: waves.fst,
        verilog,
        ..opts
    };
    if let Some((from, _)) = opts.window {
        let last = if cfg.block == Block::System {
            opts.cycles.saturating_add(opts.drain)
        } else {
            opts.cycles
        };
        if from >= last {
            bail!("--trace-from {from}: the run has {last} cycles at most (0..{last})");
        }
    }
    if let Some(v) = &opts.verilog {
        if !v.is_file() {
            bail!("--verilog {}: no such file", v.display());
        }
    }
    outln!(
        "idemnet cosim: {cfg}, seed {}, load {}, {} cycles{}{}",
        opts.seed,
        opts.load,
        opts.cycles,
        if cfg.block == Block::System {
            system_header(&cfg, &opts, faults, traffic)?
        } else {
            String::new()
        },
        opts.verilog
            .as_ref()
            .map(|v| format!(", RTL from {}", v.display()))
            .unwrap_or_default()
    )?;
    let mut progress = Progress::cycles("cosim", opts.cycles, quiet);
    let report = run_cosim(&cfg, &opts, |c| progress.set(c))?;
    progress.finish();
    out!("{report}")?;
    let title = format!("idemnet cosim: {cfg}, seed {}", opts.seed);
    let system_nodes = (cfg.block == Block::System)
        .then(|| cfg.tree().map(|t| t.nodes()))
        .transpose()?;
    let save_files = |r: &CosimReport, from: u64| -> Result<()> {
        if let Some((rtl, model)) = &r.vcd {
            // The mismatch's output changes half a cycle after its cycle starts (§1).
            let view = crate::gtkw::View {
                start: CYCLE_TIME_NS * from,
                focus: r
                    .lockstep
                    .mismatch
                    .as_ref()
                    .map(|m| (m.port.as_str(), CYCLE_TIME_NS * m.cycle + CYCLE_TIME_NS / 2)),
                packets: cfg.block.carries_packets(),
            };
            let (a, b) =
                crate::gtkw::write_pair((rtl, model), &r.ports, view, system_nodes, &title)?;
            outln!(
                "  GTKWave    {} {} (idemnet wave {})",
                a.display(),
                b.display(),
                rtl.parent()
                    .map_or(String::new(), |d| d.display().to_string())
            )?;
        }
        Ok(())
    };
    save_files(&report, opts.window.map_or(0, |w| w.0))?;
    if let Some(m) = &report.lockstep.mismatch {
        let flit = report
            .ports
            .iter()
            .any(|p| p.name == m.port && p.width == FLIT_BITS);
        let value = |h: &str| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok();
        if let (true, Some(e), Some(a)) = (flit, value(&m.expected), value(&m.actual)) {
            outln!(
                "  the flits  expected {}, actual {}",
                describe(e),
                describe(a)
            )?;
        }
    }
    // The runs are deterministic: the same seed, traced only near the end, gives the cycles
    // that matter without tracing the whole run.
    let mut mismatch_waves = None;
    if let (Some(m), None, Some(dir)) =
        (&report.lockstep.mismatch, &opts.vcd_dir, &waves.on_mismatch)
    {
        let window = (m.cycle.saturating_sub(MISMATCH_CYCLES - 1), m.cycle);
        let again = CosimOptions {
            vcd_dir: Some(dir.clone()),
            window: Some(window),
            ..opts.clone()
        };
        let second = run_cosim(&cfg, &again, |_| {})?;
        save_files(&second, window.0)?;
        let same = second.lockstep.mismatch.as_ref() == Some(m);
        if let (true, Some((r, mo))) = (same, &second.vcd) {
            outln!(
                "  mismatch waveforms of cycles {}..={} (re-run from seed {}): {} {} (idemnet wave {})",
                window.0,
                window.1,
                opts.seed,
                r.display(),
                mo.display(),
                dir.display()
            )?;
            mismatch_waves = Some((r.clone(), mo.clone()));
        } else {
            outln!("  the re-run from seed {} did not repeat the mismatch: no waveform (a defect, please report)", opts.seed)?;
        }
    }
    let (figures, mut lockstep) = results::cosim_parts(&report);
    if let serde_json::Value::Object(l) = &mut lockstep {
        l.insert(
            "mismatch_waveforms".into(),
            serde_json::json!(mismatch_waves),
        );
    }
    let mut rec = record("cosim", &run, &cfg, &opts).timed(
        report.lockstep.cycles,
        report.lockstep.elapsed.as_secs_f64(),
    );
    rec.passed = report.passed();
    rec.first_error = report
        .lockstep
        .mismatch
        .as_ref()
        .map(|m| m.to_string())
        .or(report.first_scoreboard_error.clone());
    rec.figures = figures;
    rec.lockstep = Some(lockstep);
    rec.write(json)?;
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A run's record with everything the settings say: block, configuration, seed, load, and the
/// system's faults and traffic.
fn record(
    subcommand: &'static str,
    run: &RunSettings,
    cfg: &Config,
    opts: &CosimOptions,
) -> results::RunRecord {
    let block = run
        .block
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string());
    let mut rec = results::RunRecord::new(subcommand, block, cfg.to_string());
    rec.seed = Some(opts.seed);
    rec.load = Some(opts.load);
    if cfg.block == Block::System {
        let (f, t) = (run.faults, run.traffic);
        rec.settings = serde_json::json!({
            "protocol": t.protocol.to_possible_value().map(|v| v.get_name().to_string()),
            "rmpp_load": opts.rmpp.load,
            "max_len": opts.rmpp.max_len,
            "dgram_len": opts.dgram_len,
            "to_one": t.to_one,
            "rmpp_selective": !t.rmpp_in_order,
            "loss": f.loss,
            "corrupt": f.corrupt,
            "loss_threshold": opts.faults.loss,
            "corrupt_threshold": opts.faults.corrupt,
            "dead_links": opts.faults.dead,
            "drain": opts.drain,
            "ni": {
                "send_slots": cfg.ni.send_slots,
                "recv_slots": cfg.ni.recv_slots,
                "retry_interval": cfg.ni.retry_interval,
                "retry_spread": cfg.ni.retry_spread,
                "ack_interval": cfg.ni.ack_interval,
            },
        });
    }
    rec
}

/// The last lines of a model-only run.
fn print_scoreboard_and_speed(
    errors: u64,
    first: Option<&str>,
    cycles: u64,
    secs: f64,
) -> Result<()> {
    match first {
        None => outln!("  scoreboard 0 errors")?,
        Some(e) => outln!("  scoreboard {errors} errors, the first: {e}")?,
    }
    outln!(
        "  speed      {:.0} cycles/s ({secs:.2} s)",
        cycles as f64 / secs.max(1e-9)
    )?;
    Ok(())
}

/// `idemnet model`: the golden model alone; exit 1 on a scoreboard error.
pub fn model(run: RunSettings, json: Option<&Path>) -> Result<ExitCode> {
    let (k, n, cycles, seed, load) = (run.k, run.n, run.cycles, run.seed, run.load);
    let cfg = Config::new(Block::Fabric, k, n)?;
    outln!("idemnet model: {cfg}, seed {seed}, load {load}, {cycles} cycles")?;
    let t0 = Instant::now();
    let s = idemnet_model::run_model_only(k, n, load, seed, cycles)
        .map_err(|e| anyhow::anyhow!("{}", e.0))?;
    let secs = t0.elapsed().as_secs_f64();
    outln!(
        "  sent       {} flits in {} worms",
        s.flits_sent,
        s.worms_sent
    )?;
    outln!(
        "  delivered  {} flits in {} worms",
        s.flits_delivered,
        s.worms_delivered
    )?;
    outln!("  discarded  {} worms", s.drops)?;
    print_scoreboard_and_speed(s.errors, s.first_error.as_deref(), cycles, secs)?;
    let opts = CosimOptions::new(cycles, seed, load);
    let mut rec = record("model", &run, &cfg, &opts).timed(cycles, secs);
    rec.passed = s.errors == 0;
    rec.first_error = s.first_error.clone();
    rec.figures = serde_json::json!({
        "flits_sent": s.flits_sent,
        "worms_sent": s.worms_sent,
        "flits_delivered": s.flits_delivered,
        "worms_delivered": s.worms_delivered,
        "worms_discarded": s.drops,
        "scoreboard_errors": s.errors,
    });
    rec.write(json)?;
    Ok(if s.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet model --block ni`: the NI's golden model alone under the peers of `cosim --block
/// ni`, which judge every delivery and completion; exit 1 when they saw something wrong.
pub fn model_ni(run: RunSettings, json: Option<&Path>) -> Result<ExitCode> {
    let (cfg, opts) = run.setup()?;
    let (cycles, seed, load) = (opts.cycles, opts.seed, opts.load);
    outln!("idemnet model: {cfg}, seed {seed}, load {load}, {cycles} cycles")?;
    let t0 = Instant::now();
    let r = idemnet_testbench::cosim::model_ni(&cfg, &opts)?;
    let secs = t0.elapsed().as_secs_f64();
    for (name, value) in &r.figures {
        outln!("  {name}: {value}")?;
    }
    print_scoreboard_and_speed(r.errors, r.first_error.as_deref(), cycles, secs)?;
    let mut rec = record("model", &run, &cfg, &opts).timed(cycles, secs);
    rec.passed = r.errors == 0;
    rec.first_error = r.first_error.clone();
    rec.figures = serde_json::json!({
        "scoreboard_errors": r.errors,
        "block": results::counts(&r.figures),
    });
    rec.write(json)?;
    Ok(if r.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet model --block system --protocol parastation|unet`: a seed's classic protocol over
/// the system's fabric, faults and datagram traffic (docs/protocol.md §15).
fn model_baseline(
    run: &RunSettings,
    cfg: &Config,
    opts: &CosimOptions,
    policy: idemnet_model::baseline::Policy,
    json: Option<&Path>,
) -> Result<ExitCode> {
    use idemnet_model::baseline::{Baseline, BaselineConfig};
    let baseline = BaselineConfig::new(policy);
    let b = Baseline::new(
        cfg.tree()?,
        baseline,
        opts.load,
        opts.dgram_len,
        run.traffic.to_one.map_or(Pattern::Uniform, Pattern::ToOne),
        opts.seed,
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let t0 = Instant::now();
    let r = b
        .run(opts.cycles, opts.drain, &opts.faults)
        .map_err(|e| anyhow::anyhow!(e))?;
    let secs = t0.elapsed().as_secs_f64();
    let f = &r.figures;
    outln!(
        "  {} (window {}, timeout {} cycles{}, receive ring {})",
        policy.name(),
        baseline.window,
        baseline.timeout,
        if policy == idemnet_model::baseline::Policy::UNet {
            format!(", backed off up to {}", baseline.max_timeout)
        } else {
            String::new()
        },
        baseline.ring
    )?;
    for [name, value, _] in idemnet_model::system::figure_rows(f, f) {
        outln!("  {name:<40}  {value}")?;
    }
    let verdict = r.first_error.clone().or_else(|| {
        (f.lost > 0).then(|| format!("{} messages undelivered after the drain", f.lost))
    });
    print_scoreboard_and_speed(f.scoreboard_errors, verdict.as_deref(), opts.cycles, secs)?;
    let mut rec = record("model", run, cfg, opts).timed(opts.cycles, secs);
    rec.passed = verdict.is_none();
    rec.first_error = verdict.clone();
    rec.figures = serde_json::json!({ policy.name(): f, "scoreboard_errors": f.scoreboard_errors });
    rec.write(json)?;
    Ok(if verdict.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet model --block system`: the system's golden model alone under host traffic and
/// faults, drained; exit 1 on a scoreboard error or anything lost.
pub fn model_system(run: RunSettings, json: Option<&Path>) -> Result<ExitCode> {
    let (cfg, opts) = run.setup()?;
    let (cycles, seed, load) = (opts.cycles, opts.seed, opts.load);
    outln!(
        "idemnet model: {cfg}, seed {seed}, load {load}, {cycles} cycles{}",
        system_header(&cfg, &opts, run.faults, run.traffic)?
    )?;
    let tree = cfg.tree()?;
    if let Some(policy) = run.traffic.protocol.baseline() {
        return model_baseline(&run, &cfg, &opts, policy, json);
    }
    let idem_load = if opts.idempotent { load } else { 0.0 };
    let hosts = idemnet_model::system::SystemHosts::with_pattern(
        &tree,
        idem_load,
        opts.dgram_pattern,
        opts.rmpp,
        seed,
    )
    .and_then(|h| h.with_dgram_len(opts.dgram_len))
    .map_err(|e| anyhow::anyhow!(e))?;
    let t0 = Instant::now();
    let mut progress = Progress::cycles("model", cycles, false);
    let h = idemnet_model::system::run_with_hosts_progress(
        tree,
        cfg.ni,
        cfg.rmpp,
        hosts,
        cycles,
        &opts.faults,
        opts.drain,
        |t| progress.set(t),
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    progress.finish();
    let secs = t0.elapsed().as_secs_f64();
    out!(
        "{}",
        idemnet_testbench::cosim::side_by_side(&h.figures(cycles))
    )?;
    let verdict = h.verdict(&tree, &opts.faults, &cfg.ni);
    print_scoreboard_and_speed(h.failures(), verdict.as_deref(), cycles, secs)?;
    let mut rec = record("model", &run, &cfg, &opts).timed(cycles, secs);
    rec.passed = h.failures() == 0;
    rec.first_error = verdict;
    rec.figures = serde_json::to_value(h.summary(cycles))?;
    if let serde_json::Value::Object(m) = &mut rec.figures {
        m.insert("scoreboard_errors".into(), h.errors().into());
    }
    rec.write(json)?;
    Ok(if h.failures() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet wave DIR`: GTKWave's `twinwave` on the model's and the RTL's waveforms of a run, one
/// above the other with their time cursors tied. Needs a display (`DISPLAY`, or run it under
/// `xvfb-run`).
pub fn wave(dir: &Path, print: bool) -> Result<ExitCode> {
    let pick = |name: &str| {
        ["vcd", "fst"]
            .iter()
            .map(|ext| dir.join(format!("{name}.{ext}")))
            .find(|f| f.is_file())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: no {name}.vcd or {name}.fst there (idemnet wave takes a folder of `cosim --vcd DIR` or of a mismatch)",
                    dir.display()
                )
            })
    };
    let files = [pick("model")?, pick("rtl")?];
    // Each waveform with its save file, when `cosim` wrote one beside it.
    let mut args: Vec<std::ffi::OsString> = vec![];
    for (i, f) in files.iter().enumerate() {
        if i == 1 {
            args.push("+".into());
        }
        args.push(f.clone().into_os_string());
        let save = f.with_extension("gtkw");
        if save.is_file() {
            args.push(save.into_os_string());
        }
    }
    let shown = format!(
        "twinwave {}",
        args.iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    if print {
        outln!("{shown}")?;
        return Ok(ExitCode::SUCCESS);
    }
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        bail!("no display to open GTKWave on (DISPLAY is not set); the command is: {shown}");
    }
    let status = std::process::Command::new("twinwave")
        .args(args)
        .status()
        .with_context(|| {
            format!("cannot run twinwave (GTKWave's; scripts/setup.sh installs it): {shown}")
        })?;
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet wavediff`: exit 1 when a compared signal differs.
pub fn wavediff(
    a: &Path,
    b: &Path,
    root_a: Option<&str>,
    root_b: Option<&str>,
) -> Result<ExitCode> {
    let d = diff_waves(
        a,
        b,
        &DiffOptions {
            root_a: root_a.map(str::to_owned),
            root_b: root_b.map(str::to_owned),
            deep: false,
        },
    )?;
    out!("{d}")?;
    Ok(if d.is_equal() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet replay`: one JSON line per action of the block, written as it happens, summary
/// last (docs/replay.md).
pub fn replay(block: ReplayBlock, engine: Engine, trace: &Path) -> Result<ExitCode> {
    use idemnet_testbench::replay::{self, read_ni_trace, replay_ni_on, Idle};
    use idemnet_testbench::replay_rmpp::{read_rmpp_trace, replay_rmpp_on};
    let cache_dir = idemnet_cosim::default_cache_dir();
    let on = match engine {
        Engine::Model => replay::Engine::Model,
        Engine::Rtl => replay::Engine::Rtl {
            cache_dir: &cache_dir,
        },
    };
    let mut out = crate::output::Stdout;
    // Errors of reading say where in the trace; errors of the run name the trace here.
    let run = match block {
        ReplayBlock::Ni => replay_ni_on(on, &read_ni_trace(trace)?, Idle::Skip, &mut out),
        ReplayBlock::RmppRx => replay_rmpp_on(on, &read_rmpp_trace(trace)?, Idle::Skip, &mut out),
    };
    run.with_context(|| trace.display().to_string().escape_debug().to_string())?;
    Ok(ExitCode::SUCCESS)
}
