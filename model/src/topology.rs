//! The k-ary n-tree of docs/protocol.md §3: configuration check, numbering and link map.
//!
//! `N = k^n` nodes and `n` levels of `k^(n-1)` switches. Switch `(l, w)` has global index
//! `s = l * k^(n-1) + w`. Node `p` attaches to leaf switch `p >> b` at down port `p & (k-1)`.
//! Up port `u` of switch `(l, w)` (`l < n-1`) reaches switch `(l+1, w with digit l := u)` at its
//! down port `w_l`.

use std::fmt;

/// A configuration that docs/protocol.md §3 does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// A validated k-ary n-tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTree {
    /// Arity (ports per direction per switch), a power of two in 2..=8.
    pub k: usize,
    /// Number of levels, >= 1.
    pub n: usize,
}

/// Where a switch port leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// A node (only from a leaf switch's down port).
    Node(usize),
    /// Switch `switch` (global index), port `port` (down port if reached from below, up port if
    /// reached from above).
    Switch { switch: usize, port: usize },
    /// Nothing: the up ports of top-level switches.
    None,
}

impl FatTree {
    /// Checks a configuration: `k` a power of two in `2..=8`, `n >= 1`, `N = k^n <= 65536`.
    pub fn new(k: usize, n: usize) -> Result<Self, ConfigError> {
        if !(2..=8).contains(&k) || !k.is_power_of_two() {
            return Err(ConfigError(format!(
                "k = {k} is not allowed: k must be a power of two in 2..=8 (2, 4 or 8)"
            )));
        }
        if n < 1 {
            return Err(ConfigError(
                "n = 0 is not allowed: n must be at least 1".into(),
            ));
        }
        let b = k.trailing_zeros() as usize;
        if n * b > 16 {
            return Err(ConfigError(format!(
                "k = {k}, n = {n} gives N = {k}^{n} nodes, more than 65536 (node ids are 16 bits)"
            )));
        }
        Ok(Self { k, n })
    }

    /// Bits per digit, `log2 k`.
    #[inline]
    pub fn b(&self) -> usize {
        self.k.trailing_zeros() as usize
    }
    /// Number of nodes `N = k^n`.
    #[inline]
    pub fn nodes(&self) -> usize {
        1 << (self.b() * self.n)
    }
    /// Switches per level, `k^(n-1)`.
    #[inline]
    pub fn per_level(&self) -> usize {
        1 << (self.b() * (self.n - 1))
    }
    /// Total number of switches, `n * k^(n-1)`.
    #[inline]
    pub fn switches(&self) -> usize {
        self.n * self.per_level()
    }
    /// Global index of switch `(l, w)`.
    #[inline]
    pub fn switch_index(&self, l: usize, w: usize) -> usize {
        l * self.per_level() + w
    }
    /// `(l, w)` of global switch index `s`.
    #[inline]
    pub fn switch_lw(&self, s: usize) -> (usize, usize) {
        (s / self.per_level(), s % self.per_level())
    }
    /// Digit `j` (base k) of `x`.
    #[inline]
    pub fn digit(&self, x: usize, j: usize) -> usize {
        (x >> (j * self.b())) & (self.k - 1)
    }
    /// `x` with digit `j` replaced by `d`.
    #[inline]
    pub fn with_digit(&self, x: usize, j: usize, d: usize) -> usize {
        let sh = j * self.b();
        (x & !((self.k - 1) << sh)) | (d << sh)
    }

    /// Leaf switch (global index = `w`) and its down port for node `p`.
    #[inline]
    pub fn node_attach(&self, p: usize) -> (usize, usize) {
        (p >> self.b(), p & (self.k - 1))
    }

    /// Up port `u` of switch `s`: the switch above and the down port it enters there.
    /// `None` at the top level.
    pub fn up_link(&self, s: usize, u: usize) -> Option<(usize, usize)> {
        let (l, w) = self.switch_lw(s);
        if l + 1 >= self.n {
            return None;
        }
        let w2 = self.with_digit(w, l, u);
        Some((self.switch_index(l + 1, w2), self.digit(w, l)))
    }

    /// Down port `d` of switch `s`: the node, or the switch below and the up port it enters there.
    pub fn down_link(&self, s: usize, d: usize) -> Peer {
        let (l, w) = self.switch_lw(s);
        if l == 0 {
            return Peer::Node((w << self.b()) | d);
        }
        let w2 = self.with_digit(w, l - 1, d);
        Peer::Switch {
            switch: self.switch_index(l - 1, w2),
            port: self.digit(w, l - 1),
        }
    }

    /// Where port `i` of switch `s` leads, with the fabric's input numbering
    /// (`0..k` down, `k..2k` up).
    pub fn peer(&self, s: usize, i: usize) -> Peer {
        if i < self.k {
            self.down_link(s, i)
        } else {
            match self.up_link(s, i - self.k) {
                Some((switch, port)) => Peer::Switch { switch, port },
                None => Peer::None,
            }
        }
    }

    /// Whether switch `(l, w)` covers destination `dst`: `dst >> ((l+1) b) == w >> (l b)`.
    #[inline]
    pub fn covers(&self, l: usize, w: usize, dst: usize) -> bool {
        let b = self.b();
        (dst >> ((l + 1) * b)) == (w >> (l * b))
    }

    /// Down port a covered destination leaves switch at level `l` by: `(dst >> (l b)) & (k-1)`.
    #[inline]
    pub fn down_port(&self, l: usize, dst: usize) -> usize {
        (dst >> (l * self.b())) & (self.k - 1)
    }

    /// Highest base-k digit in which `p` and `q` differ (`None` if `p == q`).
    pub fn highest_diff_digit(&self, p: usize, q: usize) -> Option<usize> {
        let x = p ^ q;
        if x == 0 {
            None
        } else {
            Some((usize::BITS - 1 - x.leading_zeros()) as usize / self.b())
        }
    }

    /// Switch traversals between nodes `p` and `q`: `2L+1` where `L` is the highest differing
    /// digit, `1` on the same leaf. (For `p == q` this is also 1.)
    pub fn hops(&self, p: usize, q: usize) -> usize {
        match self.highest_diff_digit(p, q) {
            None => 1,
            Some(l) => 2 * l + 1,
        }
    }
}

/// Which destinations the fabric can still deliver to when some inter-switch links are dead
/// (both directions of up port `u` of switch `s`, link `s k + u`, as in §9): a worm climbs by any
/// live up port (the switch's random choice finds one after retries) and descends by the one
/// fixed down path, so a pair is cut off when every switch its climb can reach at the turning
/// level has a dead link on the fixed way down, or when no live way up reaches that level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reachability {
    /// `cut[p * N + q]`: no worm from node `p` can reach node `q`.
    cut: Vec<bool>,
    nodes: usize,
}

impl Reachability {
    /// The reachability of every ordered pair of nodes of `tree` with the links `dead` cut.
    /// Links outside `0..switches*k` are ignored (the callers range-check them first).
    pub fn new(tree: &FatTree, dead: &[usize]) -> Reachability {
        let k = tree.k;
        let mut is_dead = vec![false; tree.switches() * k];
        for &j in dead {
            if let Some(d) = is_dead.get_mut(j) {
                *d = true;
            }
        }
        let nodes = tree.nodes();
        let mut cut = vec![false; nodes * nodes];
        if dead.is_empty() {
            return Reachability { cut, nodes };
        }
        // Nodes on one leaf switch climb alike, so the climb is worked out once per leaf.
        for leaf in 0..tree.per_level() {
            for q in 0..nodes {
                let reachable = tree.climb_reaches(leaf, q, &is_dead);
                for d in 0..k {
                    cut[((leaf << tree.b()) | d) * nodes + q] = !reachable;
                }
            }
        }
        Reachability { cut, nodes }
    }

    /// Whether a worm from `p` can reach `q`.
    pub fn reaches(&self, p: usize, q: usize) -> bool {
        !self.cut[p * self.nodes + q]
    }

    /// Ordered pairs `(p, q)` that cannot reach each other.
    pub fn cut_pairs(&self) -> usize {
        self.cut.iter().filter(|&&c| c).count()
    }

    /// Nodes that can reach no other node, and can be reached by none (a whole leaf cut off,
    /// for example), in order.
    pub fn isolated(&self) -> Vec<usize> {
        let n = self.nodes;
        (0..n)
            .filter(|&p| {
                n > 1 && (0..n).all(|q| q == p || (!self.reaches(p, q) && !self.reaches(q, p)))
            })
            .collect()
    }

    /// One line for a user: how many pairs are cut off, which nodes are isolated, and the first
    /// cut pair; `None` when every pair is connected.
    pub fn describe(&self) -> Option<String> {
        let pairs = self.cut_pairs();
        if pairs == 0 {
            return None;
        }
        let first = (0..self.nodes * self.nodes).find(|&i| self.cut[i])?;
        let isolated = self.isolated();
        let isolated = if isolated.is_empty() {
            String::new()
        } else {
            format!("; nodes {isolated:?} are cut off from every other node")
        };
        Some(format!(
            "the dead links disconnect {pairs} of {} ordered node pairs (the first: {} cannot reach {}){isolated}",
            self.nodes * (self.nodes - 1),
            first / self.nodes,
            first % self.nodes
        ))
    }
}

impl FatTree {
    /// Whether a worm entering leaf switch `leaf` can reach node `q` with the links marked in
    /// `dead` (indexed `s k + u`) cut.
    fn climb_reaches(&self, leaf: usize, q: usize, dead: &[bool]) -> bool {
        let k = self.k;
        let mut level_switches = vec![leaf];
        for l in 0..self.n {
            // Every switch of one climb level covers the same destinations (the climb changes
            // only the digits below the level).
            if self.covers(l, self.switch_lw(level_switches[0]).1, q) {
                return level_switches
                    .iter()
                    .any(|&s| self.descent_live(s, q, dead));
            }
            let mut above: Vec<usize> = level_switches
                .iter()
                .flat_map(|&s| {
                    (0..k)
                        .filter(move |&u| !dead[s * k + u])
                        .map(move |u| (s, u))
                })
                .filter_map(|(s, u)| self.up_link(s, u).map(|(s2, _)| s2))
                .collect();
            above.sort_unstable();
            above.dedup();
            if above.is_empty() {
                return false;
            }
            level_switches = above;
        }
        false
    }

    /// Whether the fixed down path from switch `s` (which covers `q`) to node `q` is live.
    fn descent_live(&self, mut s: usize, q: usize, dead: &[bool]) -> bool {
        loop {
            let (l, _) = self.switch_lw(s);
            match self.down_link(s, self.down_port(l, q)) {
                Peer::Node(_) => return true,
                Peer::Switch { switch, port } => {
                    if dead[switch * self.k + port] {
                        return false;
                    }
                    s = switch;
                }
                Peer::None => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert!(FatTree::new(4, 2).is_ok());
        assert!(FatTree::new(4, 3).is_ok());
        assert!(FatTree::new(2, 16).is_ok());
        assert!(FatTree::new(8, 5).is_ok());
        for (k, n) in [
            (0, 1),
            (1, 2),
            (3, 2),
            (6, 1),
            (16, 1),
            (4, 0),
            (2, 17),
            (8, 6),
            (4, 9),
        ] {
            let e = FatTree::new(k, n).unwrap_err();
            assert!(!e.0.is_empty(), "{k} {n}");
        }
        let t = FatTree::new(4, 3).unwrap();
        assert_eq!((t.nodes(), t.switches(), t.per_level()), (64, 48, 16));
        let t = FatTree::new(4, 2).unwrap();
        assert_eq!((t.nodes(), t.switches()), (16, 8));
    }

    #[test]
    fn link_symmetry() {
        for k in [2, 4, 8] {
            for n in 1..=3 {
                let t = FatTree::new(k, n).unwrap();
                let mut seen = vec![false; t.switches() * 2 * k];
                for s in 0..t.switches() {
                    let (l, _) = t.switch_lw(s);
                    for u in 0..k {
                        match t.up_link(s, u) {
                            None => assert_eq!(l, n - 1),
                            Some((s2, d)) => {
                                assert_eq!(t.switch_lw(s2).0, l + 1);
                                assert_eq!(t.down_link(s2, d), Peer::Switch { switch: s, port: u });
                                assert!(!seen[s2 * 2 * k + d], "down port used twice");
                                seen[s2 * 2 * k + d] = true;
                            }
                        }
                    }
                    for d in 0..k {
                        match t.down_link(s, d) {
                            Peer::Node(p) => {
                                assert_eq!(l, 0);
                                assert_eq!(t.node_attach(p), (s, d));
                            }
                            Peer::Switch { switch, port } => {
                                assert_eq!(t.up_link(switch, port), Some((s, d)));
                            }
                            Peer::None => panic!("down port without a peer"),
                        }
                    }
                }
                // Every down port above the leaves is reached by exactly one up link.
                for s in t.per_level()..t.switches() {
                    for d in 0..k {
                        assert!(seen[s * 2 * k + d]);
                    }
                }
            }
        }
    }

    #[test]
    fn routes_reach_destination_in_2l_plus_1() {
        // Walk every (p, q) through the covers / down_port rules with any up choice.
        for k in [2, 4, 8] {
            for n in 1..=3 {
                let t = FatTree::new(k, n).unwrap();
                let nn = t.nodes();
                for p in 0..nn {
                    for q in 0..nn {
                        let (mut s, _) = t.node_attach(p);
                        let mut hops = 0;
                        loop {
                            hops += 1;
                            let (l, w) = t.switch_lw(s);
                            if t.covers(l, w, q) {
                                match t.down_link(s, t.down_port(l, q)) {
                                    Peer::Node(x) => {
                                        assert_eq!(x, q);
                                        break;
                                    }
                                    Peer::Switch { switch, .. } => s = switch,
                                    Peer::None => unreachable!(),
                                }
                            } else {
                                let u = (p + q + hops) % k;
                                s = t
                                    .up_link(s, u)
                                    .expect("must not need to go above the top")
                                    .0;
                            }
                            assert!(hops < 100);
                        }
                        assert_eq!(hops, t.hops(p, q), "k{k} n{n} {p}->{q}");
                    }
                }
            }
        }
    }

    #[test]
    fn top_covers_all() {
        let t = FatTree::new(4, 2).unwrap();
        for w in 0..t.per_level() {
            for p in 0..16 {
                assert!(t.covers(1, w, p));
            }
            assert!(!t.covers(1, w, 16));
        }
        assert!(t.covers(0, 2, 9));
        assert!(!t.covers(0, 2, 12));
        assert_eq!(t.down_port(0, 9), 1);
        assert_eq!(t.down_port(1, 9), 2);
    }

    #[test]
    fn reachability_names_a_cut_off_leaf_and_keeps_spare_paths() {
        let t = FatTree::new(4, 2).unwrap();
        // One dead up link of leaf 0: every pair still has a way.
        assert_eq!(Reachability::new(&t, &[0]).describe(), None);
        // All four up links of leaf 0: its nodes 0..3 talk only among themselves.
        let r = Reachability::new(&t, &[0, 1, 2, 3]);
        assert_eq!(r.cut_pairs(), 2 * 4 * 12);
        assert!(r.reaches(0, 3) && !r.reaches(0, 4) && !r.reaches(9, 2) && r.reaches(9, 15));
        assert!(
            r.isolated().is_empty(),
            "the four nodes still reach each other"
        );
        assert!(r.describe().unwrap().contains("96 of 240"));
        // Up port 0 of every leaf: top switch 0 is unreachable, the others carry everything.
        assert_eq!(Reachability::new(&t, &[0, 4, 8, 12]).cut_pairs(), 0);
        // 2-ary 1-tree has no inter-switch links; a 2-ary 3-tree cut at its one leaf-0 pair.
        let t = FatTree::new(2, 3).unwrap();
        let r = Reachability::new(&t, &[0, 1]);
        assert!(!r.reaches(0, 2) && r.reaches(0, 1) && r.reaches(2, 7));
    }
}
