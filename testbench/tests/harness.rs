//! Tests of the harness's scheduling rule on a small software device.

use idemnet_model::ports::{PortDir, PortSpec};
use idemnet_testbench::{run, ClockedDut};

/// A registered accumulator: `sum` (out) becomes `sum + add` (in) at every edge.
struct Accumulator {
    add: u64,
    sum: u64,
}

impl ClockedDut for Accumulator {
    fn ports(&self) -> Vec<PortSpec> {
        vec![PortSpec::input("add", 16), PortSpec::output("sum", 32)]
    }
    fn set_inputs(&mut self, words: &[u64]) {
        self.add = words[0];
    }
    fn tick(&mut self) {
        self.sum = (self.sum + self.add) & 0xffff_ffff;
    }
    fn outputs(&mut self, words: &mut [u64]) {
        words[0] = self.sum;
    }
}

#[test]
fn drivers_monitors_and_scoreboards_see_every_edge() {
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen2 = seen.clone();
    let dut = run(Accumulator { add: 0, sum: 0 }, 10, move |tb| {
        let add = tb.port("add", PortDir::In).unwrap();
        let sum = tb.port("sum", PortDir::Out).unwrap();
        let q = tb.queue::<u64>();
        // Driver: adds the cycle number.
        let d = tb.clone();
        tb.spawn(async move {
            loop {
                d.set(add, d.cycle());
                d.edge().await;
            }
        });
        // Monitor: pushes every sampled sum.
        let (m, mq) = (tb.clone(), q.clone());
        tb.spawn(async move {
            loop {
                m.edge().await;
                mq.push(m.get(sum));
            }
        });
        // Scoreboard: waits on the queue only.
        tb.spawn(async move {
            while let Some(v) = q.recv().await {
                seen2.borrow_mut().push(v);
            }
        });
    })
    .unwrap();
    // sum after edge t = 0 + 1 + ... + t
    let expect: Vec<u64> = (0..10u64).map(|t| t * (t + 1) / 2).collect();
    assert_eq!(*seen.borrow(), expect);
    assert_eq!(dut.sum, 45);
}

#[test]
fn a_task_awaiting_something_foreign_is_reported_not_hung() {
    let err = run(Accumulator { add: 0, sum: 0 }, 5, |tb| {
        tb.spawn(async {
            // A oneshot that never fires: not a harness primitive, so the task never parks.
            let (_tx, rx) = tokio::sync::oneshot::channel::<()>();
            let _keep = _tx;
            let _ = rx.await;
        });
    })
    .err()
    .expect("the stuck task must be reported");
    assert!(
        err.to_string().contains("neither finished nor parked"),
        "{err}"
    );
}

#[test]
fn inputs_set_before_the_first_edge_are_applied_at_it() {
    let dut = run(Accumulator { add: 0, sum: 0 }, 1, |tb| {
        let add = tb.port("add", PortDir::In).unwrap();
        let d = tb.clone();
        tb.spawn(async move {
            d.set(add, 7);
            d.edge().await;
        });
    })
    .unwrap();
    assert_eq!(dut.sum, 7);
}

#[test]
fn unknown_port_is_a_clear_error() {
    run(Accumulator { add: 0, sum: 0 }, 1, |tb| {
        let e = tb.port("nope", PortDir::In).unwrap_err();
        assert!(e.to_string().contains("`nope`"));
    })
    .unwrap();
}
