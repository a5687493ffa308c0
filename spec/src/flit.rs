//! Flits (§2) and the worms they make (§8.1, §11.1), as people read them: what GTKWave's filters
//! (`idemnet-flits`), mismatch reports and `wavediff` print in place of 35-bit hex values.
//!
//! One flit alone says whether it is valid, a head or a tail, and a head's route
//! ([`describe`]). Which field a body flit carries (a SEND's header, an RMPP header word, payload)
//! and whether a tail's CRC holds depend on the flits before it on the same link, so
//! [`WormReader`] reads a link's flits in order and names each one within its worm
//! ([`WormReader::push`]), and every worm as a whole when its tail arrives. Nothing is guessed:
//! body flits of a worm whose head was not seen (a waveform window that opens mid-worm) read as
//! their bare data word.

use crate::crc::crc32;
use crate::ni::Kind;
use crate::rmpp::{Type, HEADER_WORDS, MARKER};

/// Bit 34: a flit is present.
pub const VALID: u64 = 1 << 34;
/// Bit 33: first flit of a worm.
pub const HEAD: u64 = 1 << 33;
/// Bit 32: last flit of a worm.
pub const TAIL: u64 = 1 << 32;
/// Flit width in bits.
pub const FLIT_BITS: u32 = 35;
/// The 35 bits of a flit.
pub const FLIT_MASK: u64 = (1 << FLIT_BITS) - 1;

/// The word that asks a viewer's filter (`idemnet-flits`) to read a link as
/// [`WormReader::worms_only`].
pub const WORMS_ONLY: &str = "worms";

/// One flit without context: `-` (no flit), `HEAD 3->5` (source -> destination),
/// `0x00050012` (a body flit's data), `TAIL 0x1c2d3e4f` (the CRC word), `HEAD+TAIL 3->5` (a
/// one-flit worm).
pub fn describe(flit: u64) -> String {
    let data = flit as u32;
    match (flit & VALID != 0, flit & HEAD != 0, flit & TAIL != 0) {
        (false, _, _) => "-".into(),
        (true, true, tail) => format!(
            "HEAD{} {}->{}",
            if tail { "+TAIL" } else { "" },
            data >> 16,
            data & 0xFFFF
        ),
        (true, false, true) => format!("TAIL {data:#010x}"),
        (true, false, false) => format!("{data:#010x}"),
    }
}

/// What one valid flit is, within its worm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlitLabel {
    /// The flit's field: `HEAD 3->5`, `SEND len=32`, `uid=0x00030012`, `data 0x11223344`,
    /// `CRC ok`, `RMPP DATA v1`, `seq=2`, ...
    pub field: String,
    /// At a tail: the whole worm, `SEND 3->5 uid=0x00030012 len=32 CRC ok`.
    pub worm: Option<String>,
    /// At a head that cuts a worm whose tail never came: that worm as far as it got, `SEND
    /// 3->5 uid=0x00030012 len=32 (cut)`.
    pub cut: Option<String>,
}

/// Reads one link's flits in cycle order.
#[derive(Clone, Debug)]
pub struct WormReader {
    /// The data words of the worm in progress, from its head; empty when none is open (also
    /// when the window opened mid-worm, so its flits are read without context).
    words: Vec<u32>,
    /// The link carries the packets of §8.1 and §11.1; else worms of arbitrary words (the
    /// switch's and the fabric's seeded traffic, §6), named by route and length only.
    packets: bool,
}

impl Default for WormReader {
    fn default() -> WormReader {
        WormReader::new()
    }
}

impl WormReader {
    /// A reader of packets (§8.1, §11.1).
    pub fn new() -> WormReader {
        WormReader {
            words: Vec::new(),
            packets: true,
        }
    }

    /// A reader of worms whose words mean nothing beyond the route (§2).
    pub fn worms_only() -> WormReader {
        WormReader {
            words: Vec::new(),
            packets: false,
        }
    }

    /// The next flit on the link; `None` for a cycle without one (a worm may pause).
    pub fn push(&mut self, flit: u64) -> Option<FlitLabel> {
        if flit & VALID == 0 {
            return None;
        }
        let data = flit as u32;
        if flit & HEAD != 0 {
            let cut = self.open_worm().map(|w| format!("{w} (cut)"));
            self.words.clear();
            self.words.push(data);
            let field = describe(flit & FLIT_MASK);
            if flit & TAIL != 0 {
                self.words.clear();
                let route = format!("{}->{}", data >> 16, data & 0xFFFF);
                let worm = if self.packets {
                    format!("{field} (one flit: malformed)")
                } else {
                    format!("{route}, 1 flit")
                };
                return Some(FlitLabel {
                    worm: Some(worm),
                    field,
                    cut,
                });
            }
            return Some(FlitLabel {
                field,
                worm: None,
                cut,
            });
        }
        if self.words.is_empty() {
            return Some(FlitLabel {
                field: describe(flit & FLIT_MASK),
                worm: None,
                cut: None,
            });
        }
        if !self.packets {
            self.words.push(data);
            let worm = (flit & TAIL != 0).then(|| {
                let worm = self.open_worm().unwrap_or_default();
                self.words.clear();
                worm
            });
            return Some(FlitLabel {
                field: describe(flit & FLIT_MASK),
                worm,
                cut: None,
            });
        }
        if flit & TAIL != 0 {
            let ok = crc32(&self.words) == data;
            let crc = if ok {
                "CRC ok".to_string()
            } else {
                format!("CRC bad {data:#010x}")
            };
            let worm = format!("{} {crc}", summary(&self.words));
            self.words.clear();
            return Some(FlitLabel {
                field: crc,
                worm: Some(worm),
                cut: None,
            });
        }
        let field = field(&self.words, data);
        self.words.push(data);
        Some(FlitLabel {
            field,
            worm: None,
            cut: None,
        })
    }

    /// The worm in progress as far as it has come (`None` if none is open): a packet's summary,
    /// or a worm's route and length.
    pub fn open_worm(&self) -> Option<String> {
        let route = *self.words.first()?;
        Some(if self.packets {
            summary(&self.words)
        } else {
            format!(
                "{}->{}, {} flits",
                route >> 16,
                route & 0xFFFF,
                self.words.len()
            )
        })
    }
}

/// The field of body word `data`, which follows `words` (head first) in its worm.
fn field(words: &[u32], data: u32) -> String {
    let index = words.len();
    if index == 1 {
        return header(data);
    }
    if words[1] >> 30 == MARKER {
        // The RMPP header's words 1..=6 follow word 0 (§11.1).
        let kind = Type::from_code(words[1] >> 16 & 0x3FFF);
        return match index - 1 {
            1 => format!("srcNID={data}"),
            2 => format!("msgID={data}"),
            3 => format!("len={data}"),
            4 => format!("seq={data}"),
            5 if kind == Some(Type::Cts) => format!("n={}", data & 0xFFFF),
            5 if kind.is_some_and(Type::is_data) => {
                format!("n={} try={}", data & 0xFFFF, data >> 16)
            }
            5 => format!("info2={} info1={}", data >> 16, data & 0xFFFF),
            6 => format!("msgNum={data}"),
            _ => format!("data {data:#010x}"),
        };
    }
    format!("data {data:#010x}")
}

/// The header word (§8.1 or §11.1's word 0).
fn header(data: u32) -> String {
    if data >> 30 == MARKER {
        return match Type::from_code(data >> 16 & 0x3FFF) {
            Some(t) => format!("RMPP {} v{}", t.name(), data & 0xFFFF),
            None => format!("RMPP type {} (malformed)", data >> 16 & 0x3FFF),
        };
    }
    // The uid's counter; its owner is the route's (§8.1).
    let counter = data & 0xFFFF;
    match Kind::from_code(data >> 30) {
        Some(Kind::Send) => format!("SEND len={} counter={counter:#06x}", data >> 24 & 0x3F),
        Some(k) => format!("{} counter={counter:#06x}", k.name()),
        None => format!("{data:#010x} (malformed)"),
    }
}

/// A whole worm from its words before the CRC: kind, route and the fields that name it.
fn summary(words: &[u32]) -> String {
    let route = format!("{}->{}", words[0] >> 16, words[0] & 0xFFFF);
    let Some(&head) = words.get(1) else {
        return format!("? {route} (no header)");
    };
    if head >> 30 == MARKER {
        let name = Type::from_code(head >> 16 & 0x3FFF).map_or("?", Type::name);
        if words.len() < 1 + HEADER_WORDS {
            return format!("{name} {route} (short header)");
        }
        let (msg_id, len, seq, info) = (words[3], words[4], words[5], words[6]);
        return match Type::from_code(head >> 16 & 0x3FFF) {
            Some(Type::Cts) => format!("CTS {route} msg={msg_id} seq={seq} n={}", info & 0xFFFF),
            Some(t) if t.is_data() => format!(
                "{name} {route} msg={msg_id} seq={seq} n={} try={}",
                info & 0xFFFF,
                info >> 16
            ),
            _ => format!("{name} {route} msg={msg_id} len={len}"),
        };
    }
    let uid = |k: Kind| {
        let owner = k.owner((words[0] >> 16) as u16, words[0] as u16) as u32;
        format!("{:#010x}", owner << 16 | (head & 0xFFFF))
    };
    match Kind::from_code(head >> 30) {
        Some(Kind::Send) => format!(
            "SEND {route} uid={} len={}",
            uid(Kind::Send),
            head >> 24 & 0x3F
        ),
        Some(k) => format!("{} {route} uid={}", k.name(), uid(k)),
        None => format!("? {route} (malformed header)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worm of `words` (head first) with its CRC.
    fn worm(words: &[u32]) -> Vec<u64> {
        let mut flits: Vec<u64> = words.iter().map(|&w| VALID | w as u64).collect();
        flits[0] |= HEAD;
        flits.push(VALID | TAIL | crc32(words) as u64);
        flits
    }

    fn read(flits: &[u64]) -> Vec<FlitLabel> {
        let mut reader = WormReader::new();
        flits.iter().filter_map(|&f| reader.push(f)).collect()
    }

    #[test]
    fn a_flit_alone_reads_as_the_protocol_names_it() {
        assert_eq!(describe(0), "-");
        assert_eq!(describe(0x6_0003_0005), "HEAD 3->5");
        assert_eq!(describe(0x7_0003_0005), "HEAD+TAIL 3->5");
        assert_eq!(describe(0x4_0005_0012), "0x00050012");
        assert_eq!(describe(0x5_1c2d_3e4f), "TAIL 0x1c2d3e4f");
    }

    #[test]
    fn a_send_reads_field_by_field_and_as_a_whole() {
        let words = [3 << 16 | 5, 8 << 24 | 0x0012, 0x1122_3344, 0x5566_7788];
        let labels = read(&worm(&words));
        let fields: Vec<&str> = labels.iter().map(|l| l.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "HEAD 3->5",
                "SEND len=8 counter=0x0012",
                "data 0x11223344",
                "data 0x55667788",
                "CRC ok"
            ]
        );
        assert_eq!(
            labels[4].worm.as_deref(),
            Some("SEND 3->5 uid=0x00030012 len=8 CRC ok")
        );
        assert!(labels[..4].iter().all(|l| l.worm.is_none()));
    }

    #[test]
    fn a_bad_crc_idle_cycles_and_a_window_opening_mid_worm() {
        let mut flits = worm(&[5 << 16 | 3, 1 << 30 | 0x0012, 0x1234_5678]);
        *flits.last_mut().unwrap() ^= 1;
        flits.insert(2, 0);
        let labels = read(&flits);
        assert_eq!(labels.len(), 4);
        assert_eq!(labels[1].field, "ACK counter=0x0012");
        assert!(labels[3].field.starts_with("CRC bad 0x"));
        assert!(labels[3]
            .worm
            .as_ref()
            .unwrap()
            .starts_with("ACK 5->3 uid=0x00030012 CRC bad"));
        // Without its head, a worm's body reads as bare words.
        assert_eq!(read(&flits[2..])[0].field, "0x12345678");
        // Worms that are not packets are named by route and length; one flit is a worm too.
        let mut worms = WormReader::worms_only();
        let labels: Vec<FlitLabel> = flits.iter().filter_map(|&f| worms.push(f)).collect();
        assert_eq!(labels[1].field, "0x40000012");
        assert_eq!(labels[3].worm.as_deref(), Some("5->3, 4 flits"));
        let one = worms.push(VALID | HEAD | TAIL | 2 << 16 | 7).unwrap();
        assert_eq!(one.worm.as_deref(), Some("2->7, 1 flit"));
        // A head that comes before the tail cuts the worm in progress, which is named.
        let mut reader = WormReader::new();
        let cut = flits[..3]
            .iter()
            .chain(&flits[..1])
            .filter_map(|&f| reader.push(f));
        let labels: Vec<FlitLabel> = cut.collect();
        assert_eq!(
            labels[2].cut.as_deref(),
            Some("ACK 5->3 uid=0x00030012 (cut)")
        );
        assert!(labels[..2].iter().all(|l| l.cut.is_none()));
    }

    #[test]
    fn rmpp_packets_name_their_header_fields() {
        let data = MARKER << 30 | Type::Data.code() << 16 | 1;
        let words = [
            2 << 16 | 7,
            data,
            2,
            9,
            100,
            3,
            1 << 16 | 4,
            11,
            0xAABB_CCDD,
        ];
        let labels = read(&worm(&words));
        let fields: Vec<&str> = labels.iter().map(|l| l.field.as_str()).collect();
        assert_eq!(
            fields[1..9],
            [
                "RMPP DATA v1",
                "srcNID=2",
                "msgID=9",
                "len=100",
                "seq=3",
                "n=4 try=1",
                "msgNum=11",
                "data 0xaabbccdd"
            ]
        );
        assert_eq!(
            labels[9].worm.as_deref(),
            Some("DATA 2->7 msg=9 seq=3 n=4 try=1 CRC ok")
        );
        let cts = [
            7 << 16 | 2,
            MARKER << 30 | Type::Cts.code() << 16 | 1,
            2,
            9,
            100,
            1,
            8,
            0,
        ];
        assert_eq!(
            read(&worm(&cts))[8].worm.as_deref(),
            Some("CTS 7->2 msg=9 seq=1 n=8 CRC ok")
        );
    }
}
