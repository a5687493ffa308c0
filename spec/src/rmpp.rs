//! The RMPP receive path's share of the contract (`docs/protocol.md` §11): the header's marker,
//! version, packet types and size (§11.1), the parameters (§11.2) and the port table with the
//! counters (§11.3).

use crate::ports::{Port, PortDir, Side, Table};

/// The protocol version this project speaks (§11.1: word 0 bits 15:0).
pub const VERSION: u16 = 1;
/// Word 0 bits 31:30 of every RMPP packet (§11.1; the idempotent header never has type 3).
pub const MARKER: u32 = 0b11;
/// Header words after the route flit (§11.1).
pub const HEADER_WORDS: usize = 7;

/// The receive path's ports (§11.3), in port order: in each direction the link ports, then the
/// host ports, then (outputs) the counters. The one place their names, directions and widths
/// are written.
pub const PORTS: Table = Table::new(&[
    Port::link_input("net_in", 35),
    Port::link_input("tx_gnt", 1),
    Port::host_input("up_ready", 1),
    Port::host_input("up_accept", 32),
    Port::host_input("dlv_ready", 1),
    Port::host_input("rd_slot", 4),
    Port::host_input("rd_word", 10),
    Port::link_output("net_out", 35),
    Port::link_output("tx_req", 1),
    Port::host_output("up_valid", 1),
    Port::host_output("up_slot", 4),
    Port::host_output("up_src", 16),
    Port::host_output("up_msg_id", 32),
    Port::host_output("up_msg_num", 32),
    Port::host_output("up_len", 32),
    Port::host_output("dlv_valid", 1),
    Port::host_output("dlv_slot", 4),
    Port::host_output("dlv_len", 32),
    Port::host_output("rd_data", 32),
    Port::host_output("snd_valid", 1),
    Port::host_output("snd_type", 4),
    Port::host_output("snd_peer", 16),
    Port::host_output("snd_msg_id", 32),
    Port::host_output("snd_len", 32),
    Port::host_output("snd_seq", 32),
    Port::host_output("snd_info", 32),
    Port::host_output("snd_msg_num", 32),
    Port::host_output("cnt_crc", 16),
    Port::host_output("cnt_truncated", 16),
    Port::host_output("cnt_malformed", 16),
    Port::host_output("cnt_misrouted", 16),
    Port::host_output("cnt_version", 16),
    Port::host_output("cnt_not_source", 16),
    Port::host_output("cnt_order", 16),
    Port::host_output("cnt_sequence", 16),
    Port::host_output("cnt_table_full", 16),
    Port::host_output("cnt_unknown", 16),
    Port::host_output("cnt_duplicate", 16),
    Port::host_output("cnt_busy", 16),
    Port::host_output("cnt_restart", 16),
]);

/// The receive path's host inputs, in port order (a node shows them as `rx_<name>`, §10).
pub const HOST_INPUTS: [&str; 5] = PORTS.names(PortDir::In, Side::Host);
/// The receive path's host outputs, counters included, in port order.
pub const HOST_OUTPUTS: [&str; 31] = PORTS.names(PortDir::Out, Side::Host);

/// The receive path's counters, in port order (the ports `cnt_<name>`, §11.3).
pub const COUNTERS: [&str; 13] = PORTS.names_after("cnt_");

/// Index of each counter in [`COUNTERS`].
pub mod cnt {
    use super::COUNTERS;
    crate::positions!(COUNTERS;
        CRC = "crc",
        TRUNCATED = "truncated",
        MALFORMED = "malformed",
        MISROUTED = "misrouted",
        VERSION = "version",
        NOT_SOURCE = "not_source",
        ORDER = "order",
        SEQUENCE = "sequence",
        TABLE_FULL = "table_full",
        UNKNOWN = "unknown",
        DUPLICATE = "duplicate",
        BUSY = "busy",
        RESTART = "restart",
    );
}

/// Flat-buffer words of the receive path's inputs, from [`PORTS`].
pub mod inp {
    use super::PORTS;
    use crate::ports::PortDir::In;
    crate::port_words!(PORTS, In;
        NET_IN = "net_in",
        TX_GNT = "tx_gnt",
        UP_READY = "up_ready",
        UP_ACCEPT = "up_accept",
        DLV_READY = "dlv_ready",
        RD_SLOT = "rd_slot",
        RD_WORD = "rd_word",
    );
}

/// Flat-buffer words of the receive path's outputs, from [`PORTS`].
pub mod out {
    use super::PORTS;
    use crate::ports::PortDir::Out;
    crate::port_words!(PORTS, Out;
        NET_OUT = "net_out",
        TX_REQ = "tx_req",
        UP_VALID = "up_valid",
        UP_SLOT = "up_slot",
        UP_SRC = "up_src",
        UP_MSG_ID = "up_msg_id",
        UP_MSG_NUM = "up_msg_num",
        UP_LEN = "up_len",
        DLV_VALID = "dlv_valid",
        DLV_SLOT = "dlv_slot",
        DLV_LEN = "dlv_len",
        RD_DATA = "rd_data",
        SND_VALID = "snd_valid",
        SND_TYPE = "snd_type",
        SND_PEER = "snd_peer",
        SND_MSG_ID = "snd_msg_id",
        SND_LEN = "snd_len",
        SND_SEQ = "snd_seq",
        SND_INFO = "snd_info",
        SND_MSG_NUM = "snd_msg_num",
        /// The first counter; counter `c` of [`super::COUNTERS`] is `COUNTERS + c`.
        COUNTERS = "cnt_crc",
    );
}

/// The ten packet types of Table 1, with the codes of §11.1 (word 0 bits 29:16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Rts = 1,
    RtsLast = 2,
    Cts = 3,
    Data = 4,
    StopData = 5,
    LastData = 6,
    MsgEnd = 7,
    MsgDrop = 8,
    Gch = 9,
    Null = 10,
}

impl Type {
    pub const ALL: [Type; 10] = [
        Type::Rts,
        Type::RtsLast,
        Type::Cts,
        Type::Data,
        Type::StopData,
        Type::LastData,
        Type::MsgEnd,
        Type::MsgDrop,
        Type::Gch,
        Type::Null,
    ];

    pub fn code(self) -> u32 {
        self as u32
    }

    pub fn from_code(c: u32) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.code() == c)
    }

    /// The name in traces (`RTS_LAST`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Type::Rts => "RTS",
            Type::RtsLast => "RTS_LAST",
            Type::Cts => "CTS",
            Type::Data => "DATA",
            Type::StopData => "STOP_DATA",
            Type::LastData => "LAST_DATA",
            Type::MsgEnd => "MSGEND",
            Type::MsgDrop => "MSGDROP",
            Type::Gch => "GCH",
            Type::Null => "NULL",
        }
    }

    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == s)
    }

    /// DATA, STOP_DATA or LAST_DATA.
    pub fn is_data(self) -> bool {
        matches!(self, Type::Data | Type::StopData | Type::LastData)
    }

    /// Goes from the message's receiver to its sender (CTS, MSGEND, MSGDROP).
    pub fn to_sender(self) -> bool {
        matches!(self, Type::Cts | Type::MsgEnd | Type::MsgDrop)
    }
}

/// The parameters of the receive path (§11.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmppConfig {
    pub node: u16,
    pub nodes: usize,
    pub mtu: usize,
    pub rx_slots: usize,
    pub max_msg: usize,
    pub max_rcv_buf: u16,
    pub reserved: u16,
    pub max_data_pkts: u16,
    pub gch_timeout: u32,
    /// Cycles a RECEIVING slot waits for its message's data, and an ENDED or DROPPED slot for
    /// its GCH, before it sends its reply again (§11.5).
    pub reply_timeout: u32,
    /// Selective acceptance (§11.7): a RECEIVING slot keeps a data packet that comes after a
    /// missing one, up to [`SELECTIVE_WINDOW`] packets past `next_seq`, and its CTS carries
    /// which of those it holds. The default since issue 17; `false` is the paper's in-order
    /// receiver, which drops every packet after a gap.
    pub selective: bool,
}

/// Packets past `next_seq` a selective receiver holds (§11.7): the CTS's `info2` has one bit
/// for each.
pub const SELECTIVE_WINDOW: u32 = 16;

impl Default for RmppConfig {
    fn default() -> Self {
        RmppConfig::DEFAULT
    }
}

impl RmppConfig {
    /// The documented defaults (§11.2).
    pub const DEFAULT: RmppConfig = RmppConfig {
        node: 0,
        nodes: 16,
        mtu: 32,
        rx_slots: 8,
        max_msg: 1024,
        max_rcv_buf: 64,
        reserved: 16,
        max_data_pkts: 16,
        gch_timeout: 10_000,
        reply_timeout: 128,
        selective: true,
    };

    /// Checks the ranges of §11.2.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=256).contains(&self.nodes) {
            return Err(format!("nodes = {}: must be in 1..=256", self.nodes));
        }
        if self.node as usize >= self.nodes {
            return Err(format!(
                "node = {}: must be below nodes = {}",
                self.node, self.nodes
            ));
        }
        if ![4, 8, 16, 32].contains(&self.mtu) {
            return Err(format!("mtu = {}: must be 4, 8, 16 or 32", self.mtu));
        }
        if !(1..=16).contains(&self.rx_slots) {
            return Err(format!("rx_slots = {}: must be in 1..=16", self.rx_slots));
        }
        if !self.max_msg.is_power_of_two() || self.max_msg < self.mtu || self.max_msg > 4096 {
            return Err(format!(
                "max_msg = {}: must be a power of two in mtu..=4096",
                self.max_msg
            ));
        }
        if self.max_data_pkts == 0 {
            return Err("max_data_pkts = 0: must be at least 1".into());
        }
        if !(1..=1 << 20).contains(&self.gch_timeout) {
            return Err(format!(
                "gch_timeout = {}: must be in 1..=1048576",
                self.gch_timeout
            ));
        }
        if !(1..=1 << 20).contains(&self.reply_timeout) {
            return Err(format!(
                "reply_timeout = {}: must be in 1..=1048576",
                self.reply_timeout
            ));
        }
        Ok(())
    }

    /// Buffer words per slot (`max_msg / 4`, §11.2).
    pub fn slot_words(&self) -> usize {
        self.max_msg / 4
    }

    /// Payload bytes of packet `seq` of a message of `len` bytes (§11.1: bytes
    /// `seq * mtu .. min((seq + 1) * mtu, len)`, exact arithmetic).
    pub fn packet_bytes(&self, seq: u32, len: u32) -> usize {
        let start = seq as u64 * self.mtu as u64;
        (len as u64).saturating_sub(start).min(self.mtu as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_indices_name_their_counters() {
        let indices = [
            (cnt::CRC, "crc"),
            (cnt::TRUNCATED, "truncated"),
            (cnt::MALFORMED, "malformed"),
            (cnt::MISROUTED, "misrouted"),
            (cnt::VERSION, "version"),
            (cnt::NOT_SOURCE, "not_source"),
            (cnt::ORDER, "order"),
            (cnt::SEQUENCE, "sequence"),
            (cnt::TABLE_FULL, "table_full"),
            (cnt::UNKNOWN, "unknown"),
            (cnt::DUPLICATE, "duplicate"),
            (cnt::BUSY, "busy"),
            (cnt::RESTART, "restart"),
        ];
        crate::checks::counter_indices(&COUNTERS, &indices);
    }

    #[test]
    fn offsets_agree_with_the_widths_and_the_counters_are_last() {
        crate::ports::tests::offsets_agree_with_widths(&PORTS);
        assert_eq!((inp::WORDS, out::WORDS), (7, 33));
        assert_eq!((inp::UP_READY, out::UP_VALID, out::RD_DATA), (2, 2, 11));
        assert_eq!(out::COUNTERS + COUNTERS.len(), out::WORDS);
        assert_eq!(
            HOST_INPUTS,
            ["up_ready", "up_accept", "dlv_ready", "rd_slot", "rd_word"]
        );
        assert_eq!(HOST_OUTPUTS[HOST_OUTPUTS.len() - 1], "cnt_restart");
    }

    #[test]
    fn types_have_the_codes_of_table_one_and_round_trip() {
        let codes: Vec<u32> = Type::ALL.iter().map(|t| t.code()).collect();
        assert_eq!(codes, (1..=10).collect::<Vec<u32>>());
        for t in Type::ALL {
            assert_eq!(Type::from_code(t.code()), Some(t));
            assert_eq!(Type::from_name(t.name()), Some(t));
        }
        assert_eq!(Type::from_code(0), None);
        assert_eq!(Type::from_code(11), None);
        let data: Vec<Type> = Type::ALL.into_iter().filter(|t| t.is_data()).collect();
        assert_eq!(data, [Type::Data, Type::StopData, Type::LastData]);
        let to_sender: Vec<Type> = Type::ALL.into_iter().filter(|t| t.to_sender()).collect();
        assert_eq!(to_sender, [Type::Cts, Type::MsgEnd, Type::MsgDrop]);
    }

    /// The marker and a version fit word 0 beside the widest type code.
    #[test]
    fn header_word_zero_fields_do_not_overlap() {
        let word = MARKER << 30 | Type::Null.code() << 16 | VERSION as u32;
        assert_eq!(word >> 30, MARKER);
        assert_eq!((word >> 16) & 0x3FFF, Type::Null.code());
        assert_eq!(word & 0xFFFF, VERSION as u32);
    }

    #[test]
    fn packets_split_a_message_into_mtu_sized_pieces() {
        let config = RmppConfig::DEFAULT;
        assert_eq!(config.slot_words(), 256);
        assert_eq!(config.packet_bytes(0, 70), 32);
        assert_eq!(config.packet_bytes(2, 70), 6);
        assert_eq!(config.packet_bytes(3, 70), 0);
        // Exact arithmetic: no wrap of `seq * mtu`.
        assert_eq!(config.packet_bytes(u32::MAX, u32::MAX), 0);
    }

    #[test]
    fn validate_accepts_the_documented_ranges_and_names_the_bad_field() {
        assert_eq!(RmppConfig::default(), RmppConfig::DEFAULT);
        RmppConfig::DEFAULT.validate().unwrap();
        let edges = [
            RmppConfig {
                nodes: 256,
                node: 255,
                ..RmppConfig::DEFAULT
            },
            RmppConfig {
                mtu: 4,
                max_msg: 4,
                rx_slots: 1,
                ..RmppConfig::DEFAULT
            },
            RmppConfig {
                max_msg: 4096,
                rx_slots: 16,
                gch_timeout: 1 << 20,
                ..RmppConfig::DEFAULT
            },
        ];
        for config in edges {
            config.validate().unwrap();
        }
        let bad = [
            (
                RmppConfig {
                    nodes: 257,
                    ..RmppConfig::DEFAULT
                },
                "nodes",
            ),
            (
                RmppConfig {
                    node: 16,
                    ..RmppConfig::DEFAULT
                },
                "node",
            ),
            (
                RmppConfig {
                    mtu: 12,
                    ..RmppConfig::DEFAULT
                },
                "mtu",
            ),
            (
                RmppConfig {
                    rx_slots: 0,
                    ..RmppConfig::DEFAULT
                },
                "rx_slots",
            ),
            (
                RmppConfig {
                    max_msg: 1000,
                    ..RmppConfig::DEFAULT
                },
                "max_msg",
            ),
            (
                RmppConfig {
                    mtu: 32,
                    max_msg: 16,
                    ..RmppConfig::DEFAULT
                },
                "max_msg",
            ),
            (
                RmppConfig {
                    max_data_pkts: 0,
                    ..RmppConfig::DEFAULT
                },
                "max_data_pkts",
            ),
            (
                RmppConfig {
                    gch_timeout: 0,
                    ..RmppConfig::DEFAULT
                },
                "gch_timeout",
            ),
        ];
        crate::checks::rejected(&bad, RmppConfig::validate);
    }
}
