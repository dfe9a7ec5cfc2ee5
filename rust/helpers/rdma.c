// SPDX-License-Identifier: GPL-2.0

#include <linux/scatterlist.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <net/netlink.h>

__rust_helper enum ib_port_state rust_helper_ib_get_curr_port_state(struct net_device *net_dev)
{
	return ib_get_curr_port_state(net_dev);
}

__rust_helper void rust_helper_ib_mark_name_assigned_by_user(struct ib_device *ibdev)
{
	ib_mark_name_assigned_by_user(ibdev);
}

__rust_helper bool rust_helper_ib_is_udata_cleared(struct ib_udata *udata, size_t offset, size_t len)
{
	return ib_is_udata_cleared(udata, offset, len);
}

__rust_helper unsigned int rust_helper_num_possible_cpus(void)
{
	return num_possible_cpus();
}

__rust_helper struct ib_ucontext *rust_helper_rdma_udata_ucontext(struct ib_udata *udata)
{
	/* Driver udata only ever comes inside a uverbs_attr_bundle. */
	return container_of(udata, struct uverbs_attr_bundle, driver_udata)->context;
}

__rust_helper struct ib_umem *rust_helper_ib_umem_get_va(struct ib_device *device,
							 unsigned long addr, size_t size,
							 int access)
{
	return ib_umem_get_va(device, addr, size, access);
}

__rust_helper enum rdma_network_type
rust_helper_rdma_gid_attr_network_type(const struct ib_gid_attr *attr)
{
	return rdma_gid_attr_network_type(attr);
}

__rust_helper void *rust_helper_xa_store_irq(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	return xa_store_irq(xa, index, entry, gfp);
}

__rust_helper void *rust_helper_xa_erase_irq(struct xarray *xa, unsigned long index)
{
	return xa_erase_irq(xa, index);
}

__rust_helper bool rust_helper_ib_device_try_get(struct ib_device *dev)
{
	return ib_device_try_get(dev);
}

/* The nest of a restrack entry's driver details (RDMA_NLDEV_ATTR_DRIVER). */
__rust_helper struct nlattr *rust_helper_nla_nest_start(struct sk_buff *skb, int attrtype)
{
	return nla_nest_start(skb, attrtype);
}

__rust_helper int rust_helper_nla_nest_end(struct sk_buff *skb, struct nlattr *start)
{
	return nla_nest_end(skb, start);
}

__rust_helper void rust_helper_nla_nest_cancel(struct sk_buff *skb, struct nlattr *start)
{
	nla_nest_cancel(skb, start);
}

__rust_helper struct page *rust_helper_sg_page_iter_page(struct sg_page_iter *piter)
{
	return sg_page_iter_page(piter);
}

#ifdef CONFIG_INFINIBAND_ON_DEMAND_PAGING
#include <linux/hmm.h>
#include <linux/mmu_notifier.h>
#include <rdma/ib_umem_odp.h>

__rust_helper bool rust_helper_mmu_notifier_range_blockable(const struct mmu_notifier_range *range)
{
	return mmu_notifier_range_blockable(range);
}

__rust_helper void rust_helper_mmu_interval_set_seq(struct mmu_interval_notifier *sub,
						    unsigned long cur_seq)
{
	mmu_interval_set_seq(sub, cur_seq);
}

__rust_helper unsigned long rust_helper_ib_umem_start(struct ib_umem_odp *umem_odp)
{
	return ib_umem_start(umem_odp);
}

__rust_helper unsigned long rust_helper_ib_umem_end(struct ib_umem_odp *umem_odp)
{
	return ib_umem_end(umem_odp);
}

__rust_helper struct page *rust_helper_hmm_pfn_to_page(unsigned long hmm_pfn)
{
	return hmm_pfn_to_page(hmm_pfn);
}

__rust_helper struct page *rust_helper_compound_head(struct page *page)
{
	return compound_head(page);
}
#endif
