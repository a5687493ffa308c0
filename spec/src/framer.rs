//! The RMPP framer's share of the contract (`docs/protocol.md` §13.1): its port table with its
//! counter.

use crate::ports::{Port, PortDir, Side, Table};

/// Beats of a framer packet before its payload: header words 2 to 6 (`msgID`, `len`, `seq`,
/// `info`, `msgNum`, §11.1), in that order, as the stream's first beats (§13.1).
pub const HEADER_BEATS: usize = 5;

/// The framer's ports (§13.1), in port order: in each direction the link ports, then the packet
/// stream (the fields the header words cannot carry beside it), then (outputs) the counter. Its host ports carry the
/// `tx_` prefix in the block itself, so a node shows them under their own names.
pub const PORTS: Table = Table::new(&[
    Port::link_input("tx_gnt", 1),
    Port::host_input("tx_valid", 1),
    Port::host_input("tx_data", 32),
    Port::host_input("tx_last", 1),
    Port::host_input("tx_dst", 16),
    Port::host_input("tx_type", 4),
    Port::host_input("tx_bytes", 6),
    Port::link_output("net_out", 35),
    Port::link_output("tx_req", 1),
    Port::host_output("tx_ready", 1),
    Port::host_output("tx_cnt_host_error", 16),
]);

/// The framer's host inputs, in port order (a node shows them as they are, §10).
pub const HOST_INPUTS: [&str; 6] = PORTS.names(PortDir::In, Side::Host);
/// The framer's host outputs, in port order.
pub const HOST_OUTPUTS: [&str; 2] = PORTS.names(PortDir::Out, Side::Host);

/// The framer's counters, in port order (the ports `tx_cnt_<name>`).
pub const COUNTERS: [&str; 1] = PORTS.names_after("tx_cnt_");

/// Flat-buffer words of the framer's inputs, from [`PORTS`].
pub mod inp {
    use super::PORTS;
    use crate::ports::PortDir::In;
    crate::port_words!(PORTS, In;
        TX_GNT = "tx_gnt",
        TX_VALID = "tx_valid",
        TX_DATA = "tx_data",
        TX_LAST = "tx_last",
        TX_DST = "tx_dst",
        TX_TYPE = "tx_type",
        TX_BYTES = "tx_bytes",
    );
}

/// Flat-buffer words of the framer's outputs, from [`PORTS`].
pub mod out {
    use super::PORTS;
    use crate::ports::PortDir::Out;
    crate::port_words!(PORTS, Out;
        NET_OUT = "net_out",
        TX_REQ = "tx_req",
        TX_READY = "tx_ready",
        TX_CNT_HOST_ERROR = "tx_cnt_host_error",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_agree_with_the_widths() {
        crate::ports::tests::offsets_agree_with_widths(&PORTS);
        assert_eq!((inp::WORDS, out::WORDS), (7, 4));
        assert_eq!(COUNTERS, ["host_error"]);
        assert_eq!(HOST_OUTPUTS, ["tx_ready", "tx_cnt_host_error"]);
        assert_eq!(
            PORTS.port("tx_data").width,
            32,
            "a stream moves 32-bit words"
        );
        assert_eq!(PORTS.port("tx_bytes").width, 6);
    }
}
