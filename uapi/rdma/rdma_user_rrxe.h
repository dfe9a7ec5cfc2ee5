/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rrxe's extensions to the rxe user ABI (rdma_user_rxe.h): the doorbell.
 *
 * rrxe speaks rdma_rxe's ABI unchanged. A provider that knows this header may
 * also skip the POST_SEND system call after a post, and the REQ_NOTIFY_CQ one
 * when it arms a CQ, whenever the kernel has said it will look anyway.
 *
 * Negotiation. The provider gives GET_CONTEXT (alloc_ucontext) a driver
 * response of sizeof(struct rrxe_alloc_ucontext_resp) bytes, zeroed, and no
 * driver request bytes. rrxe fills it; rdma_rxe and older rrxe leave it zero.
 * The provider uses a capability only if abi_version is RRXE_DB_ABI_VERSION
 * and the cap bit is set; everything else means "make the system calls".
 *
 * Where. Both words live in the header of a ring the provider already maps
 * (struct rxe_queue_buf), at the offsets the response gives, in its padding
 * after the consumer index: sq_flags in each send queue's ring, cq_arm in
 * each completion queue's ring. rdma_rxe never writes there, so they read 0.
 *
 * Send queue (RRXE_UCTX_CAP_SQ_WATCH). sq_flags is written by the kernel only.
 * RRXE_SQ_WATCHED means: the kernel will read this ring's producer index again
 * without a system call. After each post the provider does
 *
 *	write the WQEs;
 *	store-release producer_index;
 *	full barrier (atomic_thread_fence(memory_order_seq_cst));
 *	f = load(sq_flags);
 *	if (!(f & RRXE_SQ_WATCHED)) POST_SEND;
 *
 * and the kernel, whenever it stops watching, does
 *
 *	WRITE_ONCE(sq_flags, 0);
 *	smp_mb();
 *	load-acquire producer_index, and fetch what it finds.
 *
 * The two full barriers pair: either the provider sees the flag clear and
 * makes the system call, or the kernel's re-read sees the new index. So no
 * posted WQE waits unseen. The kernel sets the flag only while something is
 * bound to run that re-read (an acknowledgement, a completion, a timer, its
 * work item or a poller). It trusts nothing in the ring: the producer index is
 * masked and bounded, and each WQE is copied once and checked from the copy.
 * A provider that writes sq_flags only stalls its own queue until it rings.
 *
 * Completion queue (RRXE_UCTX_CAP_CQ_ARM). cq_arm is written by the provider
 * to arm, and cleared by the kernel when it delivers the event. ibv_req_notify_cq
 * becomes
 *
 *	atomic_fetch_or(cq_arm, RRXE_CQ_ARM_SOLICITED | (solicited_only ? 0 : RRXE_CQ_ARM_NEXT));
 *	full barrier;
 *
 * and the kernel, after it publishes a completion (store-release of
 * producer_index), does smp_mb(), reads cq_arm, and if the completion matches
 * (NEXT, or SOLICITED with a solicited or error completion) it clears the word
 * with a compare-and-exchange and, on success, raises the event. A provider
 * that polls after arming either sees the completion or gets its event.
 */
#ifndef RDMA_USER_RRXE_H
#define RDMA_USER_RRXE_H

#include <linux/types.h>

#define RRXE_DB_ABI_VERSION 1

enum rrxe_uctx_caps {
	/* sq_flags is maintained in every send queue ring of the context */
	RRXE_UCTX_CAP_SQ_WATCH = 1 << 0,
	/* the kernel reads cq_arm in every completion queue ring of the context */
	RRXE_UCTX_CAP_CQ_ARM = 1 << 1,
};

/* The driver part of the GET_CONTEXT response. */
struct rrxe_alloc_ucontext_resp {
	__u32 abi_version;     /* RRXE_DB_ABI_VERSION; 0: nothing offered */
	__u32 caps;            /* enum rrxe_uctx_caps */
	__u32 sq_flags_offset; /* bytes from the start of a send queue's ring */
	__u32 cq_arm_offset;   /* bytes from the start of a completion queue's ring */
	__aligned_u64 reserved[2];
};

/* sq_flags: the kernel's promise to read the producer index again. */
#define RRXE_SQ_WATCHED (1U << 0)
/* sq_flags, informational: a poller, not work in flight, watches the ring. */
#define RRXE_SQ_POLLED (1U << 1)

/* cq_arm: the provider's request for a completion event. */
#define RRXE_CQ_ARM_SOLICITED (1U << 0)
#define RRXE_CQ_ARM_NEXT (1U << 1)

#endif /* RDMA_USER_RRXE_H */
