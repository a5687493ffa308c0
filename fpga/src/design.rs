//! The designs an image can hold, each from a named configuration, and their board tops.

use std::fmt;

use anyhow::{anyhow, Result};
use idemnet_model::ports::PortSpec;
use idemnet_ni_core::selftest::SelfTestConfig;
use idemnet_testbench::Config;

use crate::board::{Board, Synthesizer};
use crate::harness;

/// The node the `node` design builds: as the `ni` and `rmpp-rx` designs, node 5 of 16.
const NODE: u16 = 5;

/// A design of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// Leaf switch 0 of the 4-ary 2-tree (named configuration `switch-4x2`).
    Switch,
    /// One idempotent NI with the default parameters (`ni`).
    Ni,
    /// One RMPP receive path with the default parameters (`rmpp-rx`).
    RmppRx,
    /// One node (NI, RMPP receive path, framer, merge, split: docs/protocol.md §13) in
    /// `system16`'s configuration, node 5: the unit the 16-node system repeats.
    Node,
    /// The self-test (docs/protocol.md §14) for the board's clock.
    Selftest,
    /// The 16-node machine of the co-simulation's `system16` configuration, on the ECP5 only:
    /// its nodes and switches with wires for links, without the co-simulation's fault
    /// injectors ([`idemnet_ni_core::system::Links::Plain`]; the self-test images carry
    /// injectors onto the boards).
    System16,
}

impl Design {
    pub const ALL: [Design; 6] = [
        Design::Switch,
        Design::Ni,
        Design::RmppRx,
        Design::Node,
        Design::Selftest,
        Design::System16,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Design::Switch => "switch",
            Design::Ni => "ni",
            Design::RmppRx => "rmpp-rx",
            Design::Node => "node",
            Design::Selftest => "selftest",
            Design::System16 => "system16",
        }
    }

    /// Whether the design is built for `board` (the 16-node system needs the ECP5's size).
    pub fn fits(self, board: Board) -> bool {
        !(self == Design::System16 && board == Board::Ice40Hx8k)
    }

    /// The yosys that synthesizes the design for the ECP5: YoWASP's, except for system16, which
    /// its `abc9` cannot take ([`Synthesizer::Debian`]).
    pub fn synthesizer(self) -> Synthesizer {
        match self {
            Design::System16 => Synthesizer::Debian,
            _ => Synthesizer::YoWasp,
        }
    }

    /// nextpnr's placer, when not its default (`heap`). system16 takes nextpnr's electrostatic
    /// placer (`static`), which spreads the cells to a density target before it legalises
    /// them: on system16's netlist of eee0159 (the chained harness) it placed in 20 minutes
    /// (annealing 13.4 of them) against HeAP's 29 (5.8), at an estimated 46.54 MHz against
    /// HeAP's 37.06, with 14 % less wire (docs/fpga.md). The blocks keep the default, with
    /// which their figures were measured.
    pub fn placer(self) -> Option<&'static str> {
        match self {
            Design::System16 => Some("static"),
            _ => None,
        }
    }

    /// abc9's delay target as a share of the clock period, or `None`: abc9 then maps for its
    /// least delay and recovers area only within it. Told a target, it trades depth for LUTs
    /// where the target leaves room. system16, bound by the 85 % of issue 15 at 50 MHz, gets
    /// half the period (abc9's model counts the LUTs only; on the ECP5 routing is two thirds to
    /// three quarters of a critical path): Debian's yosys maps the node in its configuration to
    /// 3,162 LUT4 with no target, 3,162 at 3 ns, 3,120 at 6 ns, 3,104 at 10 ns. The blocks,
    /// judged at 100 MHz, keep the least-delay mapping: at half the period (5 ns, YoWASP's
    /// yosys at 9d3c38f) none got smaller and the switch fell from 111.8 to 99.3 MHz, the NI
    /// from 92.7 to 83.3.
    pub fn abc9_delay_share(self) -> Option<f64> {
        match self {
            Design::System16 => Some(0.5),
            _ => None,
        }
    }

    /// The named configuration of a block design.
    fn config(self) -> Option<&'static str> {
        match self {
            Design::Switch => Some("switch-4x2"),
            Design::Ni => Some("ni"),
            Design::RmppRx => Some("rmpp-rx"),
            Design::Node | Design::Selftest | Design::System16 => None,
        }
    }

    /// The self-test's configuration on `board`: the whole image (every link faulty, two
    /// slots, 8-byte datagrams) on the ECP5, the compact one on the iCE40-HX8K, which the
    /// whole image overfills by half (docs/protocol.md §14.6).
    pub fn selftest_config(board: Board) -> SelfTestConfig {
        let hz = (board.clock_mhz() * 1e6) as u32;
        match board {
            Board::Ice40Hx8k => SelfTestConfig::compact(hz),
            Board::Ecp5_85k => SelfTestConfig::board(hz),
        }
    }

    /// The design's Verilog (module `top` and its children), its port list, and the board top
    /// `board` around it.
    pub fn verilog(self, board: Board) -> Result<(String, Vec<PortSpec>, String)> {
        if !self.fits(board) {
            return Err(anyhow!(
                "design {self} is built for ecp5-85k only (it does not fit {board})"
            ));
        }
        match self.config() {
            Some(name) => {
                let (v, ports) = Config::named(name)?.verilog()?;
                let top = harness::stimulus_top(&ports);
                Ok((v, ports, top))
            }
            None if self == Design::Node => {
                let system = Config::system16();
                let ni = idemnet_ni_core::NiConfig {
                    node: NODE,
                    ..system.ni
                };
                let (v, ports) = idemnet_ni_core::node_verilog(&ni, &system.rmpp)
                    .map_err(|e| anyhow!("node: {e}"))?;
                let top = harness::stimulus_top(&ports);
                Ok((v, ports, top))
            }
            None if self == Design::System16 => {
                let system = Config::system16();
                let (v, ports) = idemnet_ni_core::system_verilog_with_links(
                    system.k,
                    system.n,
                    &system.ni,
                    &system.rmpp,
                    idemnet_ni_core::system::Links::Plain,
                )
                .map_err(|e| anyhow!("system16: {e}"))?;
                let top = harness::stimulus_top(&ports);
                Ok((v, ports, top))
            }
            None => {
                let (v, ports) = idemnet_ni_core::selftest_verilog(&Self::selftest_config(board))
                    .map_err(|e| anyhow!("selftest: {e}"))?;
                let top = harness::pin_top(&ports).map_err(|e| anyhow!("selftest: {e}"))?;
                Ok((v, ports, top))
            }
        }
    }

    /// The stimulus harness around a black box in place of the design, for its own cells;
    /// `None` for the self-test, whose ports are the pins.
    pub fn harness(self, ports: &[PortSpec]) -> Option<String> {
        match self {
            Design::Selftest => None,
            _ => Some(harness::harness_alone(ports)),
        }
    }
}

impl fmt::Display for Design {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
