//! The idempotent network interface's share of the contract (`docs/protocol.md` §8): its packet
//! kinds and payload sizes (§8.1), its port table with the counters (§8.2) and its parameters.

use crate::ports::{Port, PortDir, Side, Table};

/// Payload bytes at most (§8.1: `len` 0..32; §8.2: fixed at 32 bytes).
pub const MAX_PAYLOAD: usize = 32;
/// Payload words (32 bits) at most (§8.1), which is also the most beats of a request or a
/// delivery (§8.4, §8.5).
pub const PAYLOAD_WORDS: usize = MAX_PAYLOAD / 4;
/// Words of a packet between its route and its payload (§8.1): one header word, with `type`,
/// `len` and the uid's counter (the uid's owner is a route field of the same worm).
pub const HEADER_WORDS: usize = 1;
/// The header word's bits 23:16, which must be zero (§8.1).
pub const HEADER_RESERVED: u32 = 0x00FF_0000;
/// Flits of a packet of `payload_words` payload words: the route head, the header word, the
/// payload and the CRC tail (§8.1).
pub const fn packet_flits(payload_words: usize) -> usize {
    1 + HEADER_WORDS + payload_words + 1
}

/// The header word of §8.1: `type` in bits 31:30, `len` in 29:24, the uid's counter in 15:0.
pub fn header_word(kind: Kind, len: usize, counter: u16) -> u32 {
    kind.code() << 30 | (len as u32 & 0x3F) << 24 | counter as u32
}

/// The NI's ports (§8.2), in port order: in each direction the link ports, then the host
/// streams, then (outputs) the counters. The one place their names, directions and widths are
/// written.
pub const PORTS: Table = Table::new(&[
    Port::link_input("net_in", 35),
    Port::link_input("tx_gnt", 1),
    Port::host_input("req_valid", 1),
    Port::host_input("req_data", 32),
    Port::host_input("req_last", 1),
    Port::host_input("req_dst", 16),
    Port::host_input("req_len", 6),
    Port::host_input("dlv_ready", 1),
    Port::link_output("net_out", 35),
    Port::link_output("tx_req", 1),
    Port::host_output("req_ready", 1),
    Port::host_output("dlv_valid", 1),
    Port::host_output("dlv_data", 32),
    Port::host_output("dlv_last", 1),
    Port::host_output("dlv_src", 16),
    Port::host_output("dlv_uid", 32),
    Port::host_output("dlv_len", 6),
    Port::host_output("done_valid", 1),
    Port::host_output("done_uid", 32),
    Port::host_output("cnt_crc", 16),
    Port::host_output("cnt_truncated", 16),
    Port::host_output("cnt_malformed", 16),
    Port::host_output("cnt_misrouted", 16),
    Port::host_output("cnt_table_full", 16),
    Port::host_output("cnt_unknown", 16),
    Port::host_output("cnt_busy", 16),
    Port::host_output("cnt_duplicate", 16),
    Port::host_output("cnt_retransmit", 16),
    Port::host_output("cnt_host_error", 16),
]);

/// The NI's host inputs, in port order: what a node and a system show of it (§10).
pub const HOST_INPUTS: [&str; 6] = PORTS.names(PortDir::In, Side::Host);
/// The NI's host outputs, counters included, in port order.
pub const HOST_OUTPUTS: [&str; 19] = PORTS.names(PortDir::Out, Side::Host);

/// The event counters, in port order (the ports `cnt_<name>`, §8.2).
pub const COUNTERS: [&str; 10] = PORTS.names_after("cnt_");

/// Index of each counter in [`COUNTERS`].
pub mod cnt {
    use super::COUNTERS;
    crate::positions!(COUNTERS;
        CRC = "crc",
        TRUNCATED = "truncated",
        MALFORMED = "malformed",
        MISROUTED = "misrouted",
        TABLE_FULL = "table_full",
        UNKNOWN = "unknown",
        BUSY = "busy",
        DUPLICATE = "duplicate",
        RETRANSMIT = "retransmit",
        HOST_ERROR = "host_error",
    );
}

/// Flat-buffer words of the NI's inputs, from [`PORTS`].
pub mod inp {
    use super::PORTS;
    use crate::ports::PortDir::In;
    crate::port_words!(PORTS, In;
        NET_IN = "net_in",
        TX_GNT = "tx_gnt",
        REQ_VALID = "req_valid",
        REQ_DATA = "req_data",
        REQ_LAST = "req_last",
        REQ_DST = "req_dst",
        REQ_LEN = "req_len",
        DLV_READY = "dlv_ready",
    );
}

/// Flat-buffer words of the NI's outputs, from [`PORTS`].
pub mod out {
    use super::PORTS;
    use crate::ports::PortDir::Out;
    crate::port_words!(PORTS, Out;
        NET_OUT = "net_out",
        TX_REQ = "tx_req",
        REQ_READY = "req_ready",
        DLV_VALID = "dlv_valid",
        DLV_DATA = "dlv_data",
        DLV_LAST = "dlv_last",
        DLV_SRC = "dlv_src",
        DLV_UID = "dlv_uid",
        DLV_LEN = "dlv_len",
        DONE_VALID = "done_valid",
        DONE_UID = "done_uid",
        /// The first counter; counter `c` of [`super::COUNTERS`] is `COUNTERS + c`.
        COUNTERS = "cnt_crc",
    );
}

/// The parameters of one NI (§8.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NiConfig {
    pub node: u16,
    pub send_slots: usize,
    pub recv_slots: usize,
    pub retry_interval: u16,
    /// The spread of the retry interval (§8.5): 0, or a power of two up to `retry_interval`. A
    /// SEND is repeated after `retry_interval - retry_spread / 2 + r` cycles, `r` uniform in
    /// `0..retry_spread` from the NI's LFSR, so that no two senders' retries keep one schedule
    /// (§8.7: with every timer fixed, a hot spot could settle into a cycle that never delivers).
    pub retry_spread: u16,
    pub ack_interval: u16,
}

impl Default for NiConfig {
    fn default() -> Self {
        NiConfig::DEFAULT
    }
}

impl NiConfig {
    /// The documented defaults (§8.2).
    pub const DEFAULT: NiConfig = NiConfig {
        node: 0,
        send_slots: 4,
        recv_slots: 8,
        retry_interval: 128,
        retry_spread: 16,
        // 32, not the 64 of before issue 17's measurement (§8.7): a lost ACK holds its send
        // slot one ACK interval, and at saturation ACKs are lost as often as SENDs.
        ack_interval: 32,
    };

    /// The default spread of a retry interval (§8.2): an eighth of it, rounded down to a power
    /// of two, 0 below 8 cycles (16 for the default 128), halved while the longest repeat would
    /// pass 65,535 cycles. A configuration that names only its retry interval (a replay
    /// trace's) takes this spread, so that it is always valid.
    pub fn spread_for(retry_interval: u16) -> u16 {
        let mut spread = match retry_interval / 8 {
            0 => 0,
            eighth => 1 << (15 - eighth.leading_zeros()),
        };
        while u32::from(retry_interval) + u32::from(spread / 2) > 0x10000 {
            spread /= 2;
        }
        spread
    }

    /// Checks the ranges of §8.2.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("send_slots", self.send_slots),
            ("recv_slots", self.recv_slots),
        ] {
            if !(1..=16).contains(&v) {
                return Err(format!("{name} = {v}: must be in 1..=16"));
            }
        }
        for (name, v) in [
            ("retry_interval", self.retry_interval),
            ("ack_interval", self.ack_interval),
        ] {
            if v == 0 {
                return Err(format!("{name} = 0: must be in 1..=65535"));
            }
        }
        let spread = self.retry_spread;
        if spread != 0 && !spread.is_power_of_two() {
            return Err(format!(
                "retry_spread = {spread}: must be 0 or a power of two"
            ));
        }
        if spread > self.retry_interval {
            return Err(format!(
                "retry_spread = {spread}: must be at most retry_interval ({})",
                self.retry_interval
            ));
        }
        // The longest repeat, `retry_interval + retry_spread / 2 - 1` cycles, fits the timers.
        if u32::from(self.retry_interval) + u32::from(spread / 2) > 0x10000 {
            return Err(format!(
                "retry_spread = {spread}: retry_interval + retry_spread / 2 must be at most 65536"
            ));
        }
        Ok(())
    }
}

/// The three messages, with the `type` codes of the header word (§8.1; code 3 is malformed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Send,
    Ack,
    Forget,
}

impl Kind {
    pub fn code(self) -> u32 {
        match self {
            Kind::Send => 0,
            Kind::Ack => 1,
            Kind::Forget => 2,
        }
    }
    pub fn from_code(c: u32) -> Option<Kind> {
        match c {
            0 => Some(Kind::Send),
            1 => Some(Kind::Ack),
            2 => Some(Kind::Forget),
            _ => None,
        }
    }
    /// The node that owns the uid a packet of this kind carries, from its route (§8.1): the
    /// datagram's sender, the route's `src` in a SEND or FORGET and its `dst` in an ACK.
    pub fn owner(self, src: u16, dst: u16) -> u16 {
        match self {
            Kind::Send | Kind::Forget => src,
            Kind::Ack => dst,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::Send => "SEND",
            Kind::Ack => "ACK",
            Kind::Forget => "FORGET",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_sizes_follow_from_the_maximum() {
        assert_eq!((MAX_PAYLOAD, PAYLOAD_WORDS), (32, 8));
    }

    #[test]
    fn offsets_agree_with_the_widths_and_the_counters_are_last() {
        crate::ports::tests::offsets_agree_with_widths(&PORTS);
        assert_eq!(inp::WORDS, 8);
        assert_eq!(out::COUNTERS + COUNTERS.len(), out::WORDS);
        for (c, name) in COUNTERS.iter().enumerate() {
            let port = format!("cnt_{name}");
            assert_eq!(PORTS.word(PortDir::Out, &port), out::COUNTERS + c);
            assert_eq!(PORTS.port(&port).width, 16);
        }
        for (word, name) in [
            (inp::REQ_DATA, "req_data"),
            (inp::REQ_LAST, "req_last"),
            (inp::DLV_READY, "dlv_ready"),
        ] {
            assert_eq!(
                PORTS
                    .specs()
                    .iter()
                    .filter(|p| p.dir == PortDir::In)
                    .nth(word)
                    .unwrap()
                    .name,
                name
            );
        }
        assert_eq!(
            PORTS.port("req_data").width,
            32,
            "a stream moves 32-bit words"
        );
        assert_eq!(PORTS.port("dlv_data").width, 32);
        assert_eq!(HOST_INPUTS[0], "req_valid");
        assert_eq!(HOST_OUTPUTS[HOST_OUTPUTS.len() - 1], "cnt_host_error");
    }

    #[test]
    fn counter_indices_name_their_counters() {
        let indices = [
            (cnt::CRC, "crc"),
            (cnt::TRUNCATED, "truncated"),
            (cnt::MALFORMED, "malformed"),
            (cnt::MISROUTED, "misrouted"),
            (cnt::TABLE_FULL, "table_full"),
            (cnt::UNKNOWN, "unknown"),
            (cnt::BUSY, "busy"),
            (cnt::DUPLICATE, "duplicate"),
            (cnt::RETRANSMIT, "retransmit"),
            (cnt::HOST_ERROR, "host_error"),
        ];
        crate::checks::counter_indices(&COUNTERS, &indices);
    }

    #[test]
    fn kinds_round_trip_and_code_three_is_none() {
        for kind in [Kind::Send, Kind::Ack, Kind::Forget] {
            assert_eq!(Kind::from_code(kind.code()), Some(kind), "{}", kind.name());
        }
        assert_eq!(Kind::from_code(3), None);
    }

    #[test]
    fn validate_accepts_the_documented_ranges_and_names_the_bad_field() {
        assert_eq!(NiConfig::default(), NiConfig::DEFAULT);
        NiConfig::DEFAULT.validate().unwrap();
        for slots in [1, 16] {
            NiConfig {
                send_slots: slots,
                recv_slots: slots,
                ..NiConfig::DEFAULT
            }
            .validate()
            .unwrap();
        }
        let bad = [
            (
                NiConfig {
                    send_slots: 0,
                    ..NiConfig::DEFAULT
                },
                "send_slots",
            ),
            (
                NiConfig {
                    recv_slots: 17,
                    ..NiConfig::DEFAULT
                },
                "recv_slots",
            ),
            (
                NiConfig {
                    retry_interval: 0,
                    ..NiConfig::DEFAULT
                },
                "retry_interval",
            ),
            (
                NiConfig {
                    ack_interval: 0,
                    ..NiConfig::DEFAULT
                },
                "ack_interval",
            ),
            (
                NiConfig {
                    retry_spread: 24,
                    ..NiConfig::DEFAULT
                },
                "retry_spread",
            ),
            (
                NiConfig {
                    retry_interval: 8,
                    retry_spread: 16,
                    ..NiConfig::DEFAULT
                },
                "retry_spread",
            ),
            (
                NiConfig {
                    retry_interval: 0xFFFF,
                    retry_spread: 0x8000,
                    ..NiConfig::DEFAULT
                },
                "retry_spread",
            ),
        ];
        crate::checks::rejected(&bad, NiConfig::validate);
    }

    #[test]
    fn the_default_spread_is_an_eighth_of_the_interval_and_always_valid() {
        assert_eq!(NiConfig::spread_for(128), NiConfig::DEFAULT.retry_spread);
        for (interval, spread) in [
            (1, 0),
            (7, 0),
            (8, 1),
            (9, 1),
            (40, 4),
            (50, 4),
            (0x8000, 4096),
            (65535, 2),
        ] {
            assert_eq!(NiConfig::spread_for(interval), spread, "{interval}");
        }
        for retry_interval in 1..=u16::MAX {
            NiConfig {
                retry_interval,
                retry_spread: NiConfig::spread_for(retry_interval),
                ..NiConfig::DEFAULT
            }
            .validate()
            .unwrap();
        }
    }
}
