// SPDX-License-Identifier: GPL-2.0

//! rrxe's traffic against rdma_rxe's, field by field. For every traffic class of the
//! corpus, `CLASS.pcap` (rdma_rxe on both ends) has a twin `rrxe-CLASS.pcap` (rrxe
//! on both ends, the same tool run; `tools/testing/rrxe-corpus/capture.sh` with
//! `CORPUS_DRIVER=rrxe`). Per direction, the two must show:
//!
//! - the same opcodes;
//! - the same packet shapes: payload length, pad, SE, M, AckReq, TVer and P_Key per
//!   opcode (so the same AckReq cadence within messages). The one exception is
//!   AckReq on RC SEND and WRITE packets: rdma_rxe sets it on every end, rrxe only
//!   for signaled WQEs, every 32 WQEs or half the SQ, and every 64 packets. Its
//!   longest run of RC requests without AckReq is checked against that instead;
//! - the same IP and UDP treatment: version, TTL or hop limit, TOS or traffic class,
//!   DF, a zero UDP checksum, destination port 4791 and a source port in the RoCE
//!   range rdma_get_udp_sport() hashes into;
//! - about the same ACK cadence: ACKed PSNs per AckReq PSN, within a tolerance for
//!   packets tcpdump missed (plain counts differ between two captures of one
//!   driver's runs, so the ratio is compared; retransmissions and repeated ACKs
//!   count once).
//!
//! ICRCs of both are checked by the corpus test, which reads every pcap.
//! `cargo test --test interop -- --nocapture` prints one line per class.

mod common;

use common::pcap;
use rrxe_proto::{opcode, packet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What one side of one capture looks like. `bool` keys are the direction: true
/// for packets from the client (the capture's first address, ending in 1).
type Shape = (bool, &'static str, usize, u8, bool, bool, bool, u8, u16);

#[derive(Default, Debug)]
struct Summary {
    opcodes: BTreeSet<(bool, &'static str)>,
    /// (dir, opcode, payload length, pad, se, mig, ack_req, tver, pkey)
    shapes: BTreeSet<Shape>,
    /// (dir, IP version, TTL or hop limit, TOS or traffic class, DF, UDP checksum
    /// zero, destination port 4791, source port in 0xc000..)
    ip: BTreeSet<(bool, u8, u8, u8, bool, bool, bool, bool)>,
    /// Per direction: the PSNs of request packets with AckReq, and of ACKs (only
    /// RC_ACKNOWLEDGE). Sets, so a retransmitted request and the ACK repeated for
    /// it count once: how often those happen depends on timing, not on the rules.
    ack_req: BTreeMap<bool, BTreeSet<u32>>,
    acks: BTreeMap<bool, BTreeSet<u32>>,
    /// Per direction: the longest run of RC request packets without AckReq, and the
    /// run going on.
    unasked: BTreeMap<bool, (usize, usize)>,
    packets: usize,
}

/// rxe's `RXE_MAX_PKT_PER_ACK`: both drivers ask for an ACK at least this often.
const MAX_PKT_PER_ACK: usize = 64;

/// Whether AckReq on `opcode` is the requester's choice: an RC SEND or WRITE
/// packet. rdma_rxe asks at every message end, rrxe where it needs an ACK; both
/// ask every 64 packets, which lands inside a long message when ends do not ask.
fn ack_req_at_will(opcode: u8) -> bool {
    opcode <= opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
        || matches!(
            opcode,
            opcode::RC_SEND_LAST_WITH_INVALIDATE | opcode::RC_SEND_ONLY_WITH_INVALIDATE
        )
}

/// Whether `opcode` is an RC request (not a response or an ACK).
fn rc_request(opcode: u8) -> bool {
    opcode < 0x20
        && !(opcode::RC_RDMA_READ_RESPONSE_FIRST..=opcode::RC_ATOMIC_ACKNOWLEDGE).contains(&opcode)
}

fn summarize(path: &Path) -> Summary {
    let bytes = std::fs::read(path).unwrap();
    let cap = pcap::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut s = Summary::default();
    for r in &cap.records {
        let Some(d) = pcap::roce_datagram(cap.linktype, &r.data) else {
            continue;
        };
        let Ok(p) = packet::parse(&d.payload, None) else {
            continue;
        };
        let v = d.ip[0] >> 4;
        let (from_client, ttl, tos, df) = if v == 4 {
            (d.ip[15] == 1, d.ip[8], d.ip[1], d.ip[6] & 0x40 != 0)
        } else {
            let tclass = (d.ip[0] << 4) | (d.ip[1] >> 4);
            (d.ip[23] == 1, d.ip[7], tclass, false)
        };
        let name = p.info.name;
        let f = p.fields();
        s.packets += 1;
        s.opcodes.insert((from_client, name));
        s.shapes.insert((
            from_client,
            name,
            p.payload.len(),
            f.bth.pad,
            f.bth.se,
            f.bth.mig,
            f.bth.ack_req || ack_req_at_will(f.bth.opcode),
            f.bth.tver,
            f.bth.pkey,
        ));
        let sport = u16::from_be_bytes([d.udp[0], d.udp[1]]);
        let dport = u16::from_be_bytes([d.udp[2], d.udp[3]]);
        let csum_zero = d.udp[6..8] == [0, 0];
        s.ip.insert((
            from_client,
            v,
            ttl,
            tos,
            df,
            csum_zero,
            dport == 4791,
            sport >= 0xc000,
        ));
        if rc_request(f.bth.opcode) {
            let (longest, run) = s.unasked.entry(from_client).or_default();
            *run = if f.bth.ack_req { 0 } else { *run + 1 };
            *longest = (*longest).max(*run);
        }
        if f.bth.opcode == opcode::RC_ACKNOWLEDGE {
            s.acks.entry(from_client).or_default().insert(f.bth.psn);
        } else if f.bth.ack_req {
            s.ack_req.entry(from_client).or_default().insert(f.bth.psn);
        }
    }
    s
}

/// ACKs from the responder per AckReq request from the requester (`dir` is the
/// requester's side), if it asked for any.
fn ack_ratio(s: &Summary, dir: bool) -> Option<f64> {
    let asked = s.ack_req.get(&dir).map_or(0, BTreeSet::len);
    let acks = s.acks.get(&!dir).map_or(0, BTreeSet::len);
    (asked > 0).then(|| acks as f64 / asked as f64)
}

fn compare(class: &str, rxe: &Summary, rrxe: &Summary) -> Vec<String> {
    let mut bad = Vec::new();
    let diff = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        format!("{class}: {what} differ\n  rdma_rxe: {a:?}\n  rrxe:     {b:?}")
    };
    if rxe.opcodes != rrxe.opcodes {
        bad.push(diff("opcodes", &rxe.opcodes, &rrxe.opcodes));
    }
    if rxe.shapes != rrxe.shapes {
        let only_rxe: Vec<_> = rxe.shapes.difference(&rrxe.shapes).collect();
        let only_rrxe: Vec<_> = rrxe.shapes.difference(&rxe.shapes).collect();
        bad.push(diff("packet shapes", &only_rxe, &only_rrxe));
    }
    if rxe.ip != rrxe.ip {
        bad.push(diff("IP/UDP fields", &rxe.ip, &rrxe.ip));
    }
    for dir in [true, false] {
        let longest = rrxe.unasked.get(&dir).map_or(0, |r| r.0);
        if longest >= MAX_PKT_PER_ACK {
            bad.push(format!(
                "{class}: rrxe's {} sent {longest} RC requests in a row without AckReq",
                side(dir)
            ));
        }
        match (ack_ratio(rxe, dir), ack_ratio(rrxe, dir)) {
            (Some(a), Some(b)) if (a - b).abs() > 0.5 => bad.push(format!(
                "{class}: ACKs per AckReq request from the {} differ: rdma_rxe {a:.2}, rrxe {b:.2}",
                side(dir)
            )),
            // Both asked or neither did (AckReq is part of the shapes).
            _ => {}
        }
    }
    bad
}

fn side(from_client: bool) -> &'static str {
    if from_client {
        "client"
    } else {
        "server"
    }
}

#[test]
fn rrxe_traffic_matches_rdma_rxe() {
    let dir = pcap::corpus_dir();
    let mut classes: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".pcap") && !n.starts_with("rrxe-"))
        .map(|n| n.trim_end_matches(".pcap").to_string())
        .collect();
    classes.sort();
    // Every rdma_rxe class has its rrxe twin: a missing one is a failure.
    assert!(
        classes.len() >= 30,
        "only {} classes in {}",
        classes.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    for class in &classes {
        let twin = dir.join(format!("rrxe-{class}.pcap"));
        if !twin.exists() {
            failures.push(format!("{class}: no rrxe capture ({})", twin.display()));
            continue;
        }
        let (a, b) = (
            summarize(&dir.join(format!("{class}.pcap"))),
            summarize(&twin),
        );
        assert!(a.packets > 0 && b.packets > 0, "{class}: an empty capture");
        let bad = compare(class, &a, &b);
        println!(
            "{:<24} rdma_rxe {:>4} rrxe {:>4} packets, {} opcodes, {} shapes, ACK/AckReq {} {}: {}",
            class,
            a.packets,
            b.packets,
            a.opcodes.len(),
            a.shapes.len(),
            ack_ratio(&a, true).map_or("-".into(), |r| format!("{r:.2}")),
            ack_ratio(&b, true).map_or("-".into(), |r| format!("{r:.2}")),
            if bad.is_empty() { "same" } else { "DIFFERENT" }
        );
        failures.extend(bad);
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn comparison_catches_differences() {
    // The comparison itself: a summary differs from a changed copy of itself.
    let dir = pcap::corpus_dir();
    let s = summarize(&dir.join("write_bw-v4-mtu1024.pcap"));
    assert!(compare(
        "self",
        &s,
        &summarize(&dir.join("write_bw-v4-mtu1024.pcap"))
    )
    .is_empty());
    let mut t = summarize(&dir.join("write_bw-v4-mtu1024.pcap"));
    let first = *t.shapes.iter().next().unwrap();
    t.shapes.remove(&first);
    t.shapes.insert((
        first.0,
        first.1,
        first.2,
        (first.3 + 1) & 3,
        first.4,
        first.5,
        first.6,
        first.7,
        first.8,
    ));
    assert!(!compare("pad", &s, &t).is_empty());
    let mut t = summarize(&dir.join("write_bw-v4-mtu1024.pcap"));
    let acks = t.acks.entry(false).or_default();
    assert!(!acks.is_empty(), "the capture has ACKs from the server");
    acks.extend((0..3 * acks.len() as u32).map(|i| 0x80_0000 + i));
    assert!(!compare("acks", &s, &t).is_empty());
    let mut t = summarize(&dir.join("write_bw-v4-mtu1024.pcap"));
    t.unasked.insert(true, (MAX_PKT_PER_ACK, 0));
    assert!(!compare("unasked", &s, &t).is_empty());
    let other = summarize(&dir.join("read_bw-v4-mtu1024.pcap"));
    assert!(!compare("opcodes", &s, &other).is_empty());
}
