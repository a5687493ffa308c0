//! Index arithmetic of the k-ary n-tree (`docs/protocol.md` §3).

use crate::RouterError;

/// A k-ary n-tree: `k^n` nodes, `n` levels of `k^(n-1)` switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Radix (2, 4 or 8).
    pub k: usize,
    /// Number of levels (>= 1).
    pub n: usize,
    /// `log2 k`, bits per digit.
    pub b: usize,
    /// `k^(n-1)`, switches per level.
    pub per_level: usize,
    /// `k^n`, nodes.
    pub nodes: usize,
}

/// One end of a link: down or up port `port` of switch `s` (global index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortRef {
    Down { s: usize, port: usize },
    Up { s: usize, port: usize },
}

impl Topology {
    /// Validate `k` (a power of two in 2..=8) and `n` (>= 1, `k^n <= 65536`).
    pub fn new(k: usize, n: usize) -> Result<Self, RouterError> {
        if !matches!(k, 2 | 4 | 8) {
            return Err(RouterError::BadRadix(k));
        }
        let b = k.trailing_zeros() as usize;
        if n == 0 || n * b > 16 {
            return Err(RouterError::BadLevels { k, n });
        }
        Ok(Self {
            k,
            n,
            b,
            per_level: k.pow(n as u32 - 1),
            nodes: k.pow(n as u32),
        })
    }

    /// Total number of switches, `n * k^(n-1)`.
    pub fn switches(&self) -> usize {
        self.n * self.per_level
    }

    /// Global index `s = l * k^(n-1) + w`.
    pub fn switch_index(&self, l: usize, w: usize) -> usize {
        l * self.per_level + w
    }

    /// `(l, w)` of global index `s`.
    pub fn switch_coords(&self, s: usize) -> (usize, usize) {
        (s / self.per_level, s % self.per_level)
    }

    /// Digit `j` of `x` in base k.
    pub fn digit(&self, x: usize, j: usize) -> usize {
        (x >> (j * self.b)) & (self.k - 1)
    }

    /// Leaf switch and down port of node `p`.
    pub fn node_port(&self, p: usize) -> PortRef {
        PortRef::Down {
            s: self.switch_index(0, p >> self.b),
            port: p & (self.k - 1),
        }
    }

    /// The far end of up port `u` of switch `(l, w)`, `l < n - 1`: down port `w_l` of switch
    /// `(l + 1, w')`, `w'` being `w` with digit `l` replaced by `u`.
    pub fn up_link(&self, l: usize, w: usize, u: usize) -> PortRef {
        assert!(l + 1 < self.n);
        let sh = l * self.b;
        let w2 = (w & !((self.k - 1) << sh)) | (u << sh);
        PortRef::Down {
            s: self.switch_index(l + 1, w2),
            port: self.digit(w, l),
        }
    }

    /// Number of switch traversals between nodes `p` and `q` (`2L + 1`).
    pub fn hops(&self, p: usize, q: usize) -> usize {
        let mut hi = 0;
        for j in 1..self.n {
            if self.digit(p, j) != self.digit(q, j) {
                hi = j;
            }
        }
        2 * hi + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert!(Topology::new(3, 2).is_err());
        assert!(Topology::new(16, 2).is_err());
        assert!(Topology::new(4, 0).is_err());
        assert!(Topology::new(4, 8).is_ok());
        assert!(Topology::new(4, 9).is_err());
        assert!(Topology::new(8, 5).is_ok());
        assert!(Topology::new(8, 6).is_err());
        assert!(Topology::new(2, 16).is_ok());
        let t = Topology::new(4, 3).unwrap();
        assert_eq!((t.switches(), t.nodes), (48, 64));
    }

    #[test]
    fn links_are_a_bijection() {
        let t = Topology::new(4, 3).unwrap();
        let mut seen = std::collections::HashSet::new();
        for l in 0..t.n - 1 {
            for w in 0..t.per_level {
                for u in 0..t.k {
                    assert!(seen.insert(t.up_link(l, w, u)));
                }
            }
        }
        assert_eq!(seen.len(), (t.n - 1) * t.per_level * t.k);
    }
}
