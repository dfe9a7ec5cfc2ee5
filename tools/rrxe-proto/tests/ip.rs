// SPDX-License-Identifier: GPL-2.0

//! The IP/UDP headers rrxe builds around its packets, checked against rxe's own
//! frames in the capture corpus, and the UDP source port formulas against values
//! computed with the kernel's C definitions.

mod common;

use common::pcap;
use rrxe_proto::ip;
use std::path::PathBuf;

#[test]
fn source_ports_match_the_kernel_formulas() {
    // rxe_qp.c: RXE_ROCE_V2_SPORT + (hash_32(qpn, 14) & 0x3fff).
    assert_eq!(ip::qp_sport(1), 0xd872);
    assert_eq!(ip::qp_sport(17), 0xdf94);
    assert_eq!(ip::qp_sport(0x12_3456), 0xc168);
    // rdma_get_udp_sport(flow_label, lqpn, rqpn).
    assert_eq!(ip::flow_sport(0, 17, 18), 0xc132);
    assert_eq!(ip::flow_sport(0x12345, 1, 2), 0xe341);
    assert_eq!(ip::flow_sport(0, 0x12_3456, 0x65_4321), 0xf787);
    for q in 0..100_000 {
        assert!(ip::qp_sport(q) >= ip::SPORT_MIN);
    }
}

#[test]
fn headers_match_rxe_frames() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testing/rrxe-corpus");
    let (mut v4, mut v6) = (0, 0);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "pcap") {
            continue;
        }
        let cap = pcap::read(&std::fs::read(&p).unwrap()).unwrap();
        for r in &cap.records {
            let Some(d) = pcap::roce_datagram(cap.linktype, &r.data) else {
                continue;
            };
            if d.ip_options {
                continue;
            }
            let udp_len = (d.payload.len() + 8) as u16;
            let mut udp = [0u8; 8];
            ip::build_udp(
                &mut udp,
                u16::from_be_bytes([d.udp[0], d.udp[1]]),
                4791,
                udp_len,
            );
            assert_eq!(udp, d.udp, "{}: UDP header", p.display());
            if d.ip[0] >> 4 == 4 {
                let h = &d.ip;
                let mut b = [0u8; 20];
                ip::build_ipv4(
                    &mut b,
                    h[1],
                    h[8],
                    h[12..16].try_into().unwrap(),
                    h[16..20].try_into().unwrap(),
                    udp_len + 20,
                );
                // The stack fills in the ID and the checksum.
                b[4..6].copy_from_slice(&h[4..6]);
                b[10..12].copy_from_slice(&h[10..12]);
                assert_eq!(&b[..], &h[..], "{}: IPv4 header", p.display());
                v4 += 1;
            } else {
                let h = &d.ip;
                let mut b = [0u8; 40];
                let tclass = ((u32::from_be_bytes(h[0..4].try_into().unwrap()) >> 20) & 0xff) as u8;
                ip::build_ipv6(
                    &mut b,
                    tclass,
                    h[7],
                    h[8..24].try_into().unwrap(),
                    h[24..40].try_into().unwrap(),
                    udp_len,
                );
                assert_eq!(&b[..], &h[..], "{}: IPv6 header", p.display());
                v6 += 1;
            }
        }
    }
    assert!(
        v4 > 500 && v6 > 500,
        "corpus too small: {v4} IPv4, {v6} IPv6"
    );
}

#[test]
fn grh_layout_is_rxes() {
    let mut v4 = [0u8; 20];
    ip::build_ipv4(&mut v4, 0, 64, [10, 0, 0, 1], [10, 0, 0, 2], 100);
    let g = ip::grh_from_ip(&v4).unwrap();
    assert_eq!(&g[..20], &[0u8; 20]);
    assert_eq!(&g[20..], &v4);
    let mut v6 = [0u8; 40];
    ip::build_ipv6(&mut v6, 0, 1, [1; 16], [2; 16], 80);
    assert_eq!(ip::grh_from_ip(&v6).unwrap(), v6);
    assert!(ip::grh_from_ip(&[0x46; 24]).is_none());
    assert!(ip::grh_from_ip(&[0x60; 20]).is_none());
    assert!(ip::gid_is_v4_mapped(&[
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1
    ]));
    assert!(!ip::gid_is_v4_mapped(&[0xfd; 16]));
}
