//! Top-level port lists, read from a rust-hdl block with its own [`Probe`] visitor.

use idemnet_spec::ports::PortSpec;
use rust_hdl::prelude::*;

struct PortLister {
    depth: usize,
    ports: Vec<PortSpec>,
}

impl Probe for PortLister {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 || name == "clock" {
            return;
        }
        let width = signal.bits() as u32;
        match signal.kind() {
            AtomKind::InputParameter => self.ports.push(PortSpec::input(name, width)),
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => {
                self.ports.push(PortSpec::output(name, width))
            }
            _ => {}
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The top-level ports of `block`, in declaration order, named as in the Verilog that
/// `generate_verilog` emits for it (`name$i` for element `i` of a `Vec`/array of signals),
/// excluding `clock`. `InOut` ports are not used by idemnet and are skipped.
pub fn port_list<B: Block>(block: &B) -> Vec<PortSpec> {
    let mut lister = PortLister {
        depth: 0,
        ports: vec![],
    };
    block.accept("top", &mut lister);
    lister.ports
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lfsr::Lfsr;

    #[test]
    fn lfsr_ports() {
        let l = Lfsr::new(1);
        assert_eq!(port_list(&l), vec![PortSpec::output("value", 16)]);
    }
}
