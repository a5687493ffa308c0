//! The system's ports and their flat-buffer layout (`docs/protocol.md` §10), derived from the
//! blocks' tables: the system shows every node's host ports, suffixed `$p`, each port over all
//! nodes before the next.

use crate::ports::{Port, PortDir, PortSpec, Table};
use crate::{framer, ni, rmpp};

/// The system's own inputs before the inter-switch links' `dead$j`: the injectors' thresholds
/// (§9).
pub const THRESHOLDS: Table = Table::new(&[
    Port::host_input("loss", 16),
    Port::host_input("corrupt", 16),
]);

/// Width of a switch's drop counter, `drops$x` (§4, §5).
pub const DROP_BITS: u32 = 16;

/// Where a block's host word `word` of node `p` sits in the system's flat buffer:
/// `place(&layout, word, p)`.
pub type Place = fn(&Layout, usize, usize) -> usize;

/// One of a node's blocks in the system: its table, its host inputs and where they sit in the
/// system's input buffer, its host outputs and where they sit in the output buffer.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    pub table: Table,
    pub inputs: HostWords,
    pub input: Place,
    pub outputs: HostWords,
    pub output: Place,
}

/// The node's blocks, in the order of [`crate::node::BLOCKS`], placed in the system.
pub const PLACES: [Placed; 3] = [
    Placed {
        table: ni::PORTS,
        inputs: NI_INPUTS,
        input: Layout::ni_input,
        outputs: NI_OUTPUTS,
        output: Layout::ni_output,
    },
    Placed {
        table: rmpp::PORTS,
        inputs: RX_INPUTS,
        input: Layout::rx_input,
        outputs: RX_OUTPUTS,
        output: Layout::rx_output,
    },
    Placed {
        table: framer::PORTS,
        inputs: FRAMER_INPUTS,
        input: Layout::framer_input,
        outputs: FRAMER_OUTPUTS,
        output: Layout::framer_output,
    },
];

/// The shape of one system's ports: how many nodes, inter-switch links and switch drop
/// counters its tree has. Every port is one word of the flat buffers ([`Table::new`] holds the
/// blocks' ports to 64 bits), so node `p`'s word of a per-node port is its first word plus `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub nodes: usize,
    pub links: usize,
    pub drops: usize,
}

/// The host words of one direction of a node's block: its buffer's words `first..end` (the
/// link ports' words come first, [`Table::new`]). Computed once, at compile time, so that the
/// layout's offsets cost a subtraction, not a walk over the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostWords {
    pub first: usize,
    pub end: usize,
}

impl HostWords {
    /// The host words of `table`'s direction `dir`.
    #[inline]
    pub const fn of(table: &Table, dir: PortDir) -> HostWords {
        HostWords {
            first: table.link_words(dir),
            end: table.words(dir),
        }
    }
    /// How many there are.
    #[inline]
    pub const fn count(&self) -> usize {
        self.end - self.first
    }
    /// The place of the block's word `word` among them.
    #[inline]
    const fn place(&self, word: usize) -> usize {
        assert!(
            word >= self.first && word < self.end,
            "not a host port of the block"
        );
        word - self.first
    }
    /// The words, to walk.
    #[inline]
    pub const fn words(&self) -> std::ops::Range<usize> {
        self.first..self.end
    }
}

const NI_INPUTS: HostWords = HostWords::of(&ni::PORTS, PortDir::In);
const NI_OUTPUTS: HostWords = HostWords::of(&ni::PORTS, PortDir::Out);
const RX_INPUTS: HostWords = HostWords::of(&rmpp::PORTS, PortDir::In);
const RX_OUTPUTS: HostWords = HostWords::of(&rmpp::PORTS, PortDir::Out);
const FRAMER_INPUTS: HostWords = HostWords::of(&framer::PORTS, PortDir::In);
const FRAMER_OUTPUTS: HostWords = HostWords::of(&framer::PORTS, PortDir::Out);
const THRESHOLD_WORDS: usize = THRESHOLDS.words(PortDir::In);

impl Layout {
    /// Input word of `loss`.
    pub const LOSS: usize = THRESHOLDS.word(PortDir::In, "loss");
    /// Input word of `corrupt`.
    pub const CORRUPT: usize = THRESHOLDS.word(PortDir::In, "corrupt");

    #[inline]
    pub const fn new(nodes: usize, links: usize, drops: usize) -> Layout {
        Layout {
            nodes,
            links,
            drops,
        }
    }

    /// Input word of `dead$j`.
    #[inline]
    pub const fn dead(&self, j: usize) -> usize {
        THRESHOLD_WORDS + j
    }

    #[inline]
    const fn ni_inputs(&self) -> usize {
        self.dead(self.links)
    }
    #[inline]
    const fn rx_inputs(&self) -> usize {
        self.ni_inputs() + self.nodes * NI_INPUTS.count()
    }
    #[inline]
    const fn framer_inputs(&self) -> usize {
        self.rx_inputs() + self.nodes * RX_INPUTS.count()
    }
    #[inline]
    const fn drops_output(&self) -> usize {
        self.nodes * NI_OUTPUTS.count()
    }
    #[inline]
    const fn rx_outputs(&self) -> usize {
        self.drops_output() + self.drops
    }
    #[inline]
    const fn framer_outputs(&self) -> usize {
        self.rx_outputs() + self.nodes * RX_OUTPUTS.count()
    }

    /// Input word of node `p`'s NI host input whose word in the NI's own buffer is `word`
    /// (`ni::inp::REQ_VALID` ...).
    #[inline]
    pub const fn ni_input(&self, word: usize, p: usize) -> usize {
        self.ni_inputs() + self.nodes * NI_INPUTS.place(word) + p
    }
    /// Output word of node `p`'s NI host output `word` (`ni::out::REQ_READY` ...).
    #[inline]
    pub const fn ni_output(&self, word: usize, p: usize) -> usize {
        self.nodes * NI_OUTPUTS.place(word) + p
    }
    /// Input word of node `p`'s receive-path host input `word` (`rmpp::inp::UP_READY` ...).
    #[inline]
    pub const fn rx_input(&self, word: usize, p: usize) -> usize {
        self.rx_inputs() + self.nodes * RX_INPUTS.place(word) + p
    }
    /// Output word of node `p`'s receive-path host output `word` (`rmpp::out::UP_VALID` ...).
    #[inline]
    pub const fn rx_output(&self, word: usize, p: usize) -> usize {
        self.rx_outputs() + self.nodes * RX_OUTPUTS.place(word) + p
    }
    /// Input word of node `p`'s framer host input `word` (`framer::inp::TX_VALID` ...).
    #[inline]
    pub const fn framer_input(&self, word: usize, p: usize) -> usize {
        self.framer_inputs() + self.nodes * FRAMER_INPUTS.place(word) + p
    }
    /// Output word of node `p`'s framer host output `word` (`framer::out::TX_READY` ...).
    #[inline]
    pub const fn framer_output(&self, word: usize, p: usize) -> usize {
        self.framer_outputs() + self.nodes * FRAMER_OUTPUTS.place(word) + p
    }
    /// Node `p`'s host words of `placed` in direction `dir`, as (word of the block's buffer, word
    /// of the system's buffer): a port's words follow each other over the nodes, so one place
    /// gives them all.
    #[inline]
    pub fn placed_words(
        &self,
        placed: &Placed,
        dir: PortDir,
        p: usize,
    ) -> impl Iterator<Item = (usize, usize)> {
        let (words, place) = match dir {
            PortDir::In => (placed.inputs, placed.input),
            PortDir::Out => (placed.outputs, placed.output),
        };
        let first = if words.count() > 0 {
            place(self, words.first, p)
        } else {
            0
        };
        let nodes = self.nodes;
        words
            .words()
            .map(move |word| (word, first + nodes * (word - words.first)))
    }

    /// Output word of `drops$x`.
    #[inline]
    pub const fn drop(&self, x: usize) -> usize {
        self.drops_output() + x
    }

    #[inline]
    pub const fn input_words(&self) -> usize {
        self.framer_inputs() + self.nodes * FRAMER_INPUTS.count()
    }
    #[inline]
    pub const fn output_words(&self) -> usize {
        self.framer_outputs() + self.nodes * FRAMER_OUTPUTS.count()
    }

    /// The system's ports, in port order (§10): `loss`, `corrupt`, `dead$j`; the NI's host
    /// inputs, then its host outputs; `drops$x`; the receive path's host inputs (`rx_<name>`),
    /// the framer's; the receive path's host outputs, the framer's. Every per-node port is
    /// suffixed `$p` and listed over all nodes before the next.
    pub fn ports(&self) -> Vec<PortSpec> {
        let mut ports = THRESHOLDS.specs();
        ports.extend((0..self.links).map(|j| PortSpec::input(format!("dead${j}"), 1)));
        self.per_node(&mut ports, &ni::PORTS, "", PortDir::In);
        self.per_node(&mut ports, &ni::PORTS, "", PortDir::Out);
        ports.extend((0..self.drops).map(|x| PortSpec::output(format!("drops${x}"), DROP_BITS)));
        self.per_node(&mut ports, &rmpp::PORTS, "rx_", PortDir::In);
        self.per_node(&mut ports, &framer::PORTS, "", PortDir::In);
        self.per_node(&mut ports, &rmpp::PORTS, "rx_", PortDir::Out);
        self.per_node(&mut ports, &framer::PORTS, "", PortDir::Out);
        ports
    }

    /// Appends `table`'s host ports of direction `dir`, each over all nodes.
    fn per_node(&self, ports: &mut Vec<PortSpec>, table: &Table, prefix: &str, dir: PortDir) {
        for port in table.host(dir) {
            ports.extend((0..self.nodes).map(|p| port.spec_named(prefix, &format!("${p}"))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every offset function names the word of the port [`Layout::ports`] lists there.
    #[test]
    fn the_offsets_point_at_the_ports_of_that_name() {
        let lay = Layout::new(4, 4, 16);
        let ports = lay.ports();
        let names = |dir: PortDir| -> Vec<String> {
            ports
                .iter()
                .filter(|p| p.dir == dir)
                .map(|p| p.name.clone())
                .collect()
        };
        let (inputs, outputs) = (names(PortDir::In), names(PortDir::Out));
        assert_eq!(
            (inputs.len(), outputs.len()),
            (lay.input_words(), lay.output_words())
        );
        assert_eq!(inputs[Layout::LOSS], "loss");
        assert_eq!(inputs[Layout::CORRUPT], "corrupt");
        assert_eq!(inputs[lay.dead(3)], "dead$3");
        assert_eq!(outputs[lay.drop(15)], "drops$15");
        let blocks = crate::node::BLOCKS;
        assert!(
            PLACES.iter().zip(blocks).all(|(a, b)| a.table == b.0),
            "one order"
        );
        let prefixes = blocks.map(|(_, prefix)| prefix);
        for (placed, prefix) in PLACES.iter().zip(prefixes) {
            let table = &placed.table;
            assert_eq!(placed.inputs, HostWords::of(table, PortDir::In));
            assert_eq!(placed.outputs, HostWords::of(table, PortDir::Out));
            for (dir, at, list) in [
                (PortDir::In, placed.input, &inputs),
                (PortDir::Out, placed.output, &outputs),
            ] {
                for port in table.host(dir) {
                    let word = table.word(dir, port.name);
                    for p in 0..lay.nodes {
                        assert_eq!(
                            list[at(&lay, word, p)],
                            format!("{prefix}{}${p}", port.name)
                        );
                    }
                }
                for p in 0..lay.nodes {
                    for (word, system) in lay.placed_words(placed, dir, p) {
                        assert_eq!(system, at(&lay, word, p));
                    }
                }
            }
        }
        assert!(ports.iter().all(|p| p.words() == 1), "one word per port");
    }

    #[test]
    #[should_panic(expected = "not a host port")]
    fn a_link_port_has_no_system_word() {
        Layout::new(2, 0, 8).ni_input(ni::inp::NET_IN, 0);
    }
}
