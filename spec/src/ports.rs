//! Port descriptions shared by the golden model, the RTL's port lists, the Verilator bindings and
//! the waveform writers (`docs/protocol.md` §1: ports and their names; §7: lockstep compares
//! every output port in port order).
//!
//! A block's port list is the one mechanism that drives binding generation, lockstep comparison
//! and VCD naming: every name here is the port's name in the emitted Verilog (`$` separates an
//! array index, as rust-hdl writes it: `node_in$3`).

/// Direction of a port, seen from the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDir {
    In,
    Out,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_takes_whole_64_bit_words() {
        let widths_and_words = [(1, 1), (35, 1), (64, 1), (65, 2), (256, 4)];
        for (width, words) in widths_and_words {
            assert_eq!(PortSpec::input("p", width).words(), words, "width {width}");
        }
        assert_eq!(PortSpec::input("net_in", 35).dir, PortDir::In);
        assert_eq!(PortSpec::output("net_out", 35).dir, PortDir::Out);
    }
}
