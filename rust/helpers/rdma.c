// SPDX-License-Identifier: GPL-2.0

#include <rdma/ib_verbs.h>

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
