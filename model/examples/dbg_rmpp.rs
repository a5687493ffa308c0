use idemnet_model::fault::Faults;
use idemnet_model::ni::NiConfig;
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::rmpp::RmppConfig;
use idemnet_model::system::{run_with_hosts, SystemHosts};
use idemnet_model::topology::FatTree;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let load: f64 = a[1].parse().unwrap();
    let cycles: u64 = a[2].parse().unwrap();
    let loss: u16 = a[3].parse().unwrap();
    let tree = FatTree::new(4, 2).unwrap();
    let t = MsgTraffic {
        load,
        max_len: 1024,
        pattern: Pattern::Uniform,
        send: SendConfig {
            rts_timeout: a[4].parse().unwrap(),
            data_timeout: a[4].parse().unwrap(),
            resend_period: a[4].parse::<u64>().unwrap() / 2,
            max_active: a[5].parse().unwrap(),
            ..SendConfig::DEFAULT
        },
    };
    let h = SystemHosts::new(&tree, 0.0, t, 1).unwrap();
    let f = Faults {
        loss,
        corrupt: loss / 2,
        dead: vec![],
    };
    let h = run_with_hosts(
        tree,
        NiConfig::DEFAULT,
        RmppConfig::DEFAULT,
        h,
        cycles,
        &f,
        200_000,
    )
    .unwrap();
    let m = &h.rmpp;
    println!(
        "sent {} up {} dlv {} compl {} lost {} inflight {} err {} {:?}",
        m.sent,
        m.upcalls,
        m.delivered,
        m.completed,
        m.lost(),
        m.in_flight(),
        m.errors,
        m.first_error
    );
    for (p, s) in m.senders.iter().enumerate() {
        println!(
            "{p}: {:?} active {} queued {}",
            s.stats(),
            s.active(),
            s.queued()
        );
    }
}
