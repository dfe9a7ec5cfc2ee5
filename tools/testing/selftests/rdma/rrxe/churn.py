#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Creates and destroys N CQs, QPs and MRs (each with its rings mapped by the rxe
provider) on DEVICE, in one process. Prints one line of counts.

Usage: churn.py DEVICE N
"""
import ctypes as C
import sys

from hostile_ring import QPT_RC, QpCap, QpInitAttr, ibv, vp

ibv.ibv_reg_mr.restype = vp
ibv.ibv_reg_mr.argtypes = [vp, vp, C.c_size_t, C.c_int]
ibv.ibv_dereg_mr.argtypes = [vp]


def main():
    dev, n = sys.argv[1], int(sys.argv[2])
    cnt = C.c_int()
    lst = ibv.ibv_get_device_list(C.byref(cnt))
    d = next(lst[i] for i in range(cnt.value)
             if ibv.ibv_get_device_name(lst[i]).decode() == dev)
    ctx = ibv.ibv_open_device(d)
    pd = ibv.ibv_alloc_pd(ctx)
    buf = C.create_string_buffer(8192)
    done = [0, 0, 0]
    for i in range(n):
        cq = ibv.ibv_create_cq(ctx, 1 + i % 64, None, None, 0)
        if not cq:
            break
        done[0] += 1
        a = QpInitAttr(send_cq=cq, recv_cq=cq, cap=QpCap(1 + i % 32, 1 + i % 16, 1 + i % 4,
                                                         1 + i % 3, i % 128),
                       qp_type=QPT_RC)
        qp = ibv.ibv_create_qp(pd, C.byref(a))
        if qp:
            done[1] += 1
            ibv.ibv_destroy_qp(qp)
        mr = ibv.ibv_reg_mr(pd, C.addressof(buf), 1 + i % 8192, 1 | 2 | 4)
        if mr:
            done[2] += 1
            ibv.ibv_dereg_mr(mr)
        ibv.ibv_destroy_cq(cq)
    ibv.ibv_dealloc_pd(pd)
    ibv.ibv_close_device(ctx)
    print(f"cq {done[0]} qp {done[1]} mr {done[2]}")
    sys.exit(0 if done == [n, n, n] else 1)


main()
