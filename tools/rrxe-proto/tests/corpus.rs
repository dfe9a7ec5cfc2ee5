// SPDX-License-Identifier: GPL-2.0

//! Captured-traffic corpus: every `*.pcap` under `tools/testing/rrxe-corpus/` (or
//! `$RRXE_CORPUS_DIR`) is read; each RoCE v2 datagram must parse, rebuild its
//! headers byte-exactly and carry a valid ICRC. Mutations of each packet (and of
//! one synthetic packet per opcode) must never panic and must stay consistent.
//!
//! `cargo test --test corpus -- --nocapture` prints the per-opcode counts.

mod common;

use common::pcap;
use common::*;
use rrxe_proto::icrc::{self, IcrcError, NetHdr, SoftCrc32};
use rrxe_proto::opcode;
use rrxe_proto::packet::{self, ParseError};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// All RoCE datagrams of all corpus files, with their file names.
fn corpus() -> Vec<(String, pcap::RoceDatagram)> {
    let dir = pcap::corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let cap = pcap::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for r in &cap.records {
            if let Some(d) = pcap::roce_datagram(cap.linktype, &r.data) {
                out.push((name.clone(), d));
            }
        }
    }
    out
}

#[derive(Default)]
struct Counts {
    by_opcode: BTreeMap<String, usize>,
    cnp: usize,
    ip_options: usize,
}

#[test]
fn corpus_parses_rebuilds_and_verifies() {
    let dir = pcap::corpus_dir();
    let datagrams = corpus();
    // The corpus is committed (tools/testing/rrxe-corpus/capture.sh makes it), so
    // an empty or shrunken corpus is a failure, not a pass.
    assert!(
        datagrams.len() >= 1000,
        "corpus: only {} RoCE v2 packets in {}",
        datagrams.len(),
        dir.display()
    );
    let mut c = Counts::default();
    let mut failures = Vec::new();
    for (i, (file, d)) in datagrams.iter().enumerate() {
        let net = NetHdr::from_ip(&d.ip);
        match packet::parse(&d.payload, None) {
            Ok(p) => {
                check_consistent(&d.payload, &p);
                *c.by_opcode.entry(p.info.name.to_string()).or_default() += 1;
                if d.ip_options {
                    c.ip_options += 1;
                    continue;
                }
                if let Err(e) = icrc::verify(&SoftCrc32, net.unwrap(), &d.udp, &d.payload) {
                    failures.push(format!("{file} #{i} {}: ICRC {e:x?}", p.info.name));
                }
            }
            // Congestion notification packets from hardware NICs: not an rxe opcode,
            // but the ICRC is still checked with the plain IBTA rule.
            Err(ParseError::UnknownOpcode(0x81)) => {
                c.cnp += 1;
                let ok = net
                    .and_then(|n| icrc::compute_ibta(&SoftCrc32, n, &d.udp, &d.payload))
                    .is_ok_and(|v| Some(v) == icrc::stored(&d.payload));
                if !ok {
                    failures.push(format!("{file} #{i} CNP: bad ICRC"));
                }
            }
            Err(e) => failures.push(format!("{file} #{i}: parse {e:?}")),
        }
    }
    println!(
        "corpus: {} RoCE v2 packets from {}",
        datagrams.len(),
        dir.display()
    );
    println!("{:<48} {:>8}", "opcode", "packets");
    for (name, n) in &c.by_opcode {
        println!("{name:<48} {n:>8}");
    }
    if c.cnp > 0 {
        println!("{:<48} {:>8}", "CNP (0x81, not an rxe opcode)", c.cnp);
    }
    if c.ip_options > 0 {
        println!(
            "(ICRC not checked for {} packets with IPv4 options)",
            c.ip_options
        );
    }
    // Every opcode the capture script makes rdma_rxe emit.
    for name in [
        "RC_ACKNOWLEDGE",
        "RC_ATOMIC_ACKNOWLEDGE",
        "RC_COMPARE_SWAP",
        "RC_FETCH_ADD",
        "RC_RDMA_READ_REQUEST",
        "RC_RDMA_READ_RESPONSE_FIRST",
        "RC_RDMA_READ_RESPONSE_MIDDLE",
        "RC_RDMA_READ_RESPONSE_LAST",
        "RC_RDMA_READ_RESPONSE_ONLY",
        "RC_RDMA_WRITE_FIRST",
        "RC_RDMA_WRITE_MIDDLE",
        "RC_RDMA_WRITE_LAST",
        "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
        "RC_RDMA_WRITE_ONLY",
        "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        "RC_SEND_FIRST",
        "RC_SEND_MIDDLE",
        "RC_SEND_LAST",
        "RC_SEND_ONLY",
        "UC_SEND_FIRST",
        "UC_SEND_MIDDLE",
        "UC_SEND_LAST",
        "UC_SEND_ONLY",
        "UD_SEND_ONLY",
    ] {
        let key = format!("IB_OPCODE_{name}");
        assert!(c.by_opcode.contains_key(&key), "corpus has no {key}");
    }
    let v6 = datagrams
        .iter()
        .filter(|(_, d)| d.ip.first().map(|b| b >> 4) == Some(6))
        .count();
    println!(
        "corpus: {} IPv6 and {} IPv4 packets",
        v6,
        datagrams.len() - v6
    );
    assert!(
        v6 > 0 && v6 < datagrams.len(),
        "corpus must hold IPv4 and IPv6 packets"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Mutates one packet in every way listed in the module doc and checks the parser
/// and ICRC verification against it.
fn mutate(fr: &Frame) -> usize {
    let pkt = &fr.pkt;
    let net = fr.net();
    let mut checked = 0;
    let quirk = |op: u8| {
        opcode::lookup(op).is_some_and(|i| usize::from(i.rxe_payload_offset) != i.header_len())
    };
    let mut probe = |buf: &[u8]| {
        for mtu in [None, Some(256), Some(4096)] {
            if let Ok(p) = packet::parse(buf, mtu) {
                check_consistent(buf, &p);
            }
        }
        checked += 1;
        icrc::verify(&SoftCrc32, net, &fr.udp, buf)
    };

    // Truncation to every length.
    for n in 0..pkt.len() {
        let _ = probe(&pkt[..n]);
    }
    // Single bit flips: the ICRC must catch every one outside BTH byte 4, and must
    // ignore those inside it (masked as resv8a), unless the opcode is one that rxe
    // hashes with an unmasked second copy of the BTH.
    let bits: Vec<usize> = if pkt.len() <= 128 {
        (0..pkt.len() * 8).collect()
    } else {
        (0..64 * 8)
            .chain((0..200).map(|k| (k * 7919) % (pkt.len() * 8)))
            .collect()
    };
    for bit in bits {
        let mut m = pkt.clone();
        m[bit / 8] ^= 1 << (bit % 8);
        let r = probe(&m);
        if quirk(pkt[0]) || quirk(m[0]) {
            continue;
        }
        if bit / 8 == 4 {
            assert!(r.is_ok(), "resv8a flip changed the ICRC");
        } else {
            assert!(
                matches!(
                    r,
                    Err(IcrcError::Mismatch { .. }
                        | IcrcError::UnknownOpcode(_)
                        | IcrcError::TooShort)
                ),
                "flip of bit {bit} not detected: {r:?}"
            );
        }
    }
    // Pad count changes.
    for pad in 0..4u8 {
        let mut m = pkt.clone();
        m[1] = (m[1] & !0x30) | (pad << 4);
        let _ = probe(&m);
    }
    // Opcode swaps.
    for op in 0..=255u8 {
        let mut m = pkt.clone();
        m[0] = op;
        let _ = probe(&m);
    }
    checked
}

#[test]
fn mutations_never_panic() {
    let mut frames = synthetic_frames();
    // Bound the run time on large corpora: the first 500 corpus packets.
    frames.extend(
        corpus()
            .into_iter()
            .filter(|(_, d)| !d.ip_options)
            .take(500)
            .map(|(_, d)| {
                let udp = d.udp;
                Frame {
                    ip: d.ip,
                    udp,
                    pkt: d.payload,
                }
            }),
    );
    let mut total = 0;
    for fr in &frames {
        if fr.pkt.len() >= 12 && icrc::verify(&SoftCrc32, fr.net(), &fr.udp, &fr.pkt).is_ok() {
            total += mutate(fr);
        }
    }
    println!(
        "mutations: {} packets, {total} mutated variants checked",
        frames.len()
    );
    assert!(total > 10_000);
}
