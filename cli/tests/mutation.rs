//! A co-simulation check earns trust when a mutated design fails it. These tests run the
//! `idemnet` binary as a user would: emit the Verilog, change one operator, co-simulate the
//! mutant with `--verilog`, and check that the lockstep run names a port and a cycle and that
//! `wavediff` on the two waveforms points at the same signal at the same cycle.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn idemnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(args)
        .output()
        .expect("the idemnet binary runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn work(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Replaces the first occurrence of `from` (which must exist) by `to`.
fn mutate(src: &Path, dst: &Path, from: &str, to: &str) {
    let v = std::fs::read_to_string(src).unwrap();
    let at = v
        .find(from)
        .unwrap_or_else(|| panic!("`{from}` not in {}", src.display()));
    let m = format!("{}{}{}", &v[..at], to, &v[at + from.len()..]);
    std::fs::write(dst, m).unwrap();
}

/// `cycle C: output `P` differs` from the cosim summary.
fn mismatch_of(out: &str) -> (u64, String) {
    let line = out
        .lines()
        .find(|l| l.contains("mismatches 1"))
        .unwrap_or_else(|| panic!("no mismatch reported:\n{out}"));
    let c = line.split("cycle ").nth(1).unwrap();
    let cycle: u64 = c.split(':').next().unwrap().parse().unwrap();
    let port = line.split('`').nth(1).unwrap().to_string();
    (cycle, port)
}

/// First differing signal of a wavediff report: (signal, cycle).
fn first_wave_diff(out: &str) -> (String, u64) {
    let line = out
        .lines()
        .find(|l| l.contains("first differs at"))
        .unwrap_or_else(|| panic!("no differing signal:\n{out}"));
    let mut w = line.split_whitespace();
    let sig = w.next().unwrap().to_string();
    let cycle = line.split("(cycle ").nth(1).unwrap();
    (sig, cycle.split(')').next().unwrap().parse().unwrap())
}

fn caught(block: &str, file: &str, from: &str, to: &str, name: &str) {
    let d = work(name);
    let ds = d.to_str().unwrap();
    let o = idemnet(&["verilog", "--out", ds]);
    assert!(o.status.success(), "{}", text(&o));
    let mutant = d.join("mutant.v");
    mutate(&d.join(file), &mutant, from, to);

    // The unmutated design passes with the same seed, so the mutant's failure is the mutation's.
    let waves = d.join("waves");
    let args = |v: Option<&Path>| {
        let mut a = vec![
            "cosim".to_string(),
            "--block".into(),
            block.into(),
            "--cycles".into(),
            "3000".into(),
            "--seed".into(),
            "1".into(),
            "--load".into(),
            "0.7".into(),
            "--vcd".into(),
            waves.to_str().unwrap().into(),
        ];
        if let Some(v) = v {
            a.push("--verilog".into());
            a.push(v.to_str().unwrap().into());
        }
        a
    };
    let a = args(Some(&d.join(file)));
    let o = idemnet(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rtl = waves.join("rtl.vcd");
    let model = waves.join("model.vcd");
    let o = idemnet(&["wavediff", model.to_str().unwrap(), rtl.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let a = args(Some(&mutant));
    let o = idemnet(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let (cycle, port) = mismatch_of(&out);

    let o = idemnet(&["wavediff", model.to_str().unwrap(), rtl.to_str().unwrap()]);
    let diff = text(&o);
    assert_eq!(o.status.code(), Some(1), "{diff}");
    let (sig, wcycle) = first_wave_diff(&diff);
    assert_eq!(
        (sig.as_str(), wcycle),
        (port.as_str(), cycle),
        "{out}\n{diff}"
    );
}

/// The busy check of a down port inverted, in one switch of the fabric, for one input (input 0
/// of switch 0 gets its down port only when the port is held).
#[test]
fn fabric_down_port_busy_check_inverted_is_caught() {
    caught(
        "fabric",
        "fabric.v",
        "(first_request$0 & ~held)",
        "(first_request$0 & held)",
        "mutant-fabric-busy",
    );
}

/// The free check of the first up port tried inverted (a held up port is picked, a free one
/// skipped), in the switch alone.
#[test]
fn switch_up_port_choice_mutated_is_caught() {
    caught(
        "router",
        "switch.v",
        "if (|(position & ~held)) begin",
        "if (|(position & held)) begin",
        "mutant-switch-up",
    );
}

/// The uid comparison of receive slot 0 inverted in the NI: duplicates and FORGETs go astray.
#[test]
fn ni_receive_slot_match_inverted_is_caught() {
    caught(
        "ni",
        "ni.v",
        "(receive_uid$0$q == presented_uid)",
        "(receive_uid$0$q != presented_uid)",
        "mutant-ni-match",
    );
}

/// The NI's header check reading the uid's counter as reserved bits, as before the counter
/// moved into the header word (docs/protocol.md §8.1: only bits 23:16 are reserved): every
/// packet with a nonzero counter is dropped as malformed. The check reads the word's upper
/// half (`checked_half`, bits 31:16; in the NI alone the received word's), so the mutant reads
/// the received word's bits 23:0 in place of the half's reserved byte.
#[test]
fn ni_header_check_of_the_counter_bits_is_caught() {
    caught(
        "ni",
        "ni.v",
        "|checked_half[(32'h0)+:(8)]",
        "|receiver$word[(32'h0)+:(24)]",
        "mutant-ni-reserved",
    );
}

/// The NI's header word sent without the uid's counter (docs/protocol.md §8.1): every packet
/// names the node's datagram 0.
#[test]
fn ni_header_word_without_the_counter_is_caught() {
    caught(
        "ni",
        "ni.v",
        "(((outgoing_length$q) & 32'hffffffff) << 32'h18) | ((outgoing_counter$q) & 32'hffffffff);",
        "(((outgoing_length$q) & 32'hffffffff) << 32'h18);",
        "mutant-ni-counter",
    );
}

/// The NI's mask of a request's final word keeping a byte past the length (docs/protocol.md
/// §8.1: sent as zero): the peers fill those bytes with ones, so a SEND of `4k + 3` bytes
/// carries one byte of them.
#[test]
fn ni_final_word_mask_keeping_a_byte_past_the_length_is_caught() {
    caught(
        "ni",
        "ni.v",
        "final_word_masks$3 = 32'hffffff00;",
        "final_word_masks$3 = 32'hffffffff;",
        "mutant-ni-mask",
    );
}

/// The NI's retry spread left out (docs/protocol.md §8.5): every SEND repeats after
/// `retry_interval - retry_spread / 2` cycles, the least the spread allows.
#[test]
fn ni_retry_without_its_spread_is_caught() {
    caught(
        "ni",
        "ni.v",
        "retry_timers$spread = retry_lfsr$value;",
        "retry_timers$spread = 16'h0;",
        "mutant-ni-spread",
    );
}

/// The NI's retry LFSR stepping at every edge instead of at each SEND's start (docs/protocol.md
/// §8.5: an idle NI keeps its state, so that the replay can skip idle cycles).
#[test]
fn ni_retry_lfsr_stepping_every_cycle_is_caught() {
    caught(
        "ni",
        "ni.v",
        "retry_lfsr$advance = send_sent;",
        "retry_lfsr$advance = 1'b1;",
        "mutant-ni-lfsr",
    );
}

/// The NI's pick not refreshed at a worm's last flit (docs/protocol.md §8.5): the worm after it
/// carries the pick of before, the packet just sent, again.
#[test]
fn ni_pick_not_refreshed_at_finish_is_caught() {
    caught(
        "ni",
        "ni.v",
        "refresh = (~in_worm$q & ~worm$start) | worm$finish;",
        "refresh = ~in_worm$q & ~worm$start;",
        "mutant-ni-pick",
    );
}

/// The per-source ordering check of a new RTS inverted in the RMPP receive path (its verdict
/// block compares the header's `msgNum` word with its register of `expected + 1`): in-order
/// messages are dropped and out-of-order ones taken.
#[test]
fn rmpp_rx_order_check_inverted_is_caught() {
    caught(
        "rmpp-rx",
        "rmpp_rx.v",
        "if (word != expected_next$q) begin",
        "if (word == expected_next$q) begin",
        "mutant-rmpp-order",
    );
}

/// The receive path's `any_due` register (the reply due the transmitter reads, kept apart from
/// the slots' own `reply_due`s) not set by the delivered register's action: the MSGEND of a
/// delivered message waits until some other reply is due.
#[test]
fn rmpp_rx_reply_due_without_delivery_is_caught() {
    caught(
        "rmpp-rx",
        "rmpp_rx.v",
        " | delivered_acts;",
        ";",
        "mutant-rmpp-due",
    );
}

/// The reply latches a CTS's fields whatever the type it sends (de7e50b) and zeroes a MSGEND's
/// and a MSGDROP's `seq` when it reads the words out: without that zero a MSGEND carries the
/// slot's `next_seq`, which the model's has as 0.
#[test]
fn rmpp_rx_msgend_with_the_latched_seq_is_caught() {
    caught(
        "rmpp-rx",
        "rmpp_rx.v",
        "header$seq = ((no_seq) & 32'hffffffff);",
        "header$seq = ((tx_seq$q) & 32'hffffffff);",
        "mutant-rmpp-msgend-seq",
    );
}

/// Selective acceptance (docs/protocol.md §11.7, the default): a held packet whose
/// predecessor is missing too never asks for it, so the CTS naming the missing packet is not
/// sent at once.
#[test]
fn rmpp_rx_held_packet_that_never_asks_is_caught() {
    caught(
        "rmpp-rx",
        "rmpp_rx.v",
        "rx_ask$d = ~|((seen_held$q << 32'h1) & ahead_bit);",
        "rx_ask$d = 1'b0;",
        "mutant-rmpp-ask",
    );
}

/// A held packet not marked in its slot's `held` (§11.7): the CTS's `info2` leaves it out, and
/// the packet is taken again.
#[test]
fn rmpp_rx_held_packet_not_marked_is_caught() {
    caught(
        "rmpp-rx",
        "rmpp_rx.v",
        "rx_held$d = seen_held$q | ahead_bit;",
        "rx_held$d = seen_held$q;",
        "mutant-rmpp-held",
    );
}

/// Slot 0's repeat timer never running out (§11.5): its CTS, MSGEND or MSGDROP is not sent
/// again when the data or the GCH does not come.
#[test]
fn rmpp_rx_repeat_timer_stopped_is_caught() {
    caught(
        "rmpp-rx",
        "rmpp_rx.v",
        "s_ripe$0$d = s_ripe$0$q | ((now$q & repeat_mask) == s_repeat_at$0$q);",
        "s_ripe$0$d = s_ripe$0$q;",
        "mutant-rmpp-repeat",
    );
}

/// The README's recipe for checking a mutated design by hand, run line by line as it stands
/// there: a `sed` that matches nothing (a recipe gone stale) or a mutant that passes fails.
#[test]
fn readme_recipe_catches_its_mutant() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let block = readme
        .split("Checking a mutated design by hand")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the README's recipe block");
    let d = work("readme-recipe");
    let bin = Path::new(env!("CARGO_BIN_EXE_idemnet")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let before = std::fs::read(d.join("v/fabric.v")).ok();
        let o = Command::new("bash")
            .args(["-c", line])
            .current_dir(&d)
            .env("PATH", &path)
            .output()
            .unwrap();
        let expect = if line.starts_with("idemnet cosim") || line.starts_with("idemnet wavediff") {
            1
        } else {
            0
        };
        assert_eq!(o.status.code(), Some(expect), "`{line}`: {}", text(&o));
        if line.starts_with("sed ") {
            let after = std::fs::read(d.join("v/fabric.v")).unwrap();
            assert!(
                before.as_ref() != Some(&after),
                "`{line}` changed nothing: the recipe is stale"
            );
        }
        ran += 1;
    }
    assert_eq!(ran, 4, "{block}");
}
