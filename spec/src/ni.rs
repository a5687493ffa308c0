//! The idempotent network interface's share of the contract (`docs/protocol.md` §8): its packet
//! kinds and payload sizes (§8.1), its counters and its parameters (§8.2).

/// Payload bytes at most (§8.1: `len` 0..32; §8.2: fixed at 32 bytes).
pub const MAX_PAYLOAD: usize = 32;
/// Payload words (32 bits) at most (§8.1).
pub const PAYLOAD_WORDS: usize = MAX_PAYLOAD / 4;
/// Width of the payload buses `req_data` and `dlv_data` (§8.2).
pub const DATA_BITS: u32 = 8 * MAX_PAYLOAD as u32;

/// The event counters, in port order (`cnt_<name>`, §8.2).
pub const COUNTERS: [&str; 10] = [
    "crc",
    "truncated",
    "malformed",
    "misrouted",
    "not_source",
    "table_full",
    "unknown",
    "busy",
    "duplicate",
    "retransmit",
];

/// Index of each counter in [`COUNTERS`].
pub mod cnt {
    pub const CRC: usize = 0;
    pub const TRUNCATED: usize = 1;
    pub const MALFORMED: usize = 2;
    pub const MISROUTED: usize = 3;
    pub const NOT_SOURCE: usize = 4;
    pub const TABLE_FULL: usize = 5;
    pub const UNKNOWN: usize = 6;
    pub const BUSY: usize = 7;
    pub const DUPLICATE: usize = 8;
    pub const RETRANSMIT: usize = 9;
}

/// The parameters of one NI (§8.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NiConfig {
    pub node: u16,
    pub send_slots: usize,
    pub recv_slots: usize,
    pub retry_interval: u16,
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
        ack_interval: 64,
    };

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
        assert_eq!((MAX_PAYLOAD, PAYLOAD_WORDS, DATA_BITS), (32, 8, 256));
    }

    #[test]
    fn counter_indices_name_their_counters() {
        let indices = [
            (cnt::CRC, "crc"),
            (cnt::TRUNCATED, "truncated"),
            (cnt::MALFORMED, "malformed"),
            (cnt::MISROUTED, "misrouted"),
            (cnt::NOT_SOURCE, "not_source"),
            (cnt::TABLE_FULL, "table_full"),
            (cnt::UNKNOWN, "unknown"),
            (cnt::BUSY, "busy"),
            (cnt::DUPLICATE, "duplicate"),
            (cnt::RETRANSMIT, "retransmit"),
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
        ];
        crate::checks::rejected(&bad, NiConfig::validate);
    }
}
