//! The subcommands. Each returns the exit code of a run that worked (0, or 1 for a difference
//! found) or an error, which `main` prints in one line with exit code 2.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use idemnet_cosim::{wavediff as diff_waves, DiffOptions};
use idemnet_model::fault::Faults;
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_testbench::{cosim as run_cosim, Block, Config, CosimOptions};
use indicatif::{ProgressBar, ProgressStyle};

use crate::{BlockArg, Engine, ReplayBlock};

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

fn check_load(load: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&load) {
        bail!("--load {load}: the offered load must be between 0 and 1 (flits per node per cycle)");
    }
    Ok(())
}

/// A progress bar on stderr, only when stderr is a terminal and not `quiet`.
fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} cycles {per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

/// `idemnet verilog`: `switch.v` (leaf switch 0), `fabric.v`, `ni.v` (the `ni` configuration),
/// `rmpp_rx.v` (the `rmpp-rx` configuration), `system.v` and the lint waivers.
pub fn verilog(out: &Path, k: usize, n: usize) -> Result<ExitCode> {
    let fabric = Config::new(Block::Fabric, k, n)?;
    let switch = Config::new(Block::Switch, k, n)?;
    std::fs::create_dir_all(out)
        .with_context(|| format!("--out {}: cannot create the folder", out.display()))?;
    let ni = Config::named("ni")?;
    let system = Config::new(Block::System, k, n)?;
    let rmpp_rx = Config::named("rmpp-rx")?;
    for (file, cfg) in [
        ("switch.v", switch),
        ("fabric.v", fabric),
        ("ni.v", ni),
        ("rmpp_rx.v", rmpp_rx),
        ("system.v", system),
    ] {
        let (v, ports) = cfg.verilog()?;
        let path = out.join(file);
        std::fs::write(&path, &v).with_context(|| format!("cannot write {}", path.display()))?;
        println!(
            "{}: {cfg}, top module `top`, {} ports, {} bytes",
            path.display(),
            ports.len() + 1,
            v.len()
        );
    }
    let w = out.join("waivers.vlt");
    std::fs::write(&w, idemnet_rtl::LINT_WAIVERS)
        .with_context(|| format!("cannot write {}", w.display()))?;
    println!(
        "{}: Verilator lint waivers (verilator --lint-only -Wall waivers.vlt fabric.v)",
        w.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The fault options of `idemnet cosim` and `idemnet model`, as given (system only).
#[derive(clap::Args)]
pub struct FaultArgs {
    /// System: probability that a link drops a flit (every link).
    #[arg(long, default_value_t = 0.0)]
    pub loss: f64,
    /// System: probability that a link flips a data bit of a flit.
    #[arg(long, default_value_t = 0.0)]
    pub corrupt: f64,
    /// System: kill up port PORT of switch SWITCH (global switch index), both directions;
    /// may be given more than once.
    #[arg(long, value_name = "SWITCH:PORT")]
    pub dead_link: Vec<String>,
    /// System: cycles the drain may take at most after the traffic stops.
    #[arg(long, default_value_t = 200_000)]
    pub drain: u64,
}

impl FaultArgs {
    /// The injectors' settings; `--dead-link S:U` is inter-switch link `j = S k + U` (§9).
    fn faults(&self, cfg: &Config) -> Result<Faults> {
        let any = self.loss != 0.0 || self.corrupt != 0.0 || !self.dead_link.is_empty();
        if any && cfg.block != Block::System {
            bail!("--loss, --corrupt and --dead-link apply to --block system only");
        }
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
}

/// The traffic options of the system (`idemnet cosim` and `idemnet model`).
#[derive(clap::Args)]
pub struct TrafficArgs {
    /// System: which protocols carry traffic (datagrams at --load, messages at --rmpp-load).
    #[arg(long, value_enum, default_value = "idempotent")]
    pub protocol: Protocol,
    /// System: offered RMPP load, flits of data worms per sending node per cycle. RMPP restarts
    /// whole blocks on a loss, so it saturates far below the idempotent protocol.
    #[arg(long, default_value_t = 0.05)]
    pub rmpp_load: f64,
    /// System: RMPP message lengths are uniform in 0..=MAX_LEN bytes (at most 1024, the
    /// receive path's buffer per message).
    #[arg(long, default_value_t = 1024)]
    pub max_len: usize,
    /// System: every other node sends its RMPP messages to node N (many to one).
    #[arg(long, value_name = "N")]
    pub to_one: Option<u16>,
}

impl TrafficArgs {
    /// Applies the options to `opts` (the system only; rejected elsewhere).
    fn apply(&self, cfg: &Config, opts: &mut CosimOptions) -> Result<()> {
        let given = self.protocol != Protocol::Idempotent || self.to_one.is_some();
        if given && cfg.block != Block::System {
            bail!("--protocol rmpp|both and --to-one apply to --block system only");
        }
        if !(0.0..=1.0).contains(&self.rmpp_load) {
            bail!("--rmpp-load {}: must be between 0 and 1", self.rmpp_load);
        }
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
        opts.idempotent = self.protocol != Protocol::Rmpp;
        opts.rmpp = MsgTraffic {
            load: if self.protocol == Protocol::Idempotent {
                0.0
            } else {
                self.rmpp_load
            },
            min_len: 0,
            max_len: self.max_len,
            pattern: self.to_one.map(Pattern::ToOne).unwrap_or(Pattern::Uniform),
            send: SendConfig {
                mtu: cfg.rmpp.mtu,
                ..SendConfig::DEFAULT
            },
        };
        Ok(())
    }
}

/// `idemnet cosim`: exit 1 on a mismatch, a scoreboard error or a lost datagram.
pub fn cosim(
    block: BlockArg,
    k: usize,
    n: usize,
    mut opts: CosimOptions,
    faults: FaultArgs,
    traffic: TrafficArgs,
    quiet: bool,
) -> Result<ExitCode> {
    let cfg = config(block, k, n)?;
    check_load(opts.load)?;
    opts.faults = faults.faults(&cfg)?;
    traffic.apply(&cfg, &mut opts)?;
    if let Some(v) = &opts.verilog {
        if !v.is_file() {
            bail!("--verilog {}: no such file", v.display());
        }
    }
    println!(
        "idemnet cosim: {cfg}, seed {}, load {}, {} cycles{}{}",
        opts.seed,
        opts.load,
        opts.cycles,
        if cfg.block == Block::System {
            format!(
                ", protocol {:?} (RMPP load {}, 0..={} bytes{}), loss {} corrupt {} (thresholds {} {} of 65536), dead links {:?}",
                traffic.protocol,
                opts.rmpp.load,
                opts.rmpp.max_len,
                traffic.to_one.map(|d| format!(", all to node {d}")).unwrap_or_default(),
                faults.loss,
                faults.corrupt,
                opts.faults.loss,
                opts.faults.corrupt,
                opts.faults.dead
            )
        } else {
            String::new()
        },
        opts.verilog
            .as_ref()
            .map(|v| format!(", RTL from {}", v.display()))
            .unwrap_or_default()
    );
    let pb = progress_bar(opts.cycles, quiet);
    let report = run_cosim(&cfg, &opts, |c| pb.set_position(c))?;
    pb.finish_and_clear();
    print!("{report}");
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The last lines of a model-only run.
fn print_scoreboard_and_speed(errors: u64, first: Option<&str>, cycles: u64, secs: f64) {
    match first {
        None => println!("  scoreboard 0 errors"),
        Some(e) => println!("  scoreboard {errors} errors, the first: {e}"),
    }
    println!(
        "  speed      {:.0} cycles/s ({secs:.2} s)",
        cycles as f64 / secs.max(1e-9)
    );
}

/// `idemnet model`: the golden model alone; exit 1 on a scoreboard error.
pub fn model(k: usize, n: usize, cycles: u64, seed: u64, load: f64) -> Result<ExitCode> {
    let cfg = Config::new(Block::Fabric, k, n)?;
    check_load(load)?;
    println!("idemnet model: {cfg}, seed {seed}, load {load}, {cycles} cycles");
    let t0 = Instant::now();
    let s = idemnet_model::run_model_only(k, n, load, seed, cycles)
        .map_err(|e| anyhow::anyhow!("{}", e.0))?;
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "  sent       {} flits in {} worms",
        s.flits_sent, s.worms_sent
    );
    println!(
        "  delivered  {} flits in {} worms",
        s.flits_delivered, s.worms_delivered
    );
    println!("  discarded  {} worms", s.drops);
    print_scoreboard_and_speed(s.errors, s.first_error.as_deref(), cycles, secs);
    Ok(if s.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet model --block system`: the system's golden model alone under host traffic and
/// faults, drained; exit 1 on a scoreboard error or anything lost.
pub fn model_system(
    k: usize,
    n: usize,
    cycles: u64,
    seed: u64,
    load: f64,
    faults: FaultArgs,
    traffic: TrafficArgs,
) -> Result<ExitCode> {
    let cfg = Config::new(Block::System, k, n)?;
    check_load(load)?;
    let f = faults.faults(&cfg)?;
    let mut opts = CosimOptions::new(cycles, seed, load);
    traffic.apply(&cfg, &mut opts)?;
    println!(
        "idemnet model: {cfg}, seed {seed}, protocol {:?}, load {load} / RMPP {}, {cycles} cycles, loss {} corrupt {}, dead links {:?}",
        traffic.protocol, opts.rmpp.load, faults.loss, faults.corrupt, f.dead
    );
    let tree = cfg.tree()?;
    let idem_load = if opts.idempotent { load } else { 0.0 };
    let hosts = idemnet_model::system::SystemHosts::new(&tree, idem_load, opts.rmpp, seed)
        .map_err(|e| anyhow::anyhow!(e))?;
    let t0 = Instant::now();
    let h = idemnet_model::system::run_with_hosts(
        tree,
        cfg.ni,
        cfg.rmpp,
        hosts,
        cycles,
        &f,
        faults.drain,
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let secs = t0.elapsed().as_secs_f64();
    print!(
        "{}",
        idemnet_testbench::cosim::side_by_side(&h.figures(cycles))
    );
    let first = h.first_error().cloned().or_else(|| {
        (h.failures() > 0).then(|| {
            format!(
                "{} datagrams and {} messages lost after the drain",
                h.idem.lost(),
                h.rmpp.lost()
            )
        })
    });
    print_scoreboard_and_speed(h.failures(), first.as_deref(), cycles, secs);
    Ok(if h.failures() == 0 {
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
    print!("{d}");
    Ok(if d.is_equal() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `idemnet replay`: one JSON line per action of the block, summary last.
pub fn replay(block: ReplayBlock, engine: Engine, trace: &Path) -> Result<ExitCode> {
    use idemnet_testbench::replay::{read_ni_trace, replay_ni_model, replay_ni_rtl};
    use idemnet_testbench::replay_rmpp::{read_rmpp_trace, replay_rmpp_model, replay_rmpp_rtl};
    use std::io::Write;
    let lines = match (block, engine) {
        (ReplayBlock::RmppRx, Engine::Model) => replay_rmpp_model(&read_rmpp_trace(trace)?)?,
        (ReplayBlock::RmppRx, Engine::Rtl) => replay_rmpp_rtl(
            &read_rmpp_trace(trace)?,
            &idemnet_cosim::default_cache_dir(),
        )?,
        (ReplayBlock::Ni, Engine::Model) => replay_ni_model(&read_ni_trace(trace)?)?,
        (ReplayBlock::Ni, Engine::Rtl) => {
            replay_ni_rtl(&read_ni_trace(trace)?, &idemnet_cosim::default_cache_dir())?
        }
    };
    let mut out = std::io::stdout().lock();
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(ExitCode::SUCCESS)
}
