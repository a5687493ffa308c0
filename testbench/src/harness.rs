//! The clocked coroutine harness: cocotb-style drivers, monitors and scoreboards as tasks on a
//! tokio current-thread runtime (`LocalSet`), awaiting edges of one clocked device under test.
//!
//! The harness, not each test, guarantees the scheduling rule that makes runs reproducible:
//! before every edge (the first one included) every live task has run until it is parked, either
//! on [`Tb::edge`] or on an empty [`Queue`]. Only then are the inputs applied and the clock
//! edge taken. Drivers write inputs between edges and monitors read the outputs of the last edge,
//! so the order in which tasks run within one cycle cannot change what the device sees.
//!
//! A task that neither finishes nor parks on a harness primitive (for example one awaiting a
//! foreign future that never wakes) stops the run with an error naming the cycle, instead of
//! hanging it.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use anyhow::{bail, Result};
use idemnet_model::ports::{PortDir, PortSpec};

/// A device that the harness can clock: the Verilated RTL or a golden-model block.
///
/// `tick` is one cycle of the time contract in docs/protocol.md §1: the inputs set since the
/// last tick are `I_t`, and after it `outputs` returns `O_t`.
pub trait ClockedDut {
    fn ports(&self) -> Vec<PortSpec>;
    fn set_inputs(&mut self, words: &[u64]);
    fn tick(&mut self);
    fn outputs(&mut self, words: &mut [u64]);
}

/// Where one port sits in the flat word buffers.
#[derive(Clone, Copy, Debug)]
pub struct PortSlot {
    offset: usize,
    words: usize,
}

#[derive(Default)]
struct Sched {
    live: Cell<usize>,
    edge_parked: Cell<usize>,
    queue_parked: Cell<usize>,
    edges_taken: Cell<u64>,
    edge_wakers: RefCell<Vec<Waker>>,
}

struct Shared {
    ports: Vec<PortSpec>,
    inputs: RefCell<Vec<u64>>,
    outputs: RefCell<Vec<u64>>,
    sched: Sched,
}

/// Handle that tasks hold: spawn tasks, await edges, drive inputs, sample outputs.
#[derive(Clone)]
pub struct Tb {
    shared: Rc<Shared>,
}

impl Tb {
    /// Spawns a task on the harness. It must be called from inside [`run`] (setup or a task).
    pub fn spawn<F: Future<Output = ()> + 'static>(&self, fut: F) {
        let shared = self.shared.clone();
        shared.sched.live.set(shared.sched.live.get() + 1);
        tokio::task::spawn_local(async move {
            fut.await;
            shared.sched.live.set(shared.sched.live.get() - 1);
        });
    }

    /// Completes right after the next clock edge, when the outputs of that edge are readable.
    pub fn edge(&self) -> Edge {
        Edge {
            shared: self.shared.clone(),
            target: None,
        }
    }

    /// Waits for `n` edges.
    pub async fn edges(&self, n: u64) {
        for _ in 0..n {
            self.edge().await;
        }
    }

    /// The number of edges taken so far; equals the cycle index of the next edge.
    pub fn cycle(&self) -> u64 {
        self.shared.sched.edges_taken.get()
    }

    pub fn ports(&self) -> &[PortSpec] {
        &self.shared.ports
    }

    /// Looks a port up by its Verilog name.
    pub fn port(&self, name: &str, dir: PortDir) -> Result<PortSlot> {
        let mut offset = 0;
        for p in self.shared.ports.iter().filter(|p| p.dir == dir) {
            if p.name == name {
                return Ok(PortSlot {
                    offset,
                    words: p.words(),
                });
            }
            offset += p.words();
        }
        bail!("the device has no {dir:?} port named `{name}`")
    }

    /// Sets an input (its low 64 bits; wider ports have their upper words cleared).
    pub fn set(&self, port: PortSlot, value: u64) {
        let mut inputs = self.shared.inputs.borrow_mut();
        inputs[port.offset] = value;
        for w in 1..port.words {
            inputs[port.offset + w] = 0;
        }
    }

    /// Reads an output's low 64 bits as of the last edge.
    pub fn get(&self, port: PortSlot) -> u64 {
        self.shared.outputs.borrow()[port.offset]
    }

    /// A single-consumer queue whose empty `recv` counts as parked, so scoreboards can wait on
    /// monitors without stalling the clock.
    pub fn queue<T>(&self) -> Queue<T> {
        Queue {
            shared: self.shared.clone(),
            inner: Rc::new(QueueInner {
                items: RefCell::new(VecDeque::new()),
                waiter: RefCell::new(None),
                closed: Cell::new(false),
            }),
        }
    }
}

/// Future returned by [`Tb::edge`].
pub struct Edge {
    shared: Rc<Shared>,
    target: Option<u64>,
}

impl Future for Edge {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let sched = &self.shared.sched;
        match self.target {
            None => {
                let target = sched.edges_taken.get() + 1;
                sched.edge_parked.set(sched.edge_parked.get() + 1);
                sched.edge_wakers.borrow_mut().push(cx.waker().clone());
                self.target = Some(target);
                Poll::Pending
            }
            Some(target) if sched.edges_taken.get() >= target => Poll::Ready(()),
            Some(_) => {
                // Spurious poll before the edge: stay parked, keep the newest waker.
                sched.edge_wakers.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

struct QueueInner<T> {
    items: RefCell<VecDeque<T>>,
    waiter: RefCell<Option<Waker>>,
    closed: Cell<bool>,
}

/// See [`Tb::queue`]. Clone it to hand the sending end to a monitor.
pub struct Queue<T> {
    shared: Rc<Shared>,
    inner: Rc<QueueInner<T>>,
}

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
            inner: self.inner.clone(),
        }
    }
}

impl<T> Queue<T> {
    pub fn push(&self, item: T) {
        self.inner.items.borrow_mut().push_back(item);
        self.wake_waiter();
    }

    /// Ends the stream: a pending and every later `recv` returns `None` once the queue is empty.
    pub fn close(&self) {
        self.inner.closed.set(true);
        self.wake_waiter();
    }

    fn wake_waiter(&self) {
        if let Some(w) = self.inner.waiter.borrow_mut().take() {
            let sched = &self.shared.sched;
            sched.queue_parked.set(sched.queue_parked.get() - 1);
            w.wake();
        }
    }

    pub fn recv(&self) -> Recv<'_, T> {
        Recv { queue: self }
    }
}

/// Future returned by [`Queue::recv`].
pub struct Recv<'a, T> {
    queue: &'a Queue<T>,
}

impl<T> Future for Recv<'_, T> {
    type Output = Option<T>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let inner = &self.queue.inner;
        if let Some(item) = inner.items.borrow_mut().pop_front() {
            return Poll::Ready(Some(item));
        }
        if inner.closed.get() {
            return Poll::Ready(None);
        }
        let mut waiter = inner.waiter.borrow_mut();
        if waiter.is_none() {
            let sched = &self.queue.shared.sched;
            sched.queue_parked.set(sched.queue_parked.get() + 1);
        }
        *waiter = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// How many scheduler turns the harness waits for tasks to park before it calls them stuck.
const PARK_TURNS: usize = 10_000;

/// Runs `cycles` clock edges of `dut`, with the tasks that `setup` spawns. Returns the DUT.
pub fn run<D, S>(dut: D, cycles: u64, setup: S) -> Result<D>
where
    D: ClockedDut + 'static,
    S: FnOnce(&Tb),
{
    let ports = dut.ports();
    let in_words: usize = ports
        .iter()
        .filter(|p| p.dir == PortDir::In)
        .map(PortSpec::words)
        .sum();
    let out_words: usize = ports
        .iter()
        .filter(|p| p.dir == PortDir::Out)
        .map(PortSpec::words)
        .sum();
    let tb = Tb {
        shared: Rc::new(Shared {
            ports,
            inputs: RefCell::new(vec![0; in_words]),
            outputs: RefCell::new(vec![0; out_words]),
            sched: Sched::default(),
        }),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    let local = tokio::task::LocalSet::new();
    let mut dut = dut;
    local.block_on(&runtime, async {
        setup(&tb);
        let sched = &tb.shared.sched;
        // Every live task runs until it is parked on an edge or an empty queue.
        let settle = |before: &str| {
            let before = before.to_string();
            async move {
                let mut turns = 0;
                while sched.edge_parked.get() + sched.queue_parked.get() < sched.live.get() {
                    turns += 1;
                    if turns > PARK_TURNS {
                        bail!(
                            "{before}: {} of {} testbench tasks neither finished nor parked on an edge or a queue",
                            sched.live.get() - sched.edge_parked.get() - sched.queue_parked.get(),
                            sched.live.get()
                        );
                    }
                    tokio::task::yield_now().await;
                }
                Ok::<(), anyhow::Error>(())
            }
        };
        for cycle in 0..cycles {
            settle(&format!("before edge {cycle}")).await?;
            dut.set_inputs(&tb.shared.inputs.borrow());
            dut.tick();
            dut.outputs(&mut tb.shared.outputs.borrow_mut());
            sched.edges_taken.set(cycle + 1);
            sched.edge_parked.set(0);
            for w in sched.edge_wakers.borrow_mut().drain(..) {
                w.wake();
            }
        }
        // Monitors and scoreboards see the outputs of the last edge too.
        settle(&format!("after the last edge ({cycles})")).await
    })?;
    Ok(dut)
}
