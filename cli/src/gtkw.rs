//! GTKWave save files beside a run's waveforms (`idemnet cosim --waves DIR`): `model.gtkw` and
//! `rtl.gtkw` open each file with its ports grouped by node (a port named `...$N` belongs to
//! node N; the switches' drop counters have a group of their own), inputs before outputs, and
//! every 35-bit flit decoded by the transaction filter `idemnet-flits`: each worm on the link's
//! trace (`SEND 3->5 uid=0x00030012 len=32 CRC ok`), each flit's field on the line under it
//! (`HEAD 3->5`, `SEND len=32`, `uid=...`, `data ...`, `CRC ok`). The RTL's file also shows, per node of a system, the
//! node's own link ports (`nodes$N.net_in`, `net_out`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use idemnet_model::ports::{PortDir, PortSpec};
use idemnet_spec::flit::{FLIT_BITS, WORMS_ONLY};
use idemnet_spec::CYCLE_TIME_NS;

/// GTKWave trace flags (its `TR_*` bits): hexadecimal, right-justified, through a transaction
/// filter; binary; a blank trace (where a transaction filter's second trace shows); group start
/// and end (blank); closed, and the end of a closed one collapsed.
const HEX: u32 = 0x22;
const BINARY: u32 = 0x28;
const TRANSACTION_FILTER: u32 = 0x1000_0000;
const BLANK: u32 = 0x200;
const GROUP_BEGIN: u32 = 0x80_0200;
const GROUP_END: u32 = 0x100_0200;
const CLOSED: u32 = 0x40_0000;
const COLLAPSED: u32 = 0x1000;

/// The filter installed beside `idemnet` (cargo builds both into one folder).
pub fn filter_path() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("idemnet-flits")))
        .unwrap_or_else(|| PathBuf::from("idemnet-flits"))
}

struct Writer {
    text: String,
    filters: usize,
    filter: String,
    args: String,
}

impl Writer {
    fn signal(&mut self, path: &str, width: u32) {
        let name = if width > 1 {
            format!("{path}[{}:0]", width - 1)
        } else {
            path.to_string()
        };
        if width == FLIT_BITS {
            // The filter reads the whole link: the worms on the trace, each flit's field on the
            // blank trace under it. Its argument is the cycle time, which separates a flit
            // repeated in the next cycle from one held.
            self.filters += 1;
            let _ = writeln!(self.text, "@{:x}", HEX | TRANSACTION_FILTER);
            let _ = writeln!(self.text, "[transaction_args] \"{}\"", self.args);
            let _ = writeln!(self.text, "^<{} {}", self.filters, self.filter);
            let _ = writeln!(self.text, "{name}\n@{BLANK:x}\n-");
            return;
        }
        let _ = writeln!(self.text, "@{:x}", if width == 1 { BINARY } else { HEX });
        let _ = writeln!(self.text, "{name}");
    }

    /// A group of signals, open or closed (GTKWave shows a closed one as one line).
    fn group(&mut self, name: &str, open: bool, body: impl FnOnce(&mut Writer)) {
        let (begin, end) = if open {
            (GROUP_BEGIN, GROUP_END)
        } else {
            (GROUP_BEGIN | CLOSED, GROUP_END | CLOSED | COLLAPSED)
        };
        let _ = writeln!(self.text, "@{begin:x}\n-{name}");
        body(self);
        let _ = writeln!(self.text, "@{end:x}\n-{name}");
    }
}

/// The group a port belongs to: `node N` for a name ending in `$N`, the switches' drop
/// counters together, the rest under `other`.
fn group_of(name: &str) -> (u32, String) {
    if name.starts_with("drops$") {
        return (u32::MAX - 2, "switch drop counters".into());
    }
    // The system's fault inputs: `dead$J` names inter-switch link J, not a node.
    if name.starts_with("dead$") {
        return (u32::MAX - 1, "dead links".into());
    }
    match name
        .rsplit_once('$')
        .and_then(|(_, n)| n.parse::<u32>().ok())
    {
        Some(n) => (n, format!("node {n}")),
        None => (u32::MAX, "other".into()),
    }
}

/// Where a save file's view opens.
#[derive(Clone, Copy, Debug, Default)]
pub struct View<'a> {
    /// The first time shown (ns).
    pub start: u64,
    /// A port whose group opens (the first group otherwise) and a time (ns) the marker and the
    /// view go to: a mismatch.
    pub focus: Option<(&'a str, u64)>,
    /// The links carry packets (§8.1, §11.1), not worms of arbitrary words (§6).
    pub packets: bool,
}

/// The cycles shown before a focused time: few, so that the focus is in view in `twinwave`'s
/// narrow panes too.
const CYCLES_BEFORE_FOCUS: u64 = 3;

/// Where an RTL design keeps each node's own link ports (`net_in`, `net_out`) below its top:
/// `nodes$N.net_in` in the system (a scope per node), `nodes$N$net_in` in the self-test image
/// (rust-hdl flattens it).
#[derive(Clone, Copy, Debug)]
pub struct NodeLinks {
    pub nodes: usize,
    pub separator: char,
}

/// The save file of `wave` (its ports under `scope`), opened at `view`; `links` adds each node's
/// link ports under `scope.top`.
pub fn save_file(
    wave: &Path,
    ports: &[PortSpec],
    scope: &str,
    view: View,
    links: Option<NodeLinks>,
    title: &str,
) -> String {
    let mut w = Writer {
        text: String::new(),
        filters: 0,
        filter: filter_path().display().to_string(),
        args: if view.packets {
            CYCLE_TIME_NS.to_string()
        } else {
            format!("{CYCLE_TIME_NS} {WORMS_ONLY}")
        },
    };
    let _ = writeln!(w.text, "[*] {title}");
    let _ = writeln!(w.text, "[*] generated by idemnet {}", crate::VERSION);
    let _ = writeln!(w.text, "[dumpfile] \"{}\"", wave.display());
    let (start, marker) = match view.focus {
        Some((_, t)) => (
            t.saturating_sub(CYCLES_BEFORE_FOCUS * CYCLE_TIME_NS)
                .max(view.start),
            t,
        ),
        None => (view.start, view.start),
    };
    let _ = writeln!(w.text, "[timestart] {start}");
    // Zoomed so that about 40 cycles (400 ns) fill the wave pane; the marker at the focus.
    let _ = writeln!(w.text, "*-4.000000 {marker}");
    let _ = writeln!(
        w.text,
        "[size] 1600 1000\n[signals_width] 320\n[sst_expanded] 1"
    );
    let mut groups: BTreeMap<(u32, String), Vec<&PortSpec>> = BTreeMap::new();
    for p in ports {
        groups.entry(group_of(&p.name)).or_default().push(p);
    }
    // One group opens (the focused port's, else the first node's); the others are a line each
    // until opened.
    let open = view.focus.map(|(port, _)| group_of(port));
    for (i, (key, list)) in groups.iter().enumerate() {
        let (n, name) = key;
        let opened = open.as_ref().map_or(i == 0, |g| g == key);
        w.group(name, opened, |w| {
            if let Some(l) = links.filter(|l| (*n as usize) < l.nodes) {
                for link in ["net_in", "net_out"] {
                    let name = format!("{scope}.top.nodes${n}{}{link}", l.separator);
                    w.signal(&name, FLIT_BITS);
                }
            }
            for dir in [PortDir::In, PortDir::Out] {
                for p in list.iter().filter(|p| p.dir == dir) {
                    w.signal(&format!("{scope}.{}", p.name), p.width);
                }
            }
        });
    }
    w.text
}

/// Writes `model.gtkw` and `rtl.gtkw` beside the waveforms `(rtl, model)`.
pub fn write_pair(
    waves: (&Path, &Path),
    ports: &[PortSpec],
    view: View,
    system_nodes: Option<usize>,
    title: &str,
) -> Result<(PathBuf, PathBuf)> {
    let (rtl, model) = waves;
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let out = |p: &Path| p.with_extension("gtkw");
    let (r, m) = (out(rtl), out(model));
    let links = system_nodes.map(|nodes| NodeLinks {
        nodes,
        separator: '.',
    });
    let rtl_text = save_file(&abs(rtl), ports, "TOP", view, links, title);
    let model_text = save_file(&abs(model), ports, "TOP", view, None, title);
    std::fs::write(&r, rtl_text).with_context(|| format!("cannot write {}", r.display()))?;
    std::fs::write(&m, model_text).with_context(|| format!("cannot write {}", m.display()))?;
    Ok((r, m))
}

/// Writes `selftest.gtkw` beside the self-test image's waveform `wave` (its top ports `ports`,
/// `nodes` nodes), the view starting at `start` ns.
pub fn write_selftest(
    wave: &Path,
    ports: &[PortSpec],
    nodes: usize,
    start: u64,
    title: &str,
) -> Result<PathBuf> {
    let abs = std::fs::canonicalize(wave).unwrap_or_else(|_| wave.to_path_buf());
    let view = View {
        start,
        focus: None,
        packets: true,
    };
    let links = NodeLinks {
        nodes,
        separator: '$',
    };
    let text = save_file(&abs, ports, "TOP", view, Some(links), title);
    let out = wave.with_extension("gtkw");
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_grouped_by_node_and_flits_filtered() {
        let ports = vec![
            PortSpec::input("node_in$1", 35),
            PortSpec::output("node_out$1", 35),
            PortSpec::input("node_in$0", 35),
            PortSpec::output("drops$7", 16),
            PortSpec::input("loss", 16),
            PortSpec::output("dlv_valid$0", 1),
        ];
        let view = View {
            start: 100,
            focus: None,
            packets: true,
        };
        let links = NodeLinks {
            nodes: 2,
            separator: '.',
        };
        let s = save_file(
            Path::new("/w/rtl.vcd"),
            &ports,
            "TOP",
            view,
            Some(links),
            "t",
        );
        let node0 = s.find("-node 0").unwrap();
        let node1 = s.find("-node 1").unwrap();
        assert!(node0 < node1 && node1 < s.find("-switch drop counters").unwrap());
        assert!(s.contains("[dumpfile] \"/w/rtl.vcd\"\n[timestart] 100"));
        assert!(
            s.contains("@10000022\n[transaction_args] \"10\"\n^<1 "),
            "{s}"
        );
        assert!(s.contains("TOP.node_in$0[34:0]\n@200\n-\n"), "{s}");
        assert!(s.contains("TOP.top.nodes$0.net_in[34:0]"));
        assert!(s.contains("@28\nTOP.dlv_valid$0\n"));
        assert!(s.contains("@22\nTOP.drops$7[15:0]\n"));
        // Inputs before outputs within a node.
        assert!(s.find("TOP.node_in$1").unwrap() < s.find("TOP.node_out$1").unwrap());
    }
}

#[cfg(test)]
mod focus_tests {
    use super::*;

    #[test]
    fn a_mismatch_opens_its_ports_group_with_the_marker_on_it() {
        let ports = vec![
            PortSpec::input("node_in$0", 35),
            PortSpec::output("node_out$2", 35),
        ];
        let view = View {
            start: 0,
            focus: Some(("node_out$2", 215)),
            packets: false,
        };
        let s = save_file(Path::new("/w/model.vcd"), &ports, "TOP", view, None, "t");
        assert!(s.contains("[timestart] 185\n*-4.000000 215\n"), "{s}");
        assert!(s.contains("[transaction_args] \"10 worms\"\n"), "{s}");
        // Node 0's group is closed, node 2's open.
        assert!(
            s.contains(&format!("@{:x}\n-node 0", GROUP_BEGIN | CLOSED)),
            "{s}"
        );
        assert!(s.contains(&format!("@{GROUP_BEGIN:x}\n-node 2")), "{s}");
    }
}
