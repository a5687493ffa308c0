//! What every replay driver shares: the network input fed flit by flit from the trace's packets,
//! and the output lines (worms seen at `net_out`, counter increments as `drop` lines, the
//! summary's counts), so that the NI's and the RMPP receive path's drivers differ only in their
//! host side.

use std::collections::VecDeque;

use idemnet_model::switch::{HEAD, TAIL, VALID};
use serde_json::{json, Value};

/// The network input: each packet from its `cycle`, or once the previous one has gone in.
pub(crate) struct NetFeed {
    queue: VecDeque<(u64, Vec<u64>, Value)>,
    cur: Option<(Vec<u64>, usize, Value)>,
}

impl NetFeed {
    /// Packets as (cycle, flits, the packet as a trace line shows it).
    pub fn new(packets: impl IntoIterator<Item = (u64, Vec<u64>, Value)>) -> NetFeed {
        NetFeed {
            queue: packets.into_iter().collect(),
            cur: None,
        }
    }

    /// Nothing left to present.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.cur.is_none()
    }

    /// The flit of cycle `t` and the packet it belongs to.
    pub fn next(&mut self, t: u64) -> (u64, Option<Value>) {
        if self.cur.is_none() && self.queue.front().is_some_and(|(c, _, _)| *c <= t) {
            let (_, flits, p) = self.queue.pop_front().unwrap_or_else(|| unreachable!());
            self.cur = Some((flits, 0, p));
        }
        let Some((flits, k, p)) = self.cur.as_mut() else {
            return (0, None);
        };
        let f = flits[*k];
        *k += 1;
        let p = p.clone();
        if *k == flits.len() {
            self.cur = None;
        }
        (f, Some(p))
    }
}

/// The output lines, kept as (cycle, rank, line): the rank orders the lines of one cycle.
#[derive(Default)]
pub(crate) struct Lines {
    v: Vec<(u64, u8, Value)>,
    /// The last cycle a line was produced in.
    pub last: u64,
    worm: Vec<u64>,
    worm_start: u64,
    counters: Vec<u64>,
}

impl Lines {
    /// A line of cycle `cycle`, produced in cycle `now`.
    pub fn push(&mut self, now: u64, cycle: u64, rank: u8, line: Value) {
        self.v.push((cycle, rank, line));
        self.last = now;
    }

    /// The flit `f` the block showed at `net_out` in cycle `t`: a `packet` line (rank 0, at
    /// the cycle of its head) when a worm ends, decoded by `decode` or listed raw.
    pub fn net_out(&mut self, t: u64, f: u64, decode: impl Fn(&[u64]) -> Option<Value>) {
        if f & VALID == 0 {
            return;
        }
        if f & HEAD != 0 {
            self.worm.clear();
            self.worm_start = t;
        }
        self.worm.push(f);
        if f & TAIL != 0 {
            let p = decode(&self.worm).unwrap_or_else(|| {
                json!({ "raw": self.worm.iter().map(|f| format!("{f:#011x}")).collect::<Vec<_>>() })
            });
            let start = self.worm_start;
            self.push(t, start, 0, json!({ "cycle": start, "packet": p }));
            self.worm.clear();
        }
    }

    /// The 16-bit wrapping counters shown in cycle `t`: a `drop` line (rank 3) per increment
    /// of a counter that `reason` names, with the input packet of that cycle.
    pub fn counters(
        &mut self,
        t: u64,
        shown: &[u64],
        reason: impl Fn(usize) -> Option<&'static str>,
        packet: &Option<Value>,
    ) {
        self.counters.resize(shown.len(), 0);
        for (k, &x) in shown.iter().enumerate() {
            let now = x & 0xFFFF;
            let delta = now.wrapping_sub(self.counters[k]) & 0xFFFF;
            self.counters[k] = now;
            let Some(reason) = reason(k) else {
                continue;
            };
            for _ in 0..delta {
                let p = packet.clone().unwrap_or(Value::Null);
                self.push(
                    t,
                    t,
                    3,
                    json!({ "cycle": t, "drop": { "reason": reason, "packet": p } }),
                );
            }
        }
    }

    /// Lines of kind `k` so far.
    pub fn count(&self, k: &str) -> usize {
        self.v.iter().filter(|(_, _, v)| v.get(k).is_some()).count()
    }

    /// The lines in cycle order, then `summary`.
    pub fn finish(mut self, summary: Value) -> Vec<Value> {
        self.v.sort_by_key(|(c, r, _)| (*c, *r));
        let mut v: Vec<Value> = self.v.into_iter().map(|(_, _, l)| l).collect();
        v.push(json!({ "summary": summary }));
        v
    }
}
