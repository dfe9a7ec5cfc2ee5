// SPDX-License-Identifier: GPL-2.0

#include <linux/sched.h>
#include <linux/sched/stat.h>

__rust_helper bool rust_helper_single_task_running(void)
{
	return single_task_running();
}

__rust_helper bool rust_helper_need_resched(void)
{
	return need_resched();
}

__rust_helper void rust_helper_cond_resched(void)
{
	cond_resched();
}
