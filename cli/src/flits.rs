//! GTKWave's two filters for idemnet's flits, both served by `idemnet-flits`
//! (docs/protocol.md §2, §8.1, §11.1; the decoding is `idemnet_spec::flit`'s):
//!
//! - the translate filter process: GTKWave writes one value per line (hex) and reads one line
//!   back, so it can only say what one flit is alone ([`translate`]: `HEAD 3->5`, a body word);
//! - the transaction filter process: GTKWave writes a whole signal as a small VCD between
//!   `$comment data_start` and `$comment data_end` and reads traces back until `$finish`
//!   ([`transactions`]). With the whole link in hand, every flit is named in its worm (`SEND
//!   len=32`, `uid=0x00050012`, `CRC ok`, RMPP header fields) and every worm as a whole (`SEND
//!   3->5 uid=0x00030012 len=32 CRC ok`).
//!
//! GTKWave starts a filter without arguments, so the binary tells the two apart by the first
//! line of each request.

use std::fmt::Write as _;

use idemnet_spec::flit::{describe, WormReader, FLIT_BITS, WORMS_ONLY};
use idemnet_spec::CYCLE_TIME_NS;

/// A value as GTKWave hands it to a translate filter (hex digits, maybe with `x` or `z`): its
/// description, or the value itself when it is not a whole flit.
pub fn translate(line: &str) -> String {
    let v = line.trim();
    match u64::from_str_radix(v, 16) {
        Ok(f) if f < 1 << FLIT_BITS => describe(f),
        _ => v.to_string(),
    }
}

/// The first line of a transaction filter's request.
pub const REQUEST_START: &str = "$comment data_start";
/// The last line of one.
pub const REQUEST_END: &str = "$comment data_end";

/// Background colours by what a worm is (X11 names, as GTKWave takes them): a head, before its
/// worm is known, in grey; anything malformed or failing its CRC in red.
fn colour(text: &str) -> &'static str {
    if text.contains("CRC bad") || text.contains("malformed") || text.starts_with('?') {
        "red"
    } else if text.starts_with("HEAD") {
        "gray24"
    } else if text.starts_with("SEND") {
        "darkgreen"
    } else if text.starts_with("ACK") {
        "darkblue"
    } else if text.starts_with("FORGET") {
        "purple3"
    } else {
        "darkorange3"
    }
}

/// The answer to one transaction filter request (its lines, from `data_start` to `data_end`):
/// two traces, the signal's worms (`$name` after the signal) and, for the blank trace GTKWave
/// shows under it, every flit's field. Values that are not flits (x, z, too wide) read as no
/// flit; the first signal of a group is the one read.
pub fn transactions(request: &str) -> String {
    let mut name = String::from("flits");
    // A cycle in the waveforms idemnet writes, unless `[transaction_args]` names another.
    let mut period = CYCLE_TIME_NS;
    let mut reader = WormReader::new();
    let mut max_time = 0u64;
    let mut time = 0u64;
    let mut changes: Vec<(u64, u64)> = Vec::new();
    for line in request.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("$comment ") {
            let rest = rest.trim_end_matches("$end").trim();
            if let Some(n) = rest.strip_prefix("name ") {
                name = n.to_string();
            } else if let Some(t) = rest.strip_prefix("max_time ") {
                max_time = t.parse().unwrap_or(0);
            } else if let Some(a) = rest.strip_prefix("args ") {
                // `[transaction_args]`: the cycle time, then `worms` for links that do not
                // carry packets.
                let mut words = a.trim_matches('"').split_whitespace();
                if let Some(p) = words.next().and_then(|p| p.parse::<u64>().ok()) {
                    period = p.max(1);
                }
                if words.next() == Some(WORMS_ONLY) {
                    reader = WormReader::worms_only();
                }
            }
        } else if let Some(t) = line.strip_prefix('#') {
            time = t.parse().unwrap_or(time);
        } else if let Some(v) = line.strip_prefix('b') {
            if let Some((bits, "1")) = v.split_once(' ') {
                let flit = u64::from_str_radix(bits, 2)
                    .ok()
                    .filter(|f| *f < 1 << FLIT_BITS);
                changes.push((time, flit.unwrap_or(0)));
            }
        }
    }
    let mut worms = String::new();
    let mut fields = String::new();
    let mut head_time: Option<u64> = None;
    let mut field_open = false;
    // A body flit takes its worm's colour, which the header (the flit after the head) names.
    let mut worm_colour = "gray24";
    let mut after_head = false;
    for (i, &(start, flit)) in changes.iter().enumerate() {
        let end = changes.get(i + 1).map_or(max_time.max(start), |c| c.0);
        // A value holds for whole cycles; a flit repeated in the next cycle is not a change.
        let cycles = (end - start + period / 2) / period;
        for k in 0..cycles.max(1) {
            let t = start + k * period;
            match reader.push(flit) {
                Some(label) => {
                    if let Some(cut) = &label.cut {
                        let h = head_time.unwrap_or(t);
                        let _ = writeln!(worms, "#{h} ?red?{cut}\n#{t}");
                    }
                    if label.field.starts_with("HEAD") || head_time.is_none() {
                        head_time = Some(t);
                    }
                    let mut c = colour(&label.field);
                    if after_head {
                        worm_colour = c;
                    } else if c != "red" && c != "gray24" {
                        c = worm_colour;
                    }
                    after_head = label.field.starts_with("HEAD");
                    let _ = writeln!(fields, "#{t} ?{c}?{}", label.field);
                    field_open = true;
                    if let Some(worm) = label.worm {
                        let h = head_time.take().unwrap_or(t);
                        let _ = writeln!(worms, "#{h} ?{}?{worm}", colour(&worm));
                        let _ = writeln!(worms, "#{}", t + period);
                    }
                }
                None if field_open => {
                    let _ = writeln!(fields, "#{t}");
                    field_open = false;
                }
                None => {}
            }
        }
    }
    // A worm still coming when the waveform ends.
    if let (Some(w), Some(h)) = (reader.open_worm(), head_time) {
        let _ = writeln!(worms, "#{h} ?gray24?{w} ...");
    }
    format!("$name {name} worms\n#0\n{worms}$next\n$name {name} fields\n#0\n{fields}$finish\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemnet_spec::crc::crc32;
    use idemnet_spec::flit::{HEAD, TAIL, VALID};

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

    /// A request as GTKWave writes it, for a SEND whose first payload word repeats in the flit
    /// after it (no value change, so only the period separates them), then a gap.
    #[test]
    fn a_transaction_request_names_worms_and_fields() {
        let words = [3u32 << 16 | 5, 8 << 24 | 0x0012, 0x1122_3344, 0x1122_3344];
        let mut flits: Vec<u64> = words.iter().map(|&w| VALID | w as u64).collect();
        flits[0] |= HEAD;
        flits.push(VALID | TAIL | crc32(&words) as u64);
        let mut request = String::from(
            "$comment data_start 0x1 $end\n$comment name TOP.node_in$3[34:0] $end\n\
             $timescale 1ns $end\n$comment min_time 0 $end\n$comment max_time 100 $end\n\
             $comment max_seqn 1 $end\n$comment args \"\" $end\n$enddefinitions $end\n#0\n\
             $dumpvars\nb0 1\n$end\n",
        );
        let mut t = 10;
        for f in flits
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 3)
            .map(|(_, f)| f)
        {
            let _ = write!(request, "#{t}\nb{f:b} 1\n");
            t += if *f as u32 == 0x1122_3344 { 20 } else { 10 };
        }
        let _ = write!(request, "#{t}\nb0 1\n$comment data_end 0x1 $end\n");
        let answer = transactions(&request);
        assert!(
            answer.starts_with("$name TOP.node_in$3[34:0] worms\n#0\n"),
            "{answer}"
        );
        assert!(
            answer.contains("#10 ?darkgreen?SEND 3->5 uid=0x00030012 len=8 CRC ok\n#60\n"),
            "the repeated word is two flits: {answer}"
        );
        let fields: Vec<&str> = answer
            .lines()
            .skip_while(|l| !l.ends_with("fields"))
            .collect();
        assert_eq!(
            fields[2..],
            [
                "#10 ?gray24?HEAD 3->5",
                "#20 ?darkgreen?SEND len=8 counter=0x0012",
                "#30 ?darkgreen?data 0x11223344",
                "#40 ?darkgreen?data 0x11223344",
                "#50 ?darkgreen?CRC ok",
                "#60",
                "$finish"
            ]
        );
    }

    /// A worm cut by the next head is shown as far as it came, in red; a worm still coming at
    /// the end as far as it came too.
    #[test]
    fn cut_and_unfinished_worms_are_shown() {
        let flits = [
            0x6_0001_0002u64,
            0x4_0000_0007,
            0x6_0003_0002,
            0x4_0000_0008,
        ];
        let mut request = String::from(
            "$comment data_start 0x1 $end\n$comment name l $end\n$comment max_time 40 $end\n\
             $comment args \"10 worms\" $end\n",
        );
        for (i, f) in flits.iter().enumerate() {
            let _ = write!(request, "#{}\nb{f:b} 1\n", 10 * i);
        }
        request += "$comment data_end 0x1 $end\n";
        let answer = transactions(&request);
        assert!(
            answer.contains("#0 ?red?1->2, 2 flits (cut)\n#20\n"),
            "{answer}"
        );
        assert!(
            answer.contains("#20 ?gray24?3->2, 2 flits ...\n$next"),
            "{answer}"
        );
    }
}
