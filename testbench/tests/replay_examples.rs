//! The project's example traces (`testbench/traces`, docs/replay.md) print their expected
//! output (`testbench/traces/expected`) on both engines. They include the replay contract's own
//! examples (`ni-basic.jsonl`, `rmpp-short.jsonl`), kept in the repository, so a clone checks
//! them with nothing beside it.

mod replay_common;

use replay_common::{examples_match_expected, ni_both, rmpp_both};

#[test]
fn every_example_trace_prints_its_expected_output_on_both_engines() {
    examples_match_expected("ni-", ni_both);
    examples_match_expected("rmpp-", rmpp_both);
}
