//! Named configurations: one value names a block of the router and its parameters, and the same
//! value produces its Verilog, its golden model and its seeded stimulus, so that the CLI, the
//! tests and the benchmarks cannot drift apart.
//!
//! | name | block | tree |
//! |------|-------|------|
//! | `fabric-4x2` | the whole fabric | 4-ary 2-tree, 16 nodes, 8 switches (the default) |
//! | `fabric-4x3` | the whole fabric | 4-ary 3-tree, 64 nodes, 48 switches |
//! | `fabric-2x3` | the whole fabric | 2-ary 3-tree, 8 nodes, 12 switches |
//! | `switch-4x2` | leaf switch 0 alone | of the 4-ary 2-tree |
//! | `system-4x2` | 16 nodes (NI, RMPP receive path, framer: §13) on the 4-ary 2-tree, faults (§10) | 4-ary 2-tree |
//! | `ni` | one idempotent NI alone, node 5 of 16, default parameters (§8.2) | |
//! | `rmpp-rx` | one RMPP receive path alone, node 5 of 16, default parameters (§11.2) | |
//! | `system16` | the system of `system-4x2` with smaller tables (NI: 2 send, 4 receive slots; RMPP: 4 message slots), the ECP5-85k image's design (a node about 2,900 LUT4 and 6 DP16KD; 77.8 % of the LFE5U-85F's LUTs with its harness, 70.2 MHz: README "FPGA") | 4-ary 2-tree |
//!
//! Any other `k`, `n` is a [`Config`] built with [`Config::new`].
//!
//! The stimulus of a switch alone is the §6 traffic generator with one "node" per switch input
//! (`2k` of them: `down_in$0..k`, then `up_in$0..k`), so worms arrive on every input with
//! destinations `0..2k`: some leave by a down port, some go up, and those arriving from above
//! for a node the switch does not cover are discarded as unroutable.

use std::fmt;

use anyhow::{anyhow, bail, Result};
use idemnet_model::block::ModelBlock;
use idemnet_model::ni::peers::{PeerParams, Peers};
use idemnet_model::ni::{Ni, NiConfig};
use idemnet_model::ports::PortSpec;
use idemnet_model::rmpp::rx::RmppRx;
use idemnet_model::rmpp::RmppConfig;
use idemnet_model::system::System;
use idemnet_model::{FatTree, TrafficGen};

/// The most nodes of a system the RTL takes: the RMPP receive path's source ids are 8 bits
/// (docs/protocol.md §11.2).
pub const MAX_SYSTEM_NODES: usize = 256;

/// The most Verilog a design may emit: 256 MiB, about 2 GB of memory for rust-hdl to build.
pub const MAX_VERILOG_BYTES: u64 = 256 << 20;

/// Which block of the router a configuration is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// Leaf switch 0 of the tree, alone.
    Switch,
    /// The whole k-ary n-tree.
    Fabric,
    /// One idempotent network interface (`ni` parameters; `k^n` nodes in the machine).
    Ni,
    /// One node (NI, RMPP receive path, framer, merge, split: §13) per node of the k-ary
    /// n-tree, a fault injector on every link (§10).
    System,
    /// One RMPP receive path alone (`rmpp` parameters).
    RmppRx,
}

/// A block and its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub block: Block,
    pub k: usize,
    pub n: usize,
    /// The NI's parameters (used by [`Block::Ni`] and, with `node` set per node, the system).
    pub ni: NiConfig,
    /// The RMPP receive path's parameters (used by [`Block::RmppRx`] and the system).
    pub rmpp: RmppConfig,
}

/// The named configurations, in the order of the table above.
pub const NAMED: &[(&str, Config)] = &[
    ("fabric-4x2", Config::fabric(4, 2)),
    ("fabric-4x3", Config::fabric(4, 3)),
    ("fabric-2x3", Config::fabric(2, 3)),
    ("switch-4x2", Config::switch(4, 2)),
    ("system-4x2", Config::system(4, 2)),
    (
        "ni",
        Config::ni(NiConfig {
            node: 5,
            ..NiConfig::DEFAULT
        }),
    ),
    (
        "rmpp-rx",
        Config::rmpp_rx(RmppConfig {
            node: 5,
            ..RmppConfig::DEFAULT
        }),
    ),
    ("system16", Config::system16()),
];

impl Config {
    /// The fabric of the k-ary n-tree (not validated: see [`Config::new`]).
    pub const fn fabric(k: usize, n: usize) -> Self {
        Config {
            block: Block::Fabric,
            k,
            n,
            ni: NiConfig::DEFAULT,
            rmpp: RmppConfig::DEFAULT,
        }
    }

    /// Leaf switch 0 of the k-ary n-tree (not validated: see [`Config::new`]).
    pub const fn switch(k: usize, n: usize) -> Self {
        Config {
            block: Block::Switch,
            k,
            n,
            ni: NiConfig::DEFAULT,
            rmpp: RmppConfig::DEFAULT,
        }
    }

    /// The system of the k-ary n-tree with default NIs.
    pub const fn system(k: usize, n: usize) -> Self {
        Config {
            block: Block::System,
            k,
            n,
            ni: NiConfig::DEFAULT,
            rmpp: RmppConfig::DEFAULT,
        }
    }

    /// The 16-node system with the smaller tables of the ECP5 image.
    pub const fn system16() -> Self {
        Config {
            block: Block::System,
            k: 4,
            n: 2,
            ni: NiConfig {
                send_slots: 2,
                recv_slots: 4,
                ..NiConfig::DEFAULT
            },
            rmpp: RmppConfig {
                rx_slots: 4,
                ..RmppConfig::DEFAULT
            },
        }
    }

    /// One NI with parameters `ni` in a 16-node machine.
    pub const fn ni(ni: NiConfig) -> Self {
        Config {
            block: Block::Ni,
            k: 4,
            n: 2,
            ni,
            rmpp: RmppConfig::DEFAULT,
        }
    }

    /// One RMPP receive path with parameters `rmpp` in a 16-node machine.
    pub const fn rmpp_rx(rmpp: RmppConfig) -> Self {
        Config {
            block: Block::RmppRx,
            k: 4,
            n: 2,
            ni: NiConfig::DEFAULT,
            rmpp,
        }
    }

    /// A validated configuration: `k` in {2, 4, 8}, `n >= 1`, `k^n <= 65536`.
    pub fn new(block: Block, k: usize, n: usize) -> Result<Self> {
        let c = Config {
            block,
            k,
            n,
            ni: NiConfig::DEFAULT,
            rmpp: RmppConfig::DEFAULT,
        };
        c.tree()?;
        Ok(c)
    }

    /// A named configuration.
    pub fn named(name: &str) -> Result<Self> {
        NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                let names: Vec<&str> = NAMED.iter().map(|(n, _)| *n).collect();
                anyhow!(
                    "no configuration named `{name}`; the named ones are {}",
                    names.join(", ")
                )
            })
    }

    /// The tree, validated.
    pub fn tree(&self) -> Result<FatTree> {
        let t = FatTree::new(self.k, self.n).map_err(|e| anyhow!("{}", e.0))?;
        if self.block == Block::RmppRx {
            self.rmpp
                .validate()
                .map_err(|e| anyhow!("RMPP receive path: {e}"))?;
        }
        if self.block == Block::Ni {
            self.ni.validate().map_err(|e| anyhow!("NI: {e}"))?;
            if self.ni.node as usize >= t.nodes() {
                bail!(
                    "NI: node {} is not one of the {} nodes",
                    self.ni.node,
                    t.nodes()
                );
            }
        }
        Ok(t)
    }

    /// Refuses a block whose RTL cannot be built here, before anything is elaborated: a system
    /// of more than [`MAX_SYSTEM_NODES`] nodes (the RMPP receive path's source ids), or a design
    /// whose emitted Verilog [`Config::estimated_verilog_bytes`] puts over
    /// [`MAX_VERILOG_BYTES`]. The golden model has neither limit.
    pub fn check_rtl_size(&self) -> Result<()> {
        let t = self.tree()?;
        self.check_system_nodes()?;
        let bytes = self.estimated_verilog_bytes()?;
        if bytes > MAX_VERILOG_BYTES {
            bail!(
                "the {self} would be about {} MB of Verilog ({} switches{}), more than the {} MB \
                 idemnet emits (rust-hdl needs about 7 bytes of memory per byte emitted): choose \
                 a smaller tree",
                bytes >> 20,
                t.switches(),
                if self.block == Block::System {
                    format!(", {} nodes", t.nodes())
                } else {
                    String::new()
                },
                MAX_VERILOG_BYTES >> 20
            );
        }
        Ok(())
    }

    /// Refuses a system of more than [`MAX_SYSTEM_NODES`] nodes, in the RTL and the golden model
    /// alike: every node has an RMPP receive path, whose source ids are 8 bits.
    pub fn check_system_nodes(&self) -> Result<()> {
        let nodes = self.tree()?.nodes();
        if self.block == Block::System && nodes > MAX_SYSTEM_NODES {
            bail!(
                "the system of the {}-ary {}-tree has {nodes} nodes; a system has at most \
                 {MAX_SYSTEM_NODES}: each node's RMPP receive path keeps one expected message \
                 number per source in a 256-word RAM (docs/protocol.md §11.2)",
                self.k,
                self.n
            );
        }
        Ok(())
    }

    /// The size of the block's emitted Verilog, from the sizes measured per switch (by arity)
    /// and per node: the switch of a 2-, 4- and 8-ary tree emits about 29, 61 and 144 kB (the
    /// two-stage switch; `idemnet verilog` on the 2-ary 2-, 4-ary 2- and 3- and 8-ary 2-tree,
    /// fabric size over switch count, within 0.2 % of each other for the 4-ary trees), a node of
    /// the system about 420 kB (linear in the count to within 1 %).
    pub fn estimated_verilog_bytes(&self) -> Result<u64> {
        let t = self.tree()?;
        let per_switch: u64 = match t.k {
            2 => 29_000,
            4 => 61_000,
            _ => 144_000,
        };
        const PER_NODE: u64 = 420_000;
        let (switches, nodes) = match self.block {
            Block::Switch => (1, 0),
            Block::Fabric => (t.switches() as u64, 0),
            Block::System => (t.switches() as u64, t.nodes() as u64),
            Block::Ni | Block::RmppRx => (0, 1),
        };
        Ok(switches * per_switch + nodes * PER_NODE)
    }

    /// Number of traffic sources: the nodes of the fabric, or the `2k` inputs of the switch.
    pub fn sources(&self) -> Result<usize> {
        let t = self.tree()?;
        Ok(match self.block {
            Block::Fabric => t.nodes(),
            Block::Switch => 2 * t.k,
            Block::Ni | Block::RmppRx => 1,
            Block::System => t.nodes(),
        })
    }

    /// The emitted Verilog (top module `top`) and its port list, read from the rust-hdl block.
    pub fn verilog(&self) -> Result<(String, Vec<PortSpec>)> {
        self.tree()?;
        let r = match self.block {
            Block::Fabric => idemnet_router::fabric_verilog(self.k, self.n),
            Block::Switch => idemnet_router::switch_verilog(self.k, self.n, 0, 0),
            Block::Ni => {
                return idemnet_ni_core::ni_verilog(&self.ni).map_err(|e| anyhow!("{self}: {e}"))
            }
            Block::System => {
                return idemnet_ni_core::system_verilog(self.k, self.n, &self.ni, &self.rmpp)
                    .map_err(|e| anyhow!("{self}: {e}"))
            }
            Block::RmppRx => {
                return idemnet_ni_core::rmpp_rx_verilog(&self.rmpp)
                    .map_err(|e| anyhow!("{self}: {e}"))
            }
        };
        r.map_err(|e| anyhow!("{self}: {e}"))
    }

    /// The golden model of the block at power-on.
    pub fn model(&self) -> Result<Model> {
        let t = self.tree()?;
        let e = |e: idemnet_model::ConfigError| anyhow!("{}", e.0);
        Ok(match self.block {
            Block::Fabric => Model::Fabric(idemnet_model::Fabric::from_tree(t)),
            Block::Switch => Model::Switch(idemnet_model::Switch::new(t, 0, 0).map_err(e)?),
            Block::Ni => Model::Ni(Ni::new(self.ni).map_err(|e| anyhow!(e))?),
            Block::System => Model::System(Box::new(
                System::new(t, self.ni, self.rmpp).map_err(|e| anyhow!(e))?,
            )),
            Block::RmppRx => {
                Model::RmppRx(Box::new(RmppRx::new(self.rmpp).map_err(|e| anyhow!(e))?))
            }
        })
    }

    /// The §6 traffic that drives every input of the block: the flat input words of a cycle are
    /// exactly one [`TrafficGen::step`].
    pub fn traffic(&self, load: f64, seed: u64) -> Result<TrafficGen> {
        if matches!(self.block, Block::Ni | Block::System | Block::RmppRx) {
            bail!("the {self} is driven by hosts or peers, not by worm traffic");
        }
        TrafficGen::new(self.sources()?, load, seed).map_err(|e| anyhow!("{}", e.0))
    }

    /// The reactive peers that drive an NI alone; `load` scales how often the peers and the
    /// host start datagrams (load 0.5 is the default rate of [`PeerParams`]).
    pub fn peers(&self, load: f64, seed: u64) -> Result<Peers> {
        let t = self.tree()?;
        let d = PeerParams::default();
        let p = PeerParams {
            nodes: t.nodes() as u16,
            send_rate: (d.send_rate * 2.0 * load).min(1.0),
            req_rate: (d.req_rate * 2.0 * load).min(1.0),
            ..d
        };
        Ok(Peers::new(&self.ni, p, seed))
    }
}

impl Block {
    /// Its links carry the packets of docs/protocol.md §8.1 and §11.1; the switch's and the
    /// fabric's seeded traffic (§6) is worms of arbitrary words.
    pub fn carries_packets(self) -> bool {
        !matches!(self, Block::Switch | Block::Fabric)
    }

    /// The top module's name in the files users take (`idemnet verilog`): unique per block, so
    /// that every emitted file compiles beside every other. Co-simulation builds name it `top`.
    pub fn module_name(self) -> &'static str {
        match self {
            Block::Switch => "idemnet_switch",
            Block::Fabric => "idemnet_fabric",
            Block::Ni => "idemnet_ni",
            Block::System => "idemnet_system",
            Block::RmppRx => "idemnet_rmpp_rx",
        }
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = match self.block {
            Block::Fabric => "fabric",
            Block::Switch => "switch",
            Block::System => "system",
            Block::RmppRx => {
                let c = &self.rmpp;
                return write!(
                    f,
                    "RMPP receive path of node {} ({} slots, mtu {}, {} bytes per message)",
                    c.node, c.rx_slots, c.mtu, c.max_msg
                );
            }
            Block::Ni => {
                let c = &self.ni;
                return write!(
                    f,
                    "NI of node {} ({} send slots, {} receive slots, retry {} spread {}, ack {})",
                    c.node,
                    c.send_slots,
                    c.recv_slots,
                    c.retry_interval,
                    c.retry_spread,
                    c.ack_interval
                );
            }
        };
        write!(f, "{b} of the {}-ary {}-tree", self.k, self.n)?;
        // A system's NIs are named when they are not the documented ones (§8.2), so that a
        // run's first line and its JSON record say what ran.
        let c = &self.ni;
        if self.block == Block::System && (NiConfig { node: 0, ..*c }) != NiConfig::DEFAULT {
            write!(
                f,
                " (NIs: send slots {}, receive slots {}, retry {} spread {}, ack {})",
                c.send_slots, c.recv_slots, c.retry_interval, c.retry_spread, c.ack_interval
            )?;
        }
        Ok(())
    }
}

/// The golden model of a [`Config`].
#[derive(Clone, Debug)]
pub enum Model {
    Switch(idemnet_model::Switch),
    Fabric(idemnet_model::Fabric),
    Ni(Ni),
    System(Box<System>),
    RmppRx(Box<RmppRx>),
}

impl Model {
    /// Worms discarded since power-on (not wrapping).
    pub fn worms_discarded(&self) -> u64 {
        match self {
            Model::Switch(s) => s.counters().drops,
            Model::Fabric(f) => f.total_drops(),
            Model::Ni(n) => n.counters()[..8].iter().map(|&c| c as u64).sum(),
            Model::System(s) => s.switch_drops(),
            Model::RmppRx(r) => r.counters()[..12].iter().map(|&c| c as u64).sum(),
        }
    }
}

impl ModelBlock for Model {
    fn ports(&self) -> Vec<PortSpec> {
        match self {
            Model::Switch(s) => s.ports(),
            Model::Fabric(f) => f.ports(),
            Model::Ni(n) => n.ports(),
            Model::System(s) => s.ports(),
            Model::RmppRx(r) => r.ports(),
        }
    }
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        match self {
            Model::Switch(s) => ModelBlock::step(s, inputs, outputs),
            Model::Fabric(f) => ModelBlock::step(f, inputs, outputs),
            Model::Ni(n) => n.step(inputs, outputs),
            Model::System(s) => s.step(inputs, outputs),
            Model::RmppRx(r) => r.step(inputs, outputs),
        }
    }
}

/// `--dgram-len B` (`cosim`, `model`, `sweep`): a datagram carries 0..=32 payload bytes.
/// Checks the NIs' parameters as the command line gives them (`--send-slots` ..
/// `--ack-interval`): §8.2's ranges, the error naming the option, not the field.
pub fn check_ni_options(ni: &NiConfig) -> Result<()> {
    ni.validate()
        .map_err(|e| anyhow!("NI: --{}", e.replace('_', "-")))
}

pub fn check_dgram_len(length: Option<usize>) -> Result<()> {
    match length {
        Some(b) if b > idemnet_model::ni::MAX_PAYLOAD => Err(anyhow!(
            "--dgram-len {b}: a datagram carries 0..={} bytes",
            idemnet_model::ni::MAX_PAYLOAD
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_configurations_are_valid_and_agree_on_ports() {
        for (name, c) in NAMED {
            assert_eq!(Config::named(name).unwrap(), *c);
            c.tree().unwrap();
            // The model's port list is the RTL's, name for name (4x3 fabric skipped: its
            // rust-hdl elaboration is the slowest part and is covered by the router tests).
            if matches!(c.block, Block::Ni | Block::RmppRx)
                || (c.block != Block::System && c.k.pow(c.n as u32) <= 16)
            {
                let (_, rtl) = c.verilog().unwrap();
                assert_eq!(c.model().unwrap().ports(), rtl, "{name}");
            }
        }
        assert!(Config::named("fabric-5x2").is_err());
        // 64 nodes build; 65536 are refused with the reason, before any elaboration.
        Config::new(Block::System, 4, 3)
            .unwrap()
            .check_rtl_size()
            .unwrap();
        Config::new(Block::Fabric, 4, 4)
            .unwrap()
            .check_rtl_size()
            .unwrap();
        let e = Config::new(Block::Fabric, 2, 16)
            .unwrap()
            .check_rtl_size()
            .unwrap_err();
        assert!(e.to_string().contains("MB of Verilog"), "{e}");
        Config::new(Block::System, 4, 4)
            .unwrap()
            .check_rtl_size()
            .unwrap();
        let e = Config::new(Block::System, 2, 9)
            .unwrap()
            .check_rtl_size()
            .unwrap_err();
        assert!(e.to_string().contains("at most 256"), "{e}");
        assert!(Config::new(Block::Fabric, 3, 2).is_err());
        assert_eq!(Config::switch(4, 2).sources().unwrap(), 8);
    }
}
