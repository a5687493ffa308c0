//! Top-level port lists, read from a rust-hdl block with its own [`Probe`] visitor.

use idemnet_spec::ports::PortSpec;
use rust_hdl::prelude::*;

struct PortLister {
    depth: usize,
    /// The bundles (`LogicInterface`s) the visit is inside, outermost first.
    namespaces: Vec<String>,
    ports: Vec<PortSpec>,
}

impl Probe for PortLister {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.namespaces.push(name.to_string());
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.namespaces.pop();
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 || name == "clock" {
            return;
        }
        // A bundle's signal is `bundle$signal` in the Verilog.
        let name = self
            .namespaces
            .iter()
            .map(String::as_str)
            .chain([name])
            .collect::<Vec<_>>()
            .join("$");
        let name = name.as_str();
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
/// `generate_verilog` emits for it (`name$i` for element `i` of a `Vec`/array of signals,
/// `bundle$name` for a signal of a `LogicInterface` bundle), excluding `clock`. `InOut` ports are not used by idemnet and are skipped.
pub fn port_list<B: Block>(block: &B) -> Vec<PortSpec> {
    let mut lister = PortLister {
        depth: 0,
        namespaces: vec![],
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
