//! `idemnet sweep`: the system's golden model over a grid of runs, on every core, with one CSV
//! row per run, a JSON summary and plots ([`crate::plot`]). docs/results.md documents the files.
//!
//! A grid has two studies, each over every protocol, traffic pattern and seed:
//! - **load**: loss-free runs at each offered load;
//! - **loss**: runs at one offered load (`loss_load`) with each flit-loss probability on every
//!   link.
//!
//! Each run is the system of `idemnet model --block system` with one protocol carrying all the
//! traffic: `cycles` of traffic, then a drain of at most `drain` cycles. A run is a pure
//! function of its grid point, so a grid's CSV is the same on any number of cores and in any
//! order of completion; rows come in grid order.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{anyhow, bail, Context, Result};
use idemnet_model::baseline::{Baseline, BaselineConfig, Policy};
use idemnet_model::fault::Faults;
use idemnet_model::ni::NiConfig;
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::rmpp::RmppConfig;
use idemnet_model::system::{run_with_hosts, ProtocolFigures, SystemHosts};
use rayon::prelude::*;
use serde::Serialize;

use crate::config::{Block, Config};

/// The protocol that carries a run's traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Exactly-once datagrams (docs/protocol.md §8): `load` is SEND flits per node per cycle.
    Idempotent,
    /// RMPP messages (§11, §12): `load` is data-worm flits per sending node per cycle.
    Rmpp,
    /// ParaStation2's ACK/NACK go-back-N (§15, golden model only): the datagrams' traffic.
    ParaStation,
    /// U-Net's lazy acknowledgements (§15, golden model only): the datagrams' traffic.
    UNet,
}

/// Where each node's traffic goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrafficPattern {
    /// Uniformly to the other nodes.
    Uniform,
    /// Every other node to node 0 (15 to 1 on 16 nodes).
    ToOne,
    /// Node `p` to node `nodes - 1 - p`, its bit complement: every worm crosses the tree's top.
    Complement,
}

/// Both enums' names on the command line and in the files.
macro_rules! named {
    ($t:ty, $($v:ident = $s:literal),+) => {
        impl $t {
            pub const ALL: &'static [$t] = &[$(<$t>::$v),+];
            pub fn name(self) -> &'static str {
                match self { $(<$t>::$v => $s),+ }
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(self.name())
            }
        }
        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                <$t>::ALL.iter().copied().find(|v| v.name() == s.trim()).ok_or_else(|| {
                    let names: Vec<&str> = <$t>::ALL.iter().map(|v| v.name()).collect();
                    format!("`{s}`: expected one of {}", names.join(", "))
                })
            }
        }
    };
}
named!(
    Protocol,
    Idempotent = "idempotent",
    Rmpp = "rmpp",
    ParaStation = "parastation",
    UNet = "unet"
);
named!(
    TrafficPattern,
    Uniform = "uniform",
    ToOne = "to-one",
    Complement = "complement"
);

/// Which study a run belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Study {
    Load,
    Loss,
}

/// A grid of runs. [`Grid::default`] is the README's sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grid {
    /// The k-ary n-tree.
    pub k: usize,
    pub n: usize,
    /// Cycles of traffic per run, and the longest drain after them.
    pub cycles: u64,
    pub drain: u64,
    pub seeds: Vec<u64>,
    pub protocols: Vec<Protocol>,
    pub patterns: Vec<TrafficPattern>,
    /// The load study's offered loads (flits per sending node per cycle).
    pub loads: Vec<f64>,
    /// The loss study's flit-loss probabilities, and its offered load.
    pub losses: Vec<f64>,
    pub loss_load: f64,
    /// RMPP message lengths are uniform in `0..=max_len` bytes.
    pub max_len: usize,
    /// Every datagram this many payload bytes (`None`: uniform in 0..=32).
    pub dgram_len: Option<usize>,
    /// The NIs' parameters (docs/protocol.md §8.2; `node` is set per node).
    #[serde(serialize_with = "ni_parameters")]
    pub ni: NiConfig,
    /// RMPP's receivers accept selectively (docs/protocol.md §11.7; false: the paper's
    /// in-order rule, `--rmpp-in-order`).
    pub rmpp_selective: bool,
}

/// The NI's parameters in `sweep.json`, as the command line names them.
fn ni_parameters<S: serde::Serializer>(ni: &NiConfig, s: S) -> Result<S::Ok, S::Error> {
    serde_json::json!({
        "send_slots": ni.send_slots,
        "recv_slots": ni.recv_slots,
        "retry_interval": ni.retry_interval,
        "retry_spread": ni.retry_spread,
        "ack_interval": ni.ack_interval,
    })
    .serialize(s)
}

/// The default grid's lists as the command line writes them (`idemnet sweep --help` shows these).
pub mod defaults {
    pub const CYCLES: u64 = 50_000;
    pub const DRAIN: u64 = 50_000;
    pub const SEEDS: &str = "1,2,3";
    pub const PROTOCOLS: &str = "idempotent,rmpp,parastation,unet";
    pub const PATTERNS: &str = "uniform,to-one,complement";
    pub const LOADS: &str = "0.02,0.05,0.1,0.2,0.3,0.5,0.7,1";
    /// 1/65536 is the smallest loss a link applies.
    pub const LOSSES: &str = "0.0000153,0.0001,0.001,0.01,0.05";
    pub const LOSS_LOAD: f64 = 0.05;
    pub const MAX_LEN: usize = 1024;
}

/// A comma-separated list, each item parsed by `item`; `none` is the empty list.
pub fn parse_list<T>(s: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    if s.trim() == "none" {
        return Ok(vec![]);
    }
    s.split(',').map(|x| item(x.trim())).collect()
}

fn number<T: FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("`{s}`: not a number"))
}

impl Default for Grid {
    fn default() -> Self {
        // The constants are this file's own: a failure here is a bug, caught by the tests.
        Grid {
            k: 4,
            n: 2,
            cycles: defaults::CYCLES,
            drain: defaults::DRAIN,
            seeds: parse_list(defaults::SEEDS, number).expect("seeds"),
            protocols: parse_list(defaults::PROTOCOLS, str::parse).expect("protocols"),
            patterns: parse_list(defaults::PATTERNS, str::parse).expect("patterns"),
            loads: parse_list(defaults::LOADS, number).expect("loads"),
            losses: parse_list(defaults::LOSSES, number).expect("losses"),
            loss_load: defaults::LOSS_LOAD,
            max_len: defaults::MAX_LEN,
            dgram_len: None,
            ni: NiConfig::DEFAULT,
            rmpp_selective: RmppConfig::DEFAULT.selective,
        }
    }
}

/// One run of a grid.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    pub study: Study,
    pub protocol: Protocol,
    pub pattern: TrafficPattern,
    pub load: f64,
    /// The flit-loss probability as the links apply it: a 16-bit threshold over 65536.
    pub loss: f64,
    pub seed: u64,
}

/// One CSV row: a run's point and its protocol's figures. Deterministic: no wall-clock time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub study: Study,
    pub protocol: Protocol,
    pub pattern: TrafficPattern,
    pub load: f64,
    pub loss: f64,
    pub seed: u64,
    pub cycles: u64,
    pub sent: u64,
    pub delivered: u64,
    pub completed: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub scoreboard_errors: u64,
    pub retransmissions: u64,
    pub whole_message_restarts: Option<u64>,
    pub resumes: Option<u64>,
    pub receiver_drops: u64,
    /// Payload delivered before the drain, per node per cycle: bytes, and 32-bit flits.
    pub goodput_bytes: f64,
    pub goodput_flits: f64,
    pub latency_min: Option<u64>,
    pub latency_p50: Option<u64>,
    pub latency_p99: Option<u64>,
    pub latency_max: Option<u64>,
}

impl Grid {
    /// Every option checked against the others: an error names the first bad one.
    pub fn check(&self) -> Result<()> {
        let cfg = Config::new(Block::System, self.k, self.n)?;
        cfg.check_system_nodes()?;
        if self.max_len > cfg.rmpp.max_msg {
            bail!(
                "--max-len {}: the receive path keeps at most {} bytes per message",
                self.max_len,
                cfg.rmpp.max_msg
            );
        }
        crate::config::check_dgram_len(self.dgram_len)?;
        crate::config::check_ni_options(&self.ni)?;
        for (name, v) in [
            ("--seeds", self.seeds.is_empty()),
            ("--protocols", self.protocols.is_empty()),
            ("--patterns", self.patterns.is_empty()),
        ] {
            if v {
                bail!("{name}: give at least one");
            }
        }
        if self.loads.is_empty() && self.losses.is_empty() {
            bail!("--loads and --losses are both empty: nothing to run");
        }
        for &l in self.loads.iter().chain([&self.loss_load]) {
            if !(0.0..=1.0).contains(&l) {
                bail!("load {l}: must be a number from 0 to 1");
            }
        }
        for &p in &self.losses {
            let f = Faults::from_probabilities(p, 0.0).map_err(|e| anyhow!("--losses: {e}"))?;
            if p > 0.0 && f.loss == 0 {
                bail!("--losses {p}: below 1/65536, the smallest loss a link applies");
            }
        }
        Ok(())
    }

    /// The runs, in the CSV's order: study, protocol, pattern, load or loss, seed.
    pub fn points(&self) -> Vec<Point> {
        let mut v = vec![];
        for (study, values) in [(Study::Load, &self.loads), (Study::Loss, &self.losses)] {
            for &protocol in &self.protocols {
                for &pattern in &self.patterns {
                    for &x in values {
                        for &seed in &self.seeds {
                            let (load, loss) = match study {
                                Study::Load => (x, 0.0),
                                Study::Loss => (self.loss_load, applied_loss(x)),
                            };
                            v.push(Point {
                                study,
                                protocol,
                                pattern,
                                load,
                                loss,
                                seed,
                            });
                        }
                    }
                }
            }
        }
        v
    }

    /// Runs `point`.
    pub fn run(&self, point: &Point) -> Result<Row> {
        let cfg = Config::new(Block::System, self.k, self.n)?;
        let tree = cfg.tree()?;
        let faults = Faults::from_probabilities(point.loss, 0.0).map_err(|e| anyhow!(e))?;
        let pattern = match point.pattern {
            TrafficPattern::Uniform => Pattern::Uniform,
            TrafficPattern::ToOne => Pattern::ToOne(0),
            TrafficPattern::Complement => Pattern::Complement,
        };
        let policy = match point.protocol {
            Protocol::ParaStation => Some(Policy::ParaStation),
            Protocol::UNet => Some(Policy::UNet),
            Protocol::Idempotent | Protocol::Rmpp => None,
        };
        if let Some(policy) = policy {
            // The baselines carry the datagrams' traffic over the same fabric and faults.
            let b = Baseline::new(
                tree,
                BaselineConfig::new(policy),
                point.load,
                self.dgram_len,
                pattern,
                point.seed,
            )
            .map_err(|e| anyhow!(e))?;
            let r = b
                .run(self.cycles, self.drain, &faults)
                .map_err(|e| anyhow!(e))?;
            return Ok(row(point, self.cycles, &r.figures));
        }
        // One protocol carries all of a run's traffic.
        let (idem_load, rmpp_load) = match point.protocol {
            Protocol::Rmpp => (0.0, point.load),
            _ => (point.load, 0.0),
        };
        let messages = MsgTraffic {
            load: rmpp_load,
            min_len: 0,
            max_len: self.max_len,
            pattern,
            send: SendConfig {
                mtu: cfg.rmpp.mtu,
                selective: self.rmpp_selective,
                ..SendConfig::DEFAULT
            },
        };
        let rmpp = RmppConfig {
            selective: self.rmpp_selective,
            ..cfg.rmpp
        };
        let hosts = SystemHosts::with_pattern(&tree, idem_load, pattern, messages, point.seed)
            .and_then(|h| h.with_dgram_len(self.dgram_len))
            .map_err(|e| anyhow!(e))?;
        let h = run_with_hosts(tree, self.ni, rmpp, hosts, self.cycles, &faults, self.drain)
            .map_err(|e| anyhow!(e))?;
        let figures = h.summary(self.cycles);
        let f = match point.protocol {
            Protocol::Rmpp => figures.rmpp,
            _ => figures.idempotent,
        };
        Ok(row(point, self.cycles, &f))
    }

    /// Runs every point on `jobs` threads; `done(row, finished, total)` is called as each run
    /// ends (from any thread). Rows come back in grid order.
    pub fn run_all(
        &self,
        jobs: usize,
        done: impl Fn(&Row, usize, usize) + Sync,
    ) -> Result<Vec<Row>> {
        self.check()?;
        let points = self.points();
        let total = points.len();
        let finished = AtomicUsize::new(0);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build()
            .context("the sweep's threads")?;
        pool.install(|| {
            points
                .par_iter()
                .map(|p| {
                    let r = self.run(p)?;
                    done(&r, finished.fetch_add(1, Ordering::Relaxed) + 1, total);
                    Ok(r)
                })
                .collect()
        })
    }
}

/// The loss a link applies for probability `p`: its 16-bit threshold over 65536.
fn applied_loss(p: f64) -> f64 {
    Faults::from_probabilities(p, 0.0).map_or(p, |f| f.loss as f64 / 65536.0)
}

fn row(p: &Point, cycles: u64, f: &ProtocolFigures) -> Row {
    let l = f.latency;
    Row {
        study: p.study,
        protocol: p.protocol,
        pattern: p.pattern,
        load: p.load,
        loss: p.loss,
        seed: p.seed,
        cycles,
        sent: f.sent,
        delivered: f.delivered,
        completed: f.completed,
        lost: f.lost,
        duplicated: f.duplicated,
        scoreboard_errors: f.scoreboard_errors,
        retransmissions: f.retransmissions,
        whole_message_restarts: f.whole_message_restarts,
        resumes: f.resumes,
        receiver_drops: f.receiver_drops,
        goodput_bytes: f.payload_bytes_per_node_cycle,
        goodput_flits: f.payload_bytes_per_node_cycle / 4.0,
        latency_min: l.map(|l| l.min),
        latency_p50: l.map(|l| l.p50),
        latency_p99: l.map(|l| l.p99),
        latency_max: l.map(|l| l.max),
    }
}

/// The mean over seeds of each (study, protocol, pattern, load, loss): what the plots draw and
/// the JSON summary lists.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mean {
    pub study: Study,
    pub protocol: Protocol,
    pub pattern: TrafficPattern,
    pub load: f64,
    pub loss: f64,
    pub seeds: usize,
    pub goodput_flits: f64,
    /// Means of the seeds that delivered something.
    pub latency_p50: Option<f64>,
    pub latency_p99: Option<f64>,
    pub lost: u64,
    pub duplicated: u64,
    pub scoreboard_errors: u64,
}

/// Rows grouped over seeds, in grid order.
pub fn means(rows: &[Row]) -> Vec<Mean> {
    let mut out: Vec<(Mean, Vec<&Row>)> = vec![];
    for r in rows {
        let key = |m: &Mean| {
            (m.study, m.protocol, m.pattern, m.load, m.loss)
                == (r.study, r.protocol, r.pattern, r.load, r.loss)
        };
        match out.iter_mut().find(|(m, _)| key(m)) {
            Some((_, v)) => v.push(r),
            None => out.push((
                Mean {
                    study: r.study,
                    protocol: r.protocol,
                    pattern: r.pattern,
                    load: r.load,
                    loss: r.loss,
                    seeds: 0,
                    goodput_flits: 0.0,
                    latency_p50: None,
                    latency_p99: None,
                    lost: 0,
                    duplicated: 0,
                    scoreboard_errors: 0,
                },
                vec![r],
            )),
        }
    }
    out.into_iter()
        .map(|(mut m, v)| {
            let avg = |f: &dyn Fn(&Row) -> Option<u64>| {
                let xs: Vec<f64> = v.iter().filter_map(|r| f(r)).map(|x| x as f64).collect();
                (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
            };
            m.seeds = v.len();
            m.goodput_flits = v.iter().map(|r| r.goodput_flits).sum::<f64>() / v.len() as f64;
            m.latency_p50 = avg(&|r| r.latency_p50);
            m.latency_p99 = avg(&|r| r.latency_p99);
            m.lost = v.iter().map(|r| r.lost).sum();
            m.duplicated = v.iter().map(|r| r.duplicated).sum();
            m.scoreboard_errors = v.iter().map(|r| r.scoreboard_errors).sum();
            m
        })
        .collect()
}

/// Writes one CSV row per run.
pub fn write_csv(rows: &[Row], path: &Path) -> Result<()> {
    let mut w = csv::Writer::from_path(path).with_context(|| path.display().to_string())?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

/// The JSON summary: what ran (`command`, `version`, the grid) and the means over seeds.
#[derive(Serialize)]
pub struct Summary<'a> {
    pub schema: &'static str,
    pub command: String,
    pub version: String,
    pub grid: &'a Grid,
    pub runs: usize,
    pub jobs: usize,
    pub seconds: f64,
    pub means: Vec<Mean>,
}

/// The summary's schema name and version (docs/results.md).
pub const SUMMARY_SCHEMA: &str = "idemnet-sweep/1";

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Grid {
        Grid {
            cycles: 2_000,
            drain: 20_000,
            seeds: vec![1, 2],
            loads: vec![0.1],
            losses: vec![1e-2],
            ..Grid::default()
        }
    }

    #[test]
    fn a_run_is_the_same_on_one_thread_and_on_two() {
        let g = tiny();
        let one = g.run_all(1, |_, _, _| {}).unwrap();
        let two = g.run_all(2, |_, _, _| {}).unwrap();
        assert_eq!(one, two);
        // Seeds, the four protocols (the baselines too: the same on any number of threads),
        // patterns, studies.
        assert_eq!(one.len(), 2 * 4 * 3 * 2);
        assert_eq!(
            one.iter().map(|r| (r.study, r.seed)).collect::<Vec<_>>()[..2],
            [(Study::Load, 1), (Study::Load, 2)]
        );
    }

    #[test]
    fn datagrams_arrive_exactly_once_in_every_pattern() {
        let g = Grid {
            protocols: vec![Protocol::Idempotent],
            seeds: vec![3],
            ..tiny()
        };
        let rows = g.run_all(2, |_, _, _| {}).unwrap();
        for r in &rows {
            assert!(r.delivered > 0, "{r:?}");
            assert_eq!(
                (r.lost, r.duplicated, r.scoreboard_errors),
                (0, 0, 0),
                "{r:?}"
            );
        }
        // 15 to 1: only 15 nodes send; the complement: all 16.
        let sent = |p| {
            rows.iter()
                .find(|r| r.pattern == p && r.study == Study::Load)
                .unwrap()
                .sent
        };
        assert!(sent(TrafficPattern::ToOne) < sent(TrafficPattern::Complement));
        let m = means(&rows);
        assert_eq!(m.len(), rows.len());
        assert_eq!(m[0].seeds, 1);
    }

    #[test]
    fn bad_grids_are_refused_with_the_option_named() {
        let bad = |g: Grid, needle: &str| {
            let e = g.check().unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        };
        bad(
            Grid {
                losses: vec![1e-6],
                ..tiny()
            },
            "below 1/65536",
        );
        bad(
            Grid {
                losses: vec![1.0],
                ..tiny()
            },
            "loss 1",
        );
        bad(
            Grid {
                loads: vec![1.5],
                ..tiny()
            },
            "load 1.5",
        );
        bad(
            Grid {
                seeds: vec![],
                ..tiny()
            },
            "--seeds",
        );
        bad(
            Grid {
                dgram_len: Some(33),
                ..tiny()
            },
            "--dgram-len 33",
        );
        bad(
            Grid {
                max_len: 5000,
                ..tiny()
            },
            "--max-len 5000",
        );
        bad(Grid { k: 3, ..tiny() }, "");
        assert_eq!("to-one".parse(), Ok(TrafficPattern::ToOne));
        assert!("x"
            .parse::<Protocol>()
            .unwrap_err()
            .contains("idempotent, rmpp"));
    }
}
