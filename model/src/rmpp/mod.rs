//! RMPP (docs/protocol.md §11-§12): the wire format, the parameters, the receive path's golden
//! model ([`rx`]) and the send side ([`send`]).

pub mod host;
pub mod peers;
pub mod rx;
pub mod send;

use crate::ni::{bytes_to_words, crc32, words_to_bytes};
use crate::switch::{HEAD, TAIL, VALID};

/// The protocol version this project speaks (§11.1).
pub const VERSION: u16 = 1;
/// Word 0 bits 31:30 of every RMPP packet.
pub const MARKER: u32 = 0b11;
/// Header words after the route flit.
pub const HEADER_WORDS: usize = 7;

/// The receive path's counters, in port order (`cnt_<name>`, §11.3).
pub const COUNTERS: [&str; 13] = [
    "crc",
    "truncated",
    "malformed",
    "misrouted",
    "version",
    "not_source",
    "order",
    "sequence",
    "table_full",
    "unknown",
    "duplicate",
    "busy",
    "restart",
];

/// Index of each counter in [`COUNTERS`].
pub mod cnt {
    pub const CRC: usize = 0;
    pub const TRUNCATED: usize = 1;
    pub const MALFORMED: usize = 2;
    pub const MISROUTED: usize = 3;
    pub const VERSION: usize = 4;
    pub const NOT_SOURCE: usize = 5;
    pub const ORDER: usize = 6;
    pub const SEQUENCE: usize = 7;
    pub const TABLE_FULL: usize = 8;
    pub const UNKNOWN: usize = 9;
    pub const DUPLICATE: usize = 10;
    pub const BUSY: usize = 11;
    pub const RESTART: usize = 12;
}

/// The ten packet types of Table 1, with the codes of §11.1.
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
}

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
        Ok(())
    }

    /// Buffer words per slot.
    pub fn slot_words(&self) -> usize {
        self.max_msg / 4
    }

    /// Payload bytes of packet `seq` of a message of `len` bytes (§11.1).
    pub fn packet_bytes(&self, seq: u32, len: u32) -> usize {
        let start = seq as u64 * self.mtu as u64;
        (len as u64).saturating_sub(start).min(self.mtu as u64) as usize
    }

    /// Figure 8: the allowance of a new CTS when `outstanding` packets are granted already.
    pub fn allowance(&self, outstanding: u16) -> u16 {
        let n = self.max_rcv_buf as i32 - self.reserved as i32 - outstanding as i32;
        n.clamp(1, self.max_data_pkts as i32) as u16
    }
}

/// An RMPP packet (§11.1): route and header fields and the payload bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Packet {
    /// The type code (1..=10 for a well-formed packet; kept raw so that bad ones can be made).
    pub ty: u32,
    pub src: u16,
    pub dst: u16,
    pub version: u16,
    pub src_nid: u32,
    pub msg_id: u32,
    pub len: u32,
    pub seq: u32,
    pub info1: u16,
    pub info2: u16,
    pub msg_num: u32,
    pub data: Vec<u8>,
}

impl Packet {
    /// A well-formed packet of type `ty` from the route `src` to `dst`, `srcNID` = `src_nid`.
    pub fn new(ty: Type, src: u16, dst: u16, src_nid: u16) -> Packet {
        Packet {
            ty: ty.code(),
            src,
            dst,
            version: VERSION,
            src_nid: src_nid as u32,
            ..Packet::default()
        }
    }

    pub fn kind(&self) -> Option<Type> {
        Type::from_code(self.ty)
    }

    /// The seven header words.
    pub fn header(&self) -> [u32; HEADER_WORDS] {
        [
            MARKER << 30 | (self.ty & 0x3FFF) << 16 | self.version as u32,
            self.src_nid,
            self.msg_id,
            self.len,
            self.seq,
            (self.info2 as u32) << 16 | self.info1 as u32,
            self.msg_num,
        ]
    }

    /// The data words of the worm before the CRC: route, header, payload.
    pub fn words(&self) -> Vec<u32> {
        let mut v = vec![(self.src as u32) << 16 | self.dst as u32];
        v.extend(self.header());
        v.extend(bytes_to_words(&self.data));
        v
    }

    /// The worm: head, body flits and the CRC tail (35-bit flits).
    pub fn flits(&self) -> Vec<u64> {
        let w = self.words();
        let crc = crc32(&w);
        let mut f: Vec<u64> = w.iter().map(|&x| VALID | x as u64).collect();
        f[0] |= HEAD;
        f.push(VALID | TAIL | crc as u64);
        f
    }

    /// Decodes a complete worm with a good CRC and an RMPP marker; the payload is every word
    /// between the header and the CRC, as bytes (the caller knows how many are meaningful).
    pub fn from_flits(flits: &[u64]) -> Option<Packet> {
        if flits.len() < 2 + HEADER_WORDS || flits.iter().any(|f| f & VALID == 0) {
            return None;
        }
        let w: Vec<u32> = flits.iter().map(|&f| f as u32).collect();
        let n = w.len();
        if crc32(&w[..n - 1]) != w[n - 1] || w[1] >> 30 != MARKER {
            return None;
        }
        Some(Packet {
            ty: (w[1] >> 16) & 0x3FFF,
            src: (w[0] >> 16) as u16,
            dst: w[0] as u16,
            version: w[1] as u16,
            src_nid: w[2],
            msg_id: w[3],
            len: w[4],
            seq: w[5],
            info1: w[6] as u16,
            info2: (w[6] >> 16) as u16,
            msg_num: w[7],
            data: words_to_bytes(&w[8..n - 1], 4 * (n - 9)),
        })
    }
}
