// SPDX-License-Identifier: GPL-2.0

//! Tests of the test-side pcap reader with captures written on the fly, so the
//! corpus test's reader is itself covered even when no corpus exists.

mod common;

use common::pcap::{self, *};
use common::*;
use rrxe_proto::opcode;
use rrxe_proto::packet::HeaderFields;

fn frames() -> Vec<Frame> {
    let mut f = HeaderFields::default();
    f.bth.opcode = opcode::RC_SEND_ONLY;
    f.bth.dest_qpn = 0x42;
    let mut out = vec![frame(&f, b"ping", false), frame(&f, b"pong!", true)];
    f.bth.opcode = opcode::RC_ACKNOWLEDGE;
    f.aeth.syndrome = 0x1f;
    out.push(frame(&f, &[], false));
    out
}

fn check_roundtrip(linktype: u32, raw: Vec<Vec<u8>>, expect: &[Frame]) {
    let file = pcap::write(linktype, &raw);
    let cap = pcap::read(&file).unwrap();
    assert_eq!(cap.linktype, linktype);
    assert_eq!(cap.records.len(), raw.len());
    let found: Vec<_> = cap
        .records
        .iter()
        .filter_map(|r| roce_datagram(cap.linktype, &r.data))
        .collect();
    assert_eq!(found.len(), expect.len(), "linktype {linktype}");
    for (d, fr) in found.iter().zip(expect) {
        assert_eq!(d.ip, fr.ip);
        assert_eq!(d.udp, fr.udp);
        assert_eq!(d.payload, fr.pkt);
        assert!(!d.ip_options);
    }
}

#[test]
fn ethernet_sll_sll2_raw_and_vlan() {
    let fr = frames();
    let eth: Vec<Vec<u8>> = fr.iter().map(Frame::ethernet).collect();
    check_roundtrip(LINKTYPE_ETHERNET, eth.clone(), &fr);
    check_roundtrip(
        LINKTYPE_LINUX_SLL,
        eth.iter().map(|e| to_sll(e)).collect(),
        &fr,
    );
    check_roundtrip(
        LINKTYPE_LINUX_SLL2,
        eth.iter().map(|e| to_sll2(e)).collect(),
        &fr,
    );
    check_roundtrip(
        LINKTYPE_RAW,
        eth.iter().map(|e| e[14..].to_vec()).collect(),
        &fr,
    );
    check_roundtrip(
        LINKTYPE_ETHERNET,
        eth.iter().map(|e| add_vlan(e, 7)).collect(),
        &fr,
    );
}

#[test]
fn skips_non_roce_and_trims_padding() {
    let fr = frames();
    let mut eth = fr[0].ethernet();
    // Ethernet minimum-size padding after the IP datagram is not payload.
    eth.extend_from_slice(&[0xee; 6]);
    let mut other = fr[1].ethernet();
    let dport = 14 + 40 + 2;
    other[dport..dport + 2].copy_from_slice(&53u16.to_be_bytes());
    let arp = vec![0xff; 42];
    let file = pcap::write(LINKTYPE_ETHERNET, &[eth, other, arp]);
    let cap = pcap::read(&file).unwrap();
    let found: Vec<_> = cap
        .records
        .iter()
        .filter_map(|r| roce_datagram(1, &r.data))
        .collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].payload, fr[0].pkt);
}

#[test]
fn big_endian_and_nanosecond_headers() {
    let fr = frames();
    let le = pcap::write(LINKTYPE_ETHERNET, &[fr[0].ethernet()]);
    // Byte-swap the global and record headers to make a big-endian file.
    let mut be = le.clone();
    for (off, width) in [(0, 4), (4, 2), (6, 2), (8, 4), (12, 4), (16, 4), (20, 4)] {
        be[off..off + width].reverse();
    }
    for off in [24, 28, 32, 36] {
        be[off..off + 4].reverse();
    }
    let cap = pcap::read(&be).unwrap();
    assert_eq!(cap.records[0].data, fr[0].ethernet());
    let mut ns = le;
    ns[0..4].copy_from_slice(&0xa1b2_3c4du32.to_le_bytes());
    assert_eq!(pcap::read(&ns).unwrap().records.len(), 1);
}

#[test]
fn rejects_malformed_files() {
    assert!(pcap::read(&[0; 10]).is_err());
    assert!(pcap::read(&[0; 24]).is_err());
    let mut f = pcap::write(LINKTYPE_ETHERNET, &[vec![1, 2, 3, 4]]);
    f.truncate(f.len() - 1);
    assert!(pcap::read(&f).is_err());
    let ng = [
        0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert!(pcap::read(&ng).unwrap_err().contains("pcapng"));
}

#[test]
fn truncated_capture_is_not_a_datagram() {
    let eth = frames()[0].ethernet();
    assert!(roce_datagram(LINKTYPE_ETHERNET, &eth[..eth.len() - 1]).is_none());
    assert!(roce_datagram(LINKTYPE_ETHERNET, &eth[..20]).is_none());
}
