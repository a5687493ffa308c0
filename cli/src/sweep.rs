//! `idemnet sweep`: the system's golden model over a grid (`idemnet_testbench::sweep`), with
//! progress, a CSV row per run, a JSON summary and plots.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use idemnet_testbench::sweep::{
    self, defaults, parse_list, Grid, Protocol, Row, Summary, TrafficPattern, SUMMARY_SCHEMA,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::{args, outln};

/// A list given as one comma-separated value: clap's derive would take a `Vec` field for one
/// value per occurrence, and does not look through this alias.
type List<T> = Vec<T>;

/// The options of `idemnet sweep`.
#[derive(clap::Args)]
pub struct SweepArgs {
    /// Output folder (created if missing): sweep.csv (a row per run), sweep.json (the grid and
    /// the means over seeds) and the plots as SVG and PNG.
    #[arg(long, default_value = "sweep")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 4)]
    pub k: usize,
    #[arg(long, default_value_t = 2)]
    pub n: usize,
    /// Cycles of traffic per run, 1 to 10^12.
    #[arg(long, default_value_t = defaults::CYCLES, value_parser = args::cycles)]
    pub cycles: u64,
    /// The longest drain after each run's traffic, 0 to 10^12.
    #[arg(long, default_value_t = defaults::DRAIN, value_parser = args::drain)]
    pub drain: u64,
    /// Seeds, comma-separated: every grid point runs once per seed.
    #[arg(long, default_value = defaults::SEEDS, value_parser = seeds)]
    pub seeds: List<u64>,
    /// Protocols, comma-separated: idempotent, rmpp.
    #[arg(long, default_value = defaults::PROTOCOLS, value_parser = protocols)]
    pub protocols: List<Protocol>,
    /// Traffic patterns, comma-separated: uniform, to-one (every other node to node 0),
    /// complement (node p to node nodes-1-p).
    #[arg(long, default_value = defaults::PATTERNS, value_parser = patterns)]
    pub patterns: List<TrafficPattern>,
    /// The load study's offered loads, flits per sending node per cycle, each 0..=1,
    /// comma-separated (`none`: no load study).
    #[arg(long, default_value = defaults::LOADS, value_parser = fractions)]
    pub loads: List<f64>,
    /// The loss study's flit-loss probabilities per link, each from 1/65536 to 0.99998,
    /// comma-separated (`none`: no loss study).
    #[arg(long, default_value = defaults::LOSSES, value_parser = fractions)]
    pub losses: List<f64>,
    /// The loss study's offered load, 0..=1.
    #[arg(long, default_value_t = defaults::LOSS_LOAD, value_parser = args::fraction)]
    pub loss_load: f64,
    /// RMPP message lengths are uniform in 0..=MAX_LEN bytes (at most 1024).
    #[arg(long, default_value_t = defaults::MAX_LEN)]
    pub max_len: usize,
    /// Every datagram exactly B payload bytes, 0..=32 (without it, uniform in 0..=32).
    #[arg(long, value_name = "B")]
    pub dgram_len: Option<usize>,
    /// RMPP's receivers take the paper's in-order rule instead of the default selective
    /// acceptance (docs/protocol.md §11.7).
    #[arg(long)]
    pub rmpp_in_order: bool,
    #[command(flatten)]
    pub ni: crate::cmd::NiArgs,
    /// Runs at once, 1 to 256 (default: the machine's cores).
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
    /// No progress bar: a plain line per finished run (the default when standard error is not a
    /// terminal).
    #[arg(long)]
    pub quiet: bool,
}

// clap gives a `Vec` option one value per occurrence; these parse the whole comma-separated list
// as one value (so that the default is one string) and name the bad item.
fn seeds(s: &str) -> Result<Vec<u64>, String> {
    parse_list(s, |x| {
        x.parse()
            .map_err(|_| format!("`{x}`: not a seed (a whole number)"))
    })
}
fn protocols(s: &str) -> Result<Vec<Protocol>, String> {
    parse_list(s, str::parse)
}
fn patterns(s: &str) -> Result<Vec<TrafficPattern>, String> {
    parse_list(s, str::parse)
}
fn fractions(s: &str) -> Result<Vec<f64>, String> {
    parse_list(s, |x| args::fraction(x).map_err(|e| format!("`{x}`: {e}")))
}
fn jobs(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(v) if (1..=256).contains(&v) => Ok(v),
        _ => Err("must be a whole number from 1 to 256".into()),
    }
}

impl SweepArgs {
    pub fn grid(&self) -> Grid {
        Grid {
            k: self.k,
            n: self.n,
            cycles: self.cycles,
            drain: self.drain,
            seeds: self.seeds.clone(),
            protocols: self.protocols.clone(),
            patterns: self.patterns.clone(),
            loads: self.loads.clone(),
            losses: self.losses.clone(),
            loss_load: self.loss_load,
            max_len: self.max_len,
            dgram_len: self.dgram_len,
            ni: self.ni.config(),
            rmpp_selective: !self.rmpp_in_order,
        }
    }
}

/// One finished run as a log line.
fn line(r: &Row) -> String {
    let lat = match (r.latency_p50, r.latency_p99) {
        (Some(a), Some(b)) => format!("p50 {a}, p99 {b} cycles"),
        _ => "nothing delivered".into(),
    };
    format!(
        "{} {} load {} loss {:.2e} seed {}: goodput {:.4} flits/node/cycle, {lat}, {} lost",
        r.protocol, r.pattern, r.load, r.loss, r.seed, r.goodput_flits, r.lost
    )
}

fn seconds(d: Duration) -> String {
    format!("{:.0} s", d.as_secs_f64())
}

/// `idemnet sweep`: exit 1 when a run's scoreboard found an error or a datagram was lost or
/// duplicated (RMPP losses at high flit loss are the protocol's documented limit and only
/// reported).
pub fn sweep(a: &SweepArgs) -> Result<ExitCode> {
    // The command line's checks ran `Grid::check` already, and `run_all` runs it again.
    let grid = a.grid();
    let total = grid.points().len();
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    crate::output::create_folder("--out", &a.out)?;
    // The system as a run's first line names it: its NIs too when they are not the defaults.
    let system = idemnet_testbench::Config {
        ni: grid.ni,
        ..idemnet_testbench::Config::system(grid.k, grid.n)
    };
    outln!(
        "idemnet sweep: {total} runs of the golden model of the {system}{} ({} cycles, drain at most {}) on {jobs} threads, into {}",
        if grid.rmpp_selective { "" } else { ", RMPP in order" },
        grid.cycles,
        grid.drain,
        a.out.display()
    )?;
    let bar = (!a.quiet && std::io::stderr().is_terminal()).then(|| {
        let pb = ProgressBar::new(total as u64);
        pb.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} runs, {eta} left: {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        pb
    });
    let t0 = Instant::now();
    // Plain lines go to standard error, so that they never interleave with the results.
    let log = Mutex::new(());
    let rows = grid.run_all(jobs, |r, done, total| match &bar {
        Some(pb) => {
            pb.set_message(line(r));
            pb.inc(1);
        }
        None => {
            let _g = log.lock();
            let spent = t0.elapsed();
            let left = spent.mul_f64((total - done) as f64 / done as f64);
            eprintln!(
                "[{done}/{total}, {} spent, about {} left] {}",
                seconds(spent),
                seconds(left),
                line(r)
            );
        }
    })?;
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    let secs = t0.elapsed().as_secs_f64();
    let csv = a.out.join("sweep.csv");
    sweep::write_csv(&rows, &csv)?;
    let means = sweep::means(&rows);
    let plots = idemnet_testbench::plot::plot_all(&means, &a.out)?;
    let summary = Summary {
        schema: SUMMARY_SCHEMA,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        version: crate::VERSION.to_string(),
        grid: &grid,
        runs: rows.len(),
        jobs,
        seconds: secs,
        means,
    };
    let json = a.out.join("sweep.json");
    std::fs::write(&json, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| json.display().to_string())?;
    let bad: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.scoreboard_errors > 0
                || r.duplicated > 0
                || (r.protocol == Protocol::Idempotent && r.lost > 0)
        })
        .collect();
    outln!(
        "  {} runs in {secs:.1} s ({:.2} s per run per thread)",
        rows.len(),
        secs * jobs as f64 / rows.len().max(1) as f64
    )?;
    outln!("  wrote {} and {}", csv.display(), json.display())?;
    for p in &plots {
        outln!("  plot  {}", p.display())?;
    }
    let rmpp_lost: u64 = rows
        .iter()
        .filter(|r| r.protocol == Protocol::Rmpp)
        .map(|r| r.lost)
        .sum();
    if rmpp_lost > 0 {
        outln!("  RMPP messages still undelivered after their drains: {rmpp_lost} (docs/protocol.md §12)")?;
    }
    let baseline_lost: u64 = rows
        .iter()
        .filter(|r| matches!(r.protocol, Protocol::ParaStation | Protocol::UNet))
        .map(|r| r.lost)
        .sum();
    if baseline_lost > 0 {
        outln!("  baseline messages still undelivered after their drains: {baseline_lost} (docs/protocol.md §15.4)")?;
    }
    if let Some(r) = bad.first() {
        outln!(
            "  FAIL: {} runs with scoreboard errors or datagrams lost or duplicated; the first: {}",
            bad.len(),
            line(r)
        )?;
        return Ok(ExitCode::from(1));
    }
    outln!("  PASS: no scoreboard error, no datagram lost or duplicated")?;
    Ok(ExitCode::SUCCESS)
}
