#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Holds a device open with live objects (PD, MR, CQ, an RC QP), as an
application would, until the device is taken from it.

    hold.py DEV READY_FILE

Creates READY_FILE once the objects exist, then reads the context's async
events for up to 120 s. Prints each event, then whether a verb (alloc_pd) still
works. Exits 0 when IBV_EVENT_DEVICE_FATAL came and the verb failed after it.
"""
import os
import signal
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr


def main():
    dev, ready = sys.argv[1], sys.argv[2]
    ctx = Context(name=dev)
    pd = PD(ctx)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    cq = CQ(ctx, 16)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    objs = (mr, qp)
    open(ready, "w").close()
    signal.alarm(120)
    fatal = False
    while not fatal:
        ev = ctx.get_async_event()
        fatal = ev.event_type == e.IBV_EVENT_DEVICE_FATAL
        print("event", "IBV_EVENT_DEVICE_FATAL" if fatal else ev.event_type, flush=True)
        ev.ack()
    signal.alarm(0)
    try:
        PD(ctx)
        print("alloc_pd still works after the event", flush=True)
        code = 1
    except Exception as ex:  # pyverbs raises PyverbsRDMAError
        print("verbs fail:", str(ex).splitlines()[0], flush=True)
        code = 0
    del objs
    # The objects are gone in the kernel; skip the destructors' verbs.
    os._exit(code)


if __name__ == "__main__":
    main()
