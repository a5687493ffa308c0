//! RMPP (docs/protocol.md §11-§12): the packet and its worm, the receive path's golden model
//! ([`rx`]) and the send side ([`send`]). The wire's numbers (marker, version, types, header
//! size), the counters and the parameters are the contract's, shared with the RTL: they live in
//! `idemnet_spec::rmpp` and are re-exported here.

pub mod host;
pub mod peers;
pub mod rx;
pub mod send;

use crate::ni::{bytes_to_words, crc32, words_to_bytes};
use crate::switch::{HEAD, TAIL, VALID};

pub use idemnet_spec::rmpp::{cnt, RmppConfig, Type, COUNTERS, HEADER_WORDS, MARKER, VERSION};

/// Figure 8's flow control on the receive path's parameters: behaviour, so the model's own
/// (the RTL computes it in `rmpp_rx`), not part of the shared [`RmppConfig`].
pub trait Allowance {
    /// Figure 8: the allowance of a new CTS when `outstanding` packets are granted already.
    fn allowance(&self, outstanding: u16) -> u16;
}

impl Allowance for RmppConfig {
    fn allowance(&self, outstanding: u16) -> u16 {
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
