//! The trace parsers of both blocks against random bytes and random damage to valid traces:
//! whatever the input, they must not panic, and they either accept it or refuse it with one
//! line that names the trace line (docs/replay.md, "Errors"). Parsing only: no engine runs.

use std::path::PathBuf;
use std::sync::OnceLock;

use idemnet_testbench::replay::{read_ni_trace, NiTrace};
use idemnet_testbench::replay_rmpp::{read_rmpp_trace, RmppTrace};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Valid traces of both blocks to damage: the project's examples and a few more keys.
fn seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(read_seeds)
}

fn read_seeds() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces");
    let mut seeds: Vec<String> = [
        "ni-basic",
        "ni-send",
        "ni-idle-gap",
        "rmpp-short",
        "rmpp-long",
    ]
    .iter()
    .map(|name| std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).unwrap())
    .collect();
    seeds.push(
        [
            r#"{"config": {"node": 1, "nodes": 4, "send_slots": 2, "recv_slots": 3, "retry_interval": 9, "ack_interval": 7}}"#,
            r#"{"cycle": 0, "send": {"dst": 2, "data": "0102"}}"#,
            r#"{"cycle": 5, "packet": {"type": "ACK", "src": 2, "dst": 1, "uid": 65536}}"#,
        ]
        .join("\n"),
    );
    seeds.push(
        [
            r#"{"config": {"node": 0, "nodes": 8, "mtu": 8, "rx_slots": 2, "max_msg": 64, "max_rcv_buf": 20, "reserved": 4, "max_data_pkts": 3, "gch_timeout": 50, "accept": {"max_len": 12}}}"#,
            r#"{"cycle": 1, "packet": {"type": "RTS", "src": 1, "dst": 0, "version": 1, "msg_id": 2, "len": 20, "seq": 0, "info1": 0, "info2": 0, "msg_num": 1, "data": "0001020304050607"}}"#,
            r#"{"cycle": 9, "packet": {"type": "CTS", "src": 3, "dst": 0, "msg_id": 4, "info1": 2}}"#,
            r#"{"cycle": 20, "end": true}"#,
        ]
        .join("\n"),
    );
    seeds
}

/// Replacements for a number of a trace: huge, at the bounds, negative, fractional, other types.
const NUMBERS: [&str; 16] = [
    "18446744073709551615",
    "18446744073709551616",
    "4611686018427387904",
    "4611686018427387903",
    "4294967296",
    "65536",
    "-1",
    "-9223372036854775809",
    "1.5",
    "1e400",
    "0",
    "\"12\"",
    "[1]",
    "{}",
    "true",
    "null",
];

/// Replacements for a string of a trace: unknown packet types, odd-length and non-hex data,
/// escapes that would break a message over lines.
const STRINGS: [&str; 9] = [
    "\"SEND\"",
    "\"RTS_LAST\"",
    "\"BOGUS\"",
    "\"abc\"",
    "\"zz\"",
    "\"\"",
    "\"a\\nb\"",
    "\"\\u0000\"",
    "7",
];

/// Unknown keys, some with characters a message must not print raw.
const KEYS: [&str; 4] = [
    "\"bogus\"",
    "\"a\\nb\"",
    "\"\\r\\n\"",
    "\"type \\u001b[31m\"",
];

/// One kind of damage, with the random choices it needs.
#[derive(Clone, Debug)]
enum Damage {
    /// Cut line `line` at byte `at`.
    Truncate { line: usize, at: usize },
    /// XOR byte `at` with `mask`.
    Flip { at: usize, mask: u8 },
    /// Repeat the `key`-th key of line `line` in front of itself.
    DuplicateKey { line: usize, key: usize },
    /// Replace the `number`-th number of the text by `NUMBERS[with]`.
    Number { number: usize, with: usize },
    /// Replace the `string`-th string value of the text by `STRINGS[with]`.
    String { string: usize, with: usize },
    /// Insert `KEYS[with]` as a key at the `object`-th `{`.
    UnknownKey { object: usize, with: usize },
    /// Drop line `line`, or repeat it.
    Line { line: usize, repeat: bool },
}

fn damage() -> impl Strategy<Value = Damage> {
    let n = 0usize..1000;
    prop_oneof![
        (n.clone(), n.clone()).prop_map(|(line, at)| Damage::Truncate { line, at }),
        (0usize..100_000, 1u8..=255).prop_map(|(at, mask)| Damage::Flip { at, mask }),
        (n.clone(), n.clone()).prop_map(|(line, key)| Damage::DuplicateKey { line, key }),
        (n.clone(), 0..NUMBERS.len()).prop_map(|(number, with)| Damage::Number { number, with }),
        (n.clone(), 0..STRINGS.len()).prop_map(|(string, with)| Damage::String { string, with }),
        (n.clone(), 0..KEYS.len()).prop_map(|(object, with)| Damage::UnknownKey { object, with }),
        (n, any::<bool>()).prop_map(|(line, repeat)| Damage::Line { line, repeat }),
    ]
}

/// Byte ranges of the runs of `text` that `is_part` accepts.
fn runs(text: &str, is_part: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = vec![];
    let mut k = 0;
    while k < bytes.len() {
        if is_part(bytes[k]) {
            let start = k;
            while k < bytes.len() && is_part(bytes[k]) {
                k += 1;
            }
            found.push((start, k));
        } else {
            k += 1;
        }
    }
    found
}

/// Byte ranges of the quoted strings of `text` (no escapes in the seeds) after a `: `, and of
/// the keys (before a `:`).
fn strings(text: &str, keys: bool) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let quotes: Vec<usize> = (0..bytes.len()).filter(|&k| bytes[k] == b'"').collect();
    quotes
        .chunks(2)
        .filter(|pair| pair.len() == 2)
        .map(|pair| (pair[0], pair[1] + 1))
        .filter(|&(_, end)| (bytes.get(end) == Some(&b':')) == keys)
        .collect()
}

fn pick<T: Copy>(items: &[T], k: usize) -> Option<T> {
    (!items.is_empty()).then(|| items[k % items.len()])
}

fn apply(text: &str, damage: &Damage) -> Vec<u8> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return text.as_bytes().to_vec();
    }
    let splice = |(start, end): (usize, usize), with: &str| {
        format!("{}{with}{}", &text[..start], &text[end..]).into_bytes()
    };
    match *damage {
        Damage::Truncate { line, at } => {
            let mut out: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
            let target = &mut out[line % lines.len()];
            target.truncate(at % (target.len() + 1));
            out.join(&b'\n')
        }
        Damage::Flip { at, mask } => {
            let mut bytes = text.as_bytes().to_vec();
            let at = at % bytes.len();
            bytes[at] ^= mask;
            bytes
        }
        Damage::DuplicateKey { line, key } => {
            let line = line % lines.len();
            let offset: usize = lines[..line].iter().map(|l| l.len() + 1).sum();
            match pick(&strings(lines[line], true), key) {
                Some((start, end)) => {
                    let repeated = format!("{}: 1, ", &lines[line][start..end]);
                    splice((offset + start, offset + start), &repeated)
                }
                None => text.as_bytes().to_vec(),
            }
        }
        Damage::Number { number, with } => {
            match pick(&runs(text, |b| b.is_ascii_digit()), number) {
                Some(range) => splice(range, NUMBERS[with]),
                None => text.as_bytes().to_vec(),
            }
        }
        Damage::String { string, with } => match pick(&strings(text, false), string) {
            Some(range) => splice(range, STRINGS[with]),
            None => text.as_bytes().to_vec(),
        },
        Damage::UnknownKey { object, with } => {
            let braces: Vec<usize> = (0..text.len())
                .filter(|&k| text.as_bytes()[k] == b'{')
                .collect();
            match pick(&braces, object) {
                Some(at) => splice((at + 1, at + 1), &format!("{}: 1, ", KEYS[with])),
                None => text.as_bytes().to_vec(),
            }
        }
        Damage::Line { line, repeat } => {
            let mut out: Vec<&str> = lines.clone();
            let line = line % lines.len();
            if repeat {
                out.insert(line, lines[line]);
            } else {
                out.remove(line);
            }
            out.join("\n").into_bytes()
        }
    }
}

/// Both parsers on `bytes`: no panic (proptest fails the case on one), and a refusal is one
/// line naming the trace line.
fn check_both(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let results = [
        NiTrace::parse(&text).map(|_| ()),
        RmppTrace::parse(&text).map(|_| ()),
    ];
    for error in results.into_iter().filter_map(Result::err) {
        let message = format!("{error:#}");
        prop_assert!(!message.contains('\n'), "more than one line: {message:?}");
        prop_assert!(message.starts_with("line "), "names no line: {message:?}");
    }
    Ok(())
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn random_bytes_are_accepted_or_refused_in_one_line(
        bytes in proptest::collection::vec(any::<u8>(), 0..400)
    ) {
        check_both(&bytes)?;
    }

    #[test]
    fn damaged_traces_are_accepted_or_refused_in_one_line(
        seed in 0usize..100,
        damages in proptest::collection::vec(damage(), 1..4)
    ) {
        let mut text = seeds()[seed % seeds().len()].clone();
        for d in &damages {
            text = String::from_utf8_lossy(&apply(&text, d)).into_owned();
        }
        check_both(text.as_bytes())?;
    }
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn trace_files_of_any_bytes_are_read_or_refused_in_one_line(
        bytes in proptest::collection::vec(any::<u8>(), 0..200)
    ) {
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "damaged-{:?}.jsonl",
            std::thread::current().id()
        ));
        std::fs::write(&path, &bytes).unwrap();
        let results = [
            read_ni_trace(&path).map(|_| ()),
            read_rmpp_trace(&path).map(|_| ()),
        ];
        for error in results.into_iter().filter_map(Result::err) {
            let message = format!("{error:#}");
            prop_assert!(!message.contains('\n'), "more than one line: {message:?}");
            prop_assert!(message.contains("line "), "names no line: {message:?}");
        }
    }
}
