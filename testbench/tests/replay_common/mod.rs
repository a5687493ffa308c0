//! What the replay tests of both blocks share: running a trace on both engines, the project's
//! example traces and their expected output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use std::io::Write;

use anyhow::Result;
use idemnet_cosim::default_cache_dir;
use idemnet_testbench::replay::{replay_ni_on, Engine, Idle, NiTrace};
use idemnet_testbench::replay_rmpp::{replay_rmpp_on, RmppTrace};
use serde_json::Value;

/// The lines of a replay's output.
pub fn lines(output: &[u8]) -> Vec<Value> {
    std::str::from_utf8(output)
        .expect("replay output is UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every output line is JSON"))
        .collect()
}

/// A block's replay on an engine, as [`replay_ni_on`] and [`replay_rmpp_on`].
pub type Replay<T> = fn(Engine, &T, Idle, &mut dyn Write) -> Result<()>;

/// Parses `text` with `parse` and replays it with `replay` on the golden model and the
/// Verilated RTL, skipping settled cycles; both must write the same bytes. Returns them.
pub fn replay_both<T>(
    text: &str,
    what: &str,
    parse: fn(&str) -> Result<T>,
    replay: Replay<T>,
) -> Vec<u8> {
    let trace = parse(text).unwrap_or_else(|e| panic!("{what}: {e:#}"));
    let cache_dir = default_cache_dir();
    let [model, rtl] = [
        Engine::Model,
        Engine::Rtl {
            cache_dir: &cache_dir,
        },
    ]
    .map(|engine| {
        let mut out = vec![];
        replay(engine, &trace, Idle::Skip, &mut out)
            .unwrap_or_else(|e| panic!("{engine:?} on {what}: {e:#}"));
        out
    });
    let (model_text, rtl_text) = (
        String::from_utf8_lossy(&model),
        String::from_utf8_lossy(&rtl),
    );
    for (k, (a, b)) in model_text.lines().zip(rtl_text.lines()).enumerate() {
        assert_eq!(a, b, "line {k}: model and RTL differ on {what}");
    }
    assert_eq!(model, rtl, "model and RTL differ on {what}");
    model
}

/// An NI trace on both engines: [`replay_both`].
pub fn ni_both(text: &str, what: &str) -> Vec<u8> {
    replay_both(text, what, NiTrace::parse, replay_ni_on)
}

/// An RMPP trace on both engines: [`replay_both`].
pub fn rmpp_both(text: &str, what: &str) -> Vec<u8> {
    replay_both(text, what, RmppTrace::parse, replay_rmpp_on)
}

/// Replays `text` with `replay` on both engines, each skipping settled cycles and ticking
/// every cycle; on each engine both must write the same bytes.
pub fn skipping_is_exact<T>(text: &str, parse: fn(&str) -> Result<T>, replay: Replay<T>) {
    let trace = parse(text).unwrap_or_else(|e| panic!("{text}: {e:#}"));
    let cache_dir = default_cache_dir();
    for engine in [
        Engine::Model,
        Engine::Rtl {
            cache_dir: &cache_dir,
        },
    ] {
        let [skipped, ticked] = [Idle::Skip, Idle::Tick].map(|idle| {
            let mut out = vec![];
            replay(engine, &trace, idle, &mut out)
                .unwrap_or_else(|e| panic!("{engine:?}, {idle:?}, on {text}: {e:#}"));
            out
        });
        assert_eq!(
            String::from_utf8_lossy(&skipped),
            String::from_utf8_lossy(&ticked),
            "{engine:?}: skipping settled cycles changed the output of {text}"
        );
    }
}

/// `parse` refuses `text` with one line that holds every one of `needles`.
pub fn refused<T>(parse: fn(&str) -> Result<T>, text: &str, needles: &[&str]) {
    let Err(error) = parse(text) else {
        panic!("accepted: {text}");
    };
    let message = format!("{error:#}");
    assert!(
        !message.contains('\n'),
        "{text}: more than one line: {message}"
    );
    for needle in needles {
        assert!(
            message.contains(needle),
            "{text}: `{needle}` not in: {message}"
        );
    }
}

/// Runs `job` on a thread and fails unless it finishes within `seconds`.
pub fn within<T: Send + 'static>(seconds: u64, job: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(job());
    });
    match receive.recv_timeout(Duration::from_secs(seconds)) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("did not finish within {seconds} s"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the job panicked"),
    }
}

pub fn kind<'a>(lines: &'a [Value], k: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l.get(k).is_some()).collect()
}

pub fn cycle(line: &Value) -> u64 {
    line["cycle"].as_u64().expect("a line with a cycle")
}

/// The project's example traces.
pub fn traces_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces")
}

/// The project's example trace `name`.
pub fn example(name: &str) -> String {
    let path = traces_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `.jsonl` files of `dir` whose names start with `prefix`, sorted.
pub fn traces(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(prefix) && name.ends_with(".jsonl")
        })
        .collect();
    found.sort();
    found
}

/// Every example trace of one block (`prefix`) runs on both engines with the same output, and
/// that output is the one in `traces/expected/`. `run` replays a trace's text on both engines.
pub fn examples_match_expected(prefix: &str, run: impl Fn(&str, &str) -> Vec<u8>) {
    let found = traces(&traces_dir(), prefix);
    assert!(
        !found.is_empty(),
        "no {prefix}*.jsonl in {}",
        traces_dir().display()
    );
    for path in found {
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let text = std::fs::read_to_string(&path).expect("readable");
        let output = run(&text, name);
        let expected_path = traces_dir().join("expected").join(name);
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        assert_eq!(
            String::from_utf8_lossy(&output),
            expected,
            "{name}: the replay's output is not {}",
            expected_path.display()
        );
    }
}
