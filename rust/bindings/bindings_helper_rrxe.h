/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Headers and constants for the kernel crate's RDMA (kernel::rdma) and
 * network device (kernel::net::netdev) abstractions used by rrxe.
 */
#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/hmm.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/vmalloc.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

/* Macros bindgen cannot evaluate on its own. */
const u32 RUST_CONST_HELPER_IFF_UP = IFF_UP;
const gfp_t RUST_CONST_HELPER_XA_FLAGS_LOCK_IRQ = XA_FLAGS_LOCK_IRQ;
