//! docs/replay.md is the reference of the trace format, so it must stay in step with the code:
//! every configuration key of both blocks with the default the parser gives, every drop reason
//! a block can name, every packet type, every output line kind and summary key, and the bounds
//! and periods the replay enforces.

use std::path::PathBuf;

use idemnet_model::rmpp::Type;
use idemnet_testbench::replay::{
    ni_drop_reasons, NiTrace, BUSY_BOUND_TEXT, CYCLE_BOUND_TEXT, MAX_TAIL, NI_KEYS,
};
use idemnet_testbench::replay_rmpp::{rmpp_drop_reasons, RmppTrace, KEYS, QUIET};
use serde_json::Value;

fn doc() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/replay.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text under `heading` (a whole heading line) up to the next heading of its level or
/// above.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let start = doc
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("docs/replay.md has no `{heading}`"))
        + heading.len()
        + 2;
    let rest = &doc[start..];
    let end = rest
        .match_indices("\n#")
        .map(|(at, _)| at)
        .find(|&at| {
            let hashes = rest[at + 1..].chars().take_while(|&c| c == '#').count();
            hashes <= level
        })
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The cells of the table row of `section` whose first cell is `` `name` ``.
fn row<'a>(section: &'a str, name: &str) -> Vec<&'a str> {
    let first = format!("| `{name}` |");
    let line = section
        .lines()
        .find(|l| l.starts_with(&first))
        .unwrap_or_else(|| panic!("no row for `{name}` in:\n{section}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

/// The names in the first cell of every row of the tables in `section`.
fn first_cells(section: &str) -> Vec<String> {
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l[3..].split('`').next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn every_configuration_key_is_documented_with_the_default_the_parser_gives() {
    let doc = doc();
    let ni = NiTrace::parse("").unwrap();
    let ni_section = section(&doc, "#### NI configuration");
    for key in NI_KEYS {
        let default = match key {
            "node" => ni.config.node.to_string(),
            "nodes" => ni.nodes.to_string(),
            "send_slots" => ni.config.send_slots.to_string(),
            "recv_slots" => ni.config.recv_slots.to_string(),
            "retry_interval" => ni.config.retry_interval.to_string(),
            "retry_spread" => ni.config.retry_spread.to_string(),
            "ack_interval" => ni.config.ack_interval.to_string(),
            other => panic!("a key this test does not know yet: {other}"),
        };
        assert_eq!(row(ni_section, key)[2], default, "NI `{key}`");
    }
    assert_eq!(first_cells(ni_section), NI_KEYS, "no other NI keys");

    let rmpp = RmppTrace::parse("").unwrap();
    let c = rmpp.config;
    let rmpp_section = section(&doc, "#### RMPP configuration");
    for key in KEYS {
        let default = match key {
            "node" => c.node.to_string(),
            "nodes" => c.nodes.to_string(),
            "mtu" => c.mtu.to_string(),
            "rx_slots" => c.rx_slots.to_string(),
            "max_msg" => c.max_msg.to_string(),
            "max_rcv_buf" => c.max_rcv_buf.to_string(),
            "reserved" => c.reserved.to_string(),
            "max_data_pkts" => c.max_data_pkts.to_string(),
            "gch_timeout" => c.gch_timeout.to_string(),
            "reply_timeout" => c.reply_timeout.to_string(),
            "selective" => format!("`{}`", c.selective),
            "accept" => {
                assert_eq!(
                    rmpp.accept,
                    u32::MAX,
                    "the default answer accepts everything"
                );
                "`\"all\"`".to_string()
            }
            other => panic!("a key this test does not know yet: {other}"),
        };
        assert_eq!(row(rmpp_section, key)[2], default, "RMPP `{key}`");
    }
    assert_eq!(first_cells(rmpp_section), KEYS, "no other RMPP keys");
}

#[test]
fn every_drop_reason_is_documented_for_the_blocks_that_name_it() {
    let doc = doc();
    let table = section(&doc, "### Drop reasons");
    let (ni, rmpp) = (ni_drop_reasons(), rmpp_drop_reasons());
    for reason in first_cells(table) {
        let block = row(table, &reason)[1].to_string();
        let want = match (
            ni.contains(&reason.as_str()),
            rmpp.contains(&reason.as_str()),
        ) {
            (true, true) => "both",
            (true, false) => "NI",
            (false, true) => "RMPP",
            (false, false) => panic!("`{reason}` is documented but no block names it"),
        };
        assert_eq!(block, want, "`{reason}`");
    }
    for reason in ni.iter().chain(&rmpp) {
        row(table, reason);
    }
}

#[test]
fn every_packet_type_line_kind_and_summary_key_is_documented() {
    let doc = doc();
    let packets = section(&doc, "### Packets");
    let names = Type::ALL.map(Type::name);
    for name in names.iter().chain(&["SEND", "ACK", "FORGET"]) {
        assert!(packets.contains(&format!("`{name}`")), "packet type {name}");
    }
    let output = section(&doc, "## The output");
    let summary = section(&doc, "### The summary");
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces/expected");
    let mut kinds = 0;
    for entry in std::fs::read_dir(&expected).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let line: Value = serde_json::from_str(line).unwrap();
            for key in line.as_object().unwrap().keys().filter(|k| *k != "cycle") {
                kinds += 1;
                assert!(
                    output.contains(&format!("`{{\"{key}\""))
                        || output.contains(&format!("\"{key}\": ")),
                    "line kind {key}"
                );
            }
            if let Some(fields) = line.get("summary").and_then(Value::as_object) {
                for key in fields.keys() {
                    assert!(summary.contains(&format!("`{key}`")), "summary key {key}");
                }
            }
        }
    }
    assert!(kinds > 20, "the expected outputs have lines");
}

#[test]
fn the_bounds_and_periods_are_documented_as_the_code_has_them() {
    let doc = doc();
    let bounds = section(&doc, "## Bounds");
    assert!(bounds.contains(CYCLE_BOUND_TEXT), "the cycle bound");
    assert!(bounds.contains(BUSY_BOUND_TEXT), "the busy bound");
    assert_eq!(MAX_TAIL, idemnet_testbench::replay_rmpp::MAX_TAIL);
    assert!(bounds.contains(&format!("{} cycles past the last event", grouped(MAX_TAIL))));
    let stop = section(&doc, "### When a run stops");
    assert!(stop.contains("`2 * max(retry_interval, ack_interval) + 64` cycles for the NI"));
    assert!(
        stop.contains(&format!("{QUIET} for the\nRMPP"))
            || stop.contains(&format!("{QUIET} for the RMPP"))
    );
    let idle = section(&doc, "### Idle cycles");
    assert!(idle.contains(&format!(
        "RMPP: {QUIET} cycles, or `reply_timeout + 2` if that is longer"
    )));
}

/// `n` with a comma between groups of three digits.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, d) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}
