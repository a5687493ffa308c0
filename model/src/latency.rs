//! Latency distributions of a run, kept in an HdrHistogram instead of a list of samples, so a
//! long run's memory stays fixed and its percentiles cost no sort.

use hdrhistogram::Histogram;
use serde::Serialize;

/// Significant decimal digits the histogram keeps: values below 2,048 cycles are exact, larger
/// ones within 0.1 %.
const SIGNIFICANT_DIGITS: u8 = 3;

/// The latencies of one kind of transfer, in cycles.
#[derive(Clone, Debug)]
pub struct Latencies {
    histogram: Histogram<u64>,
    first: Option<u64>,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            histogram: Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits are valid"),
            first: None,
        }
    }
}

/// What a run's figures report of a latency distribution, in cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

impl Latencies {
    /// One transfer took `cycles`.
    pub fn record(&mut self, cycles: u64) {
        self.first.get_or_insert(cycles);
        // The histogram resizes to take any latency a run can have (below 2^63 cycles);
        // `saturating_record` would clamp to its current top instead of growing.
        if self.histogram.record(cycles).is_err() {
            self.histogram.saturating_record(cycles);
        }
    }

    /// The first latency recorded (the bench's zero-load figure comes from a single transfer).
    pub fn first(&self) -> Option<u64> {
        self.first
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// Count, min, median, 99th percentile and max; `None` before the first record. A
    /// percentile is the smallest recorded value (to the histogram's precision) that at least
    /// that share of the samples do not exceed.
    pub fn summary(&self) -> Option<LatencySummary> {
        if self.histogram.is_empty() {
            return None;
        }
        let h = &self.histogram;
        Some(LatencySummary {
            count: h.len(),
            min: h.min(),
            p50: h.value_at_quantile(0.5),
            p99: h.value_at_quantile(0.99),
            max: h.max(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_exact_below_two_thousand_cycles() {
        let mut l = Latencies::default();
        assert_eq!(l.summary(), None);
        for v in (1..=100).rev() {
            l.record(v);
        }
        assert_eq!(l.first(), Some(100));
        let s = l.summary().unwrap();
        assert_eq!((s.count, s.min, s.p50, s.p99, s.max), (100, 1, 50, 99, 100));
    }

    #[test]
    fn large_latencies_keep_three_digits() {
        let mut l = Latencies::default();
        l.record(123_456);
        let s = l.summary().unwrap();
        for v in [s.min, s.p50, s.p99, s.max] {
            assert!(v.abs_diff(123_456) <= 124, "{s:?}");
        }
    }
}
