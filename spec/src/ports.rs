//! Port descriptions shared by the golden model, the RTL's port lists, the Verilator bindings and
//! the waveform writers (`docs/protocol.md` §1: ports and their names; §7: lockstep compares
//! every output port in port order).
//!
//! A block's port list is the one mechanism that drives binding generation, lockstep comparison
//! and VCD naming: every name here is the port's name in the emitted Verilog (`$` separates an
//! array index, as rust-hdl writes it: `node_in$3`).
//!
//! # Port tables: every port written once
//!
//! The host-facing blocks (the NI of §8.2, the RMPP receive path of §11.3, the framer of §13.1)
//! each have one [`Table`]: a constant list of [`Port`]s, in port order, with name, direction,
//! width and [`Side`]. Everything else is derived from it, never written again:
//!
//! - the golden model's port list (`ModelBlock::ports` is [`Table::specs`]);
//! - the golden model's flat-buffer offsets: [`Table::word`] is a `const fn`, so an offset is a
//!   constant computed from the table (`pub const REQ_DATA: usize = PORTS.word(In, "req_data")`),
//!   and a name missing from the table fails the build;
//! - the counter lists ([`Table::names_after`] the `cnt_` prefix) and their indices;
//! - the host port name lists the RTL wires a node and a system with ([`Table::names`]);
//! - the node's and the system's port lists and the system's flat-buffer layout
//!   (`crate::node`, `crate::system`), from the blocks' host ports;
//! - the waveforms' signal names, which are the port list's names.
//!
//! [`Table::new`] checks a table when the crate is compiled: names unique, widths 1..=64 (every
//! port is one word of a flat buffer), and in each direction the link ports before the host
//! ports (so a host port's place among the host ports is its word less the link ports').
//!
//! # How a block's RTL is held to its table
//!
//! The RTL declares its ports as rust-hdl signals; `idemnet_rtl::ports::port_list(&block)`
//! reads them back (declaration order, `clock` left out) as [`PortSpec`]s. A test of the RTL
//! crate compares that list with the table's [`Table::specs`] for each block (NI, RMPP receive
//! path, framer), with `crate::node::ports` for the node and with `crate::system::Layout::ports`
//! for the system: equal names, directions, widths and order. The co-simulation checks it again
//! before every run (the model's port list must equal the Verilated library's), so a block
//! whose ports drift from its table neither passes its tests nor co-simulates.

/// Direction of a port, seen from the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDir {
    In,
    Out,
}

impl PortDir {
    /// `self == other`, usable in constants.
    pub const fn is(self, other: PortDir) -> bool {
        matches!(
            (self, other),
            (PortDir::In, PortDir::In) | (PortDir::Out, PortDir::Out)
        )
    }
}

/// One port of a block's top level.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortSpec {
    pub name: String,
    pub width: u32,
    pub dir: PortDir,
}

impl PortSpec {
    pub fn input(name: impl Into<String>, width: u32) -> Self {
        Self {
            name: name.into(),
            width,
            dir: PortDir::In,
        }
    }
    pub fn output(name: impl Into<String>, width: u32) -> Self {
        Self {
            name: name.into(),
            width,
            dir: PortDir::Out,
        }
    }
    /// Number of 64-bit words the port's value occupies in a flat word buffer.
    pub fn words(&self) -> usize {
        (self.width as usize).div_ceil(64)
    }
}

/// Which way a port of a node's block faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The node's link: `net_in`, `net_out` and the transmit merge's `tx_gnt`, `tx_req`. The node
    /// wires these inside; they are not node or system ports.
    Link,
    /// The host: the node and the system show these ports, under the block's prefix.
    Host,
}

/// One port of a block's [`Table`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Port {
    pub name: &'static str,
    pub dir: PortDir,
    pub width: u32,
    pub side: Side,
}

impl Port {
    /// An input from the node's link.
    pub const fn link_input(name: &'static str, width: u32) -> Port {
        Port {
            name,
            dir: PortDir::In,
            width,
            side: Side::Link,
        }
    }
    /// An output to the node's link.
    pub const fn link_output(name: &'static str, width: u32) -> Port {
        Port {
            name,
            dir: PortDir::Out,
            width,
            side: Side::Link,
        }
    }
    /// An input from the host.
    pub const fn host_input(name: &'static str, width: u32) -> Port {
        Port {
            name,
            dir: PortDir::In,
            width,
            side: Side::Host,
        }
    }
    /// An output to the host.
    pub const fn host_output(name: &'static str, width: u32) -> Port {
        Port {
            name,
            dir: PortDir::Out,
            width,
            side: Side::Host,
        }
    }
    /// 64-bit words of a flat buffer the port takes.
    pub const fn words(&self) -> usize {
        (self.width as usize).div_ceil(64)
    }
    /// The port as a [`PortSpec`] named `prefix` + its name + `suffix`.
    pub fn spec_named(&self, prefix: &str, suffix: &str) -> PortSpec {
        PortSpec {
            name: format!("{prefix}{}{suffix}", self.name),
            width: self.width,
            dir: self.dir,
        }
    }
}

/// `text` starts with `prefix`, usable in constants.
const fn starts_with(text: &[u8], prefix: &[u8]) -> bool {
    if text.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if text[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `a == b`, usable in constants.
pub const fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && starts_with(a.as_bytes(), b.as_bytes())
}

/// `text` without `prefix`, if it starts with it; usable in constants.
pub const fn after_prefix(text: &'static str, prefix: &str) -> Option<&'static str> {
    if !starts_with(text.as_bytes(), prefix.as_bytes()) {
        return None;
    }
    match core::str::from_utf8(text.as_bytes().split_at(prefix.len()).1) {
        Ok(rest) => Some(rest),
        Err(_) => None,
    }
}

/// Constants of a port table's flat-buffer words, each computed from the table at compile time:
/// `port_words!(TABLE, In; NET_IN = "net_in", ...)` makes `pub const NET_IN: usize =
/// TABLE.word(In, "net_in")` and `pub const WORDS: usize`, the buffer's length.
#[macro_export]
macro_rules! port_words {
    ($table:expr, $dir:expr; $($(#[$doc:meta])* $name:ident = $port:literal),* $(,)?) => {
        $($(#[$doc])* pub const $name: usize = $table.word($dir, $port);)*
        /// Words of the flat buffer.
        pub const WORDS: usize = $table.words($dir);
    };
}

/// Constants of the places of names in a constant list, each computed at compile time:
/// `positions!(COUNTERS; CRC = "crc", ...)` makes `pub const CRC: usize` (a name missing from
/// the list fails the build).
#[macro_export]
macro_rules! positions {
    ($list:expr; $($name:ident = $key:literal),* $(,)?) => {
        $(pub const $name: usize = $crate::ports::position(&$list, $key);)*
    };
}

/// The place of `name` in `list`; a name not in the list fails the build when used in a constant.
pub const fn position(list: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < list.len() {
        if same(list[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("the name is not in the list")
}

/// A block's ports in port order: the order of the Verilog module's ports after `clock`, and of
/// the golden model's flat buffers (inputs and outputs each in the order they appear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    ports: &'static [Port],
}

impl Table {
    /// The table of `ports`, checked (in a constant: at compile time): names unique, widths
    /// 1..=64, and in each direction every link port before every host port.
    pub const fn new(ports: &'static [Port]) -> Table {
        let mut i = 0;
        while i < ports.len() {
            let port = &ports[i];
            assert!(
                port.width >= 1 && port.width <= 64,
                "a port of a table is 1 to 64 bits wide"
            );
            let mut j = i + 1;
            while j < ports.len() {
                assert!(
                    !same(port.name, ports[j].name),
                    "a port name appears twice in a table"
                );
                let later = &ports[j];
                assert!(
                    !(later.dir.is(port.dir)
                        && matches!(port.side, Side::Host)
                        && matches!(later.side, Side::Link)),
                    "a link port follows a host port of the same direction"
                );
                j += 1;
            }
            i += 1;
        }
        Table { ports }
    }

    /// The ports, in port order.
    pub const fn ports(&self) -> &'static [Port] {
        self.ports
    }

    /// The port named `name`; a name not in the table fails the build when used in a constant.
    pub const fn port(&self, name: &str) -> Port {
        let mut i = 0;
        while i < self.ports.len() {
            if same(self.ports[i].name, name) {
                return self.ports[i];
            }
            i += 1;
        }
        panic!("no port of that name in the table")
    }

    /// The first word of port `name` in the flat buffer of direction `dir`: the words of the
    /// ports of that direction before it. A name not in the table, or of the other direction,
    /// fails the build when used in a constant:
    ///
    /// ```
    /// use idemnet_spec::{ni::PORTS, ports::PortDir};
    /// const REQ_DATA: usize = PORTS.word(PortDir::In, "req_data");
    /// assert_eq!(REQ_DATA, 3);
    /// ```
    ///
    /// ```compile_fail
    /// use idemnet_spec::{ni::PORTS, ports::PortDir};
    /// const REQ_DATA: usize = PORTS.word(PortDir::Out, "req_data");
    /// ```
    pub const fn word(&self, dir: PortDir, name: &str) -> usize {
        let mut i = 0;
        let mut word = 0;
        while i < self.ports.len() {
            let port = &self.ports[i];
            if port.dir.is(dir) {
                if same(port.name, name) {
                    return word;
                }
                word += port.words();
            }
            i += 1;
        }
        panic!("no port of that name and direction in the table")
    }

    /// Words of the flat buffer of direction `dir`.
    pub const fn words(&self, dir: PortDir) -> usize {
        self.side_words(dir, None)
    }

    /// Words of the link ports of direction `dir` (they come first in that direction).
    pub const fn link_words(&self, dir: PortDir) -> usize {
        self.side_words(dir, Some(Side::Link))
    }

    /// Words of the host ports of direction `dir`.
    pub const fn host_words(&self, dir: PortDir) -> usize {
        self.side_words(dir, Some(Side::Host))
    }

    const fn side_words(&self, dir: PortDir, side: Option<Side>) -> usize {
        let mut i = 0;
        let mut words = 0;
        while i < self.ports.len() {
            let port = &self.ports[i];
            let counted = match side {
                None => true,
                Some(Side::Link) => matches!(port.side, Side::Link),
                Some(Side::Host) => matches!(port.side, Side::Host),
            };
            if port.dir.is(dir) && counted {
                words += port.words();
            }
            i += 1;
        }
        words
    }

    /// The names of the ports of direction `dir` on side `side`, in port order. `N` must be
    /// their number (checked: in a constant, at compile time).
    pub const fn names<const N: usize>(&self, dir: PortDir, side: Side) -> [&'static str; N] {
        let mut names = [""; N];
        let mut count = 0;
        let mut i = 0;
        while i < self.ports.len() {
            let port = &self.ports[i];
            let on_side = matches!(
                (port.side, side),
                (Side::Link, Side::Link) | (Side::Host, Side::Host)
            );
            if port.dir.is(dir) && on_side {
                assert!(count < N, "more ports than the list holds");
                names[count] = port.name;
                count += 1;
            }
            i += 1;
        }
        assert!(count == N, "fewer ports than the list holds");
        names
    }

    /// What follows `prefix` in the names of the ports that start with it, in port order (the
    /// counters: `names_after("cnt_")`). `N` must be their number (checked as for
    /// [`Table::names`]).
    pub const fn names_after<const N: usize>(&self, prefix: &str) -> [&'static str; N] {
        let mut names = [""; N];
        let mut count = 0;
        let mut i = 0;
        while i < self.ports.len() {
            if let Some(rest) = after_prefix(self.ports[i].name, prefix) {
                assert!(count < N, "more names than the list holds");
                names[count] = rest;
                count += 1;
            }
            i += 1;
        }
        assert!(count == N, "fewer names than the list holds");
        names
    }

    /// The ports as [`PortSpec`]s, in port order: the block's port list.
    pub fn specs(&self) -> Vec<PortSpec> {
        self.ports
            .iter()
            .map(|port| port.spec_named("", ""))
            .collect()
    }

    /// The host ports of direction `dir`, in port order.
    pub fn host(&self, dir: PortDir) -> impl Iterator<Item = &'static Port> {
        self.ports
            .iter()
            .filter(move |port| port.dir == dir && port.side == Side::Host)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every port's first word, counted the plain way: the words of the ports of its direction
    /// before it. The tables' `const fn` offsets must agree with it.
    pub fn offsets_agree_with_widths(table: &Table) {
        for dir in [PortDir::In, PortDir::Out] {
            let mut word = 0;
            let mut link = 0;
            for port in table.ports().iter().filter(|port| port.dir == dir) {
                assert_eq!(table.word(dir, port.name), word, "{}", port.name);
                assert_eq!(port.words(), (port.width as usize).div_ceil(64));
                word += port.words();
                if port.side == Side::Link {
                    link = word;
                }
            }
            assert_eq!(table.words(dir), word, "{dir:?}");
            assert_eq!(table.link_words(dir), link, "{dir:?}");
            assert_eq!(table.host_words(dir), word - link, "{dir:?}");
            let specs: Vec<PortSpec> = table.specs().into_iter().filter(|p| p.dir == dir).collect();
            assert_eq!(specs.iter().map(PortSpec::words).sum::<usize>(), word);
        }
    }

    #[test]
    fn a_port_takes_whole_64_bit_words() {
        let widths_and_words = [(1, 1), (35, 1), (64, 1), (65, 2), (256, 4)];
        for (width, words) in widths_and_words {
            assert_eq!(PortSpec::input("p", width).words(), words, "width {width}");
        }
        assert_eq!(PortSpec::input("net_in", 35).dir, PortDir::In);
        assert_eq!(PortSpec::output("net_out", 35).dir, PortDir::Out);
    }

    const EXAMPLE: Table = Table::new(&[
        Port::link_input("net_in", 35),
        Port::host_input("wide", 64),
        Port::host_input("narrow", 3),
        Port::link_output("net_out", 35),
        Port::host_output("cnt_a", 16),
        Port::host_output("cnt_b", 16),
    ]);

    #[test]
    fn offsets_names_and_specs_follow_the_table() {
        offsets_agree_with_widths(&EXAMPLE);
        assert_eq!(EXAMPLE.word(PortDir::In, "narrow"), 2);
        assert_eq!(EXAMPLE.word(PortDir::Out, "cnt_b"), 2);
        assert_eq!(
            EXAMPLE.names::<2>(PortDir::In, Side::Host),
            ["wide", "narrow"]
        );
        assert_eq!(EXAMPLE.names::<1>(PortDir::Out, Side::Link), ["net_out"]);
        assert_eq!(EXAMPLE.names_after::<2>("cnt_"), ["a", "b"]);
        assert_eq!(EXAMPLE.port("wide").width, 64);
        assert_eq!(
            EXAMPLE.specs()[4],
            PortSpec::output("cnt_a", 16),
            "specs keep the order and the names"
        );
        let host: Vec<&str> = EXAMPLE.host(PortDir::Out).map(|p| p.name).collect();
        assert_eq!(host, ["cnt_a", "cnt_b"]);
        assert_eq!(position(&["x", "y"], "y"), 1);
        assert_eq!(after_prefix("cnt_crc", "cnt_"), Some("crc"));
        assert_eq!(after_prefix("cn", "cnt_"), None);
    }

    #[test]
    #[should_panic(expected = "appears twice")]
    fn a_repeated_name_is_refused() {
        static PORTS: [Port; 2] = [Port::host_input("a", 1), Port::host_output("a", 1)];
        Table::new(&PORTS);
    }

    #[test]
    #[should_panic(expected = "follows a host port")]
    fn a_link_port_after_a_host_port_is_refused() {
        static PORTS: [Port; 2] = [Port::host_input("a", 1), Port::link_input("b", 1)];
        Table::new(&PORTS);
    }

    #[test]
    #[should_panic(expected = "1 to 64 bits")]
    fn a_wide_port_is_refused() {
        static PORTS: [Port; 1] = [Port::host_input("a", 65)];
        Table::new(&PORTS);
    }

    #[test]
    #[should_panic(expected = "no port of that name")]
    fn a_missing_name_has_no_offset() {
        EXAMPLE.word(PortDir::In, "net_out");
    }
}
