//! The node's ports (`docs/protocol.md` §10, §13): its own link ports, then the host ports of
//! its three blocks, taken from their tables.

use crate::ports::{PortDir, PortSpec, Table};
use crate::{framer, ni, rmpp};

/// The blocks whose host ports a node (and the system) shows, in port order, each with the
/// prefix its ports' names take there: the NI's as they are, the receive path's as
/// `rx_<name>`, the framer's as they are (they begin with `tx_` already).
pub const BLOCKS: [(Table, &str); 3] = [(ni::PORTS, ""), (rmpp::PORTS, "rx_"), (framer::PORTS, "")];

/// The node's host ports, in port order, named as the node shows them: for each of
/// [`BLOCKS`], its host inputs, then its host outputs.
pub fn host_ports() -> Vec<PortSpec> {
    BLOCKS
        .iter()
        .flat_map(|(table, prefix)| {
            [PortDir::In, PortDir::Out]
                .into_iter()
                .flat_map(move |dir| table.host(dir).map(move |port| port.spec_named(prefix, "")))
        })
        .collect()
}

/// The node's ports, in port order: `net_in`, `net_out` (the NI's flit ports: the node's link),
/// then [`host_ports`].
pub fn ports() -> Vec<PortSpec> {
    let mut ports = vec![
        ni::PORTS.port("net_in").spec_named("", ""),
        ni::PORTS.port("net_out").spec_named("", ""),
    ];
    ports.extend(host_ports());
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_shows_every_host_port_once_and_no_link_port() {
        let ports = ports();
        let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
        let hosts: usize = BLOCKS
            .iter()
            .map(|(t, _)| t.host(PortDir::In).count() + t.host(PortDir::Out).count())
            .sum();
        assert_eq!(ports.len(), 2 + hosts);
        assert_eq!(&names[..4], ["net_in", "net_out", "req_valid", "req_data"]);
        assert!(names.contains(&"rx_up_ready") && names.contains(&"rx_cnt_restart"));
        assert!(names.contains(&"tx_valid") && names.contains(&"tx_cnt_host_error"));
        for link in ["tx_gnt", "tx_req", "rx_net_in", "rx_tx_gnt", "rx_net_out"] {
            assert!(!names.contains(&link), "{link}");
        }
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "no name twice");
        assert_eq!(names.last(), Some(&"tx_cnt_host_error"));
    }
}
