//! Flits as people read them (docs/protocol.md §2): what GTKWave's translate filter
//! (`idemnet-flits`) shows in place of a 35-bit hex value.
//!
//! One flit alone says whether it is valid, a head or a tail, and a head's route; which word of
//! a packet a body flit is (a SEND's uid, an RMPP header word, payload) depends on the flits
//! before it, so body flits show their data word and nothing is guessed.

/// One flit, 35 bits: `-` (no flit), `HEAD 3->5` (source -> destination), `0x00050012` (a
/// body flit's data), `TAIL 0x1c2d3e4f` (the CRC word), `HEAD+TAIL ...` (a one-flit worm).
pub fn describe(flit: u64) -> String {
    let (valid, head, tail) = (
        flit >> 34 & 1 == 1,
        flit >> 33 & 1 == 1,
        flit >> 32 & 1 == 1,
    );
    let data = flit as u32;
    match (valid, head, tail) {
        (false, _, _) => "-".into(),
        (true, true, t) => format!(
            "HEAD{} {}->{}",
            if t { "+TAIL" } else { "" },
            data >> 16,
            data & 0xFFFF
        ),
        (true, false, true) => format!("TAIL {data:#010x}"),
        (true, false, false) => format!("{data:#010x}"),
    }
}

// Used by the `idemnet-flits` binary, which includes this file, and by the tests.
#[cfg_attr(not(test), allow(dead_code))]
/// A value as GTKWave hands it to a translate filter (hex digits, maybe with `x` or `z`): its
/// description, or the value itself when it is not a whole flit.
pub fn translate(line: &str) -> String {
    let v = line.trim();
    match u64::from_str_radix(v, 16) {
        Ok(f) if f < 1 << 35 => describe(f),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flits_read_as_the_protocol_names_them() {
        assert_eq!(translate("0"), "-");
        assert_eq!(translate("600030005"), "HEAD 3->5");
        assert_eq!(translate("700030005"), "HEAD+TAIL 3->5");
        assert_eq!(translate("400050012"), "0x00050012");
        assert_eq!(translate("51c2d3e4f"), "TAIL 0x1c2d3e4f");
        assert_eq!(translate("xxxxxxxxx"), "xxxxxxxxx");
        assert_eq!(translate("fffffffff"), "fffffffff");
    }
}
