// SPDX-License-Identifier: GPL-2.0

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/ip6_fib.h>

__rust_helper void rust_helper_skb_reserve(struct sk_buff *skb, int len)
{
	skb_reserve(skb, len);
}

__rust_helper unsigned int rust_helper_skb_headroom(const struct sk_buff *skb)
{
	return skb_headroom(skb);
}

__rust_helper int rust_helper_skb_tailroom(const struct sk_buff *skb)
{
	return skb_tailroom(skb);
}

__rust_helper unsigned int rust_helper_skb_headlen(const struct sk_buff *skb)
{
	return skb_headlen(skb);
}

__rust_helper void rust_helper_skb_reset_network_header(struct sk_buff *skb)
{
	skb_reset_network_header(skb);
}

__rust_helper void rust_helper_skb_reset_transport_header(struct sk_buff *skb)
{
	skb_reset_transport_header(skb);
}

__rust_helper unsigned char *rust_helper_skb_network_header(const struct sk_buff *skb)
{
	return skb_network_header(skb);
}

__rust_helper int rust_helper_skb_linearize(struct sk_buff *skb)
{
	return skb_linearize(skb);
}

__rust_helper void rust_helper_kfree_skb(struct sk_buff *skb)
{
	kfree_skb(skb);
}

__rust_helper void rust_helper_skb_dst_set(struct sk_buff *skb, struct dst_entry *dst)
{
	skb_dst_set(skb, dst);
}

__rust_helper struct skb_shared_info *rust_helper_skb_shinfo(struct sk_buff *skb)
{
	return skb_shinfo(skb);
}

__rust_helper unsigned int rust_helper_netdev_ll_reserved_space(const struct net_device *dev)
{
	return LL_RESERVED_SPACE(dev);
}

/* skb->protocol lives in an anonymous struct group that bindgen cannot name stably. */
__rust_helper void rust_helper_skb_set_protocol(struct sk_buff *skb, __be16 protocol)
{
	skb->protocol = protocol;
}

__rust_helper void rust_helper_dst_hold(struct dst_entry *dst)
{
	dst_hold(dst);
}

__rust_helper struct dst_entry *rust_helper_dst_check(struct dst_entry *dst, u32 cookie)
{
	return dst_check(dst, cookie);
}

__rust_helper u32 rust_helper_rt6_get_cookie(const struct rt6_info *rt)
{
	return rt6_get_cookie(rt);
}
