/*
 * QEMU mrpsim switch: MRP (IEC 62439-2) engine
 *
 * Copyright (c) 2026 mrpsim developers
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 *
 * Per ring instance: a test generator that sends MRP_Test frames built
 * exactly like the Linux bridge's (net/bridge/br_mrp.c) on both ring ports
 * from a non-drifting virtual clock deadline, a test monitor that detects
 * loss and regain of ring continuity per port, and the forwarding rules of
 * a ring manager (MRM), client (MRC) and auto-manager (MRA); and per
 * instance an interconnection (IEC 62439-2 Ed. 2, RC mode): a manager's
 * (MIM) MRP_InTest generator and monitor, and the InTest forwarding rules
 * of an interconnection manager, client (MIC) and plain ring node.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "migration/vmstate.h"
#include "mrpsim.h"
#include "trace.h"

#define MRP_VERSION             1
#define MRP_TLV_END             0x00
#define MRP_TLV_COMMON          0x01
#define MRP_TLV_RING_TEST       0x02
#define MRP_TLV_RING_TOPO       0x03
#define MRP_TLV_IN_TEST         0x06
#define MRP_TLV_OPTION          0x7f
#define MRP_SUB_TLV_AUTO_MGR    0x03
#define MRP_TEST_TLV_LEN        18
#define MRP_COMMON_TLV_LEN      18
#define MRP_IN_TEST_TLV_LEN     18  /* ID, SA, role, state, transitions, ts */
#define MRP_IN_PORT_ROLE        2   /* the I-port's role in an InTest */
#define MRP_TOPO_TLV_LEN        10  /* prio 2, SA 6, interval 2 */
#define MRP_OPTION_TLV_LEN      10  /* OUI 3, sub-option 1 + 2, sub-TLV 2 + 2 */
#define MRP_MIN_FRAME           60
#define MRP_TEST_FRAME_MAX      80

static const uint8_t mrp_test_dmac[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x01 };
static const uint8_t mrp_control_dmac[6] = {
    0x01, 0x15, 0x4e, 0x00, 0x00, 0x02
};
static const uint8_t mrp_in_test_dmac[6] = {
    0x01, 0x15, 0x4e, 0x00, 0x00, 0x03
};

static const char *const mrpsim_role_names[] = {
    "disabled", "MRC", "MRM", "MRA"
};

static const char *const mrpsim_in_role_names[] = {
    "disabled", "MIC", "MIM"
};

static bool mrpsim_ring_monitor(MrpsimRing *r)
{
    return r->role == MRPSIM_ROLE_MRA &&
           (r->test_ctrl & MRPSIM_TEST_CTRL_MONITOR);
}

/* Forwards MRP_Test frames like a client: MRC, or MRA in monitor mode. */
static bool mrpsim_ring_client(MrpsimRing *r)
{
    return r->role == MRPSIM_ROLE_MRC || mrpsim_ring_monitor(r);
}

static bool mrpsim_ring_generates(MrpsimRing *r)
{
    return r->role == MRPSIM_ROLE_MRM ||
           (r->role == MRPSIM_ROLE_MRA && !mrpsim_ring_monitor(r));
}

static int64_t mrpsim_interval_ns(MrpsimRing *r)
{
    return (int64_t)r->interval * SCALE_US;
}

/* Data of an MRP event of @r: ring port @which, the test's generation. */
static uint32_t mrpsim_ev_data(MrpsimRing *r, unsigned int which)
{
    return which | r->gen << MRPSIM_EV_MRP_GEN_SHIFT;
}

static uint32_t mrpsim_lost_bit(unsigned int which)
{
    return which ? MRPSIM_MRP_STATUS_S_LOST : MRPSIM_MRP_STATUS_P_LOST;
}

/* ---- Test frames ---- */

/*
 * An MRP frame from @p to @dmac up to its first TLV's header (@type,
 * @len), zeroed to MRP_TEST_FRAME_MAX; returns the TLV's value offset.
 */
static size_t mrpsim_frame_head(MrpsimPort *p, const uint8_t *dmac,
                                uint8_t type, uint8_t len, uint8_t *f)
{
    memset(f, 0, MRP_TEST_FRAME_MAX);
    memcpy(f, dmac, 6);
    memcpy(f + 6, p->mac, 6);
    stw_be_p(f + 12, MRPSIM_ETH_P_MRP);
    stw_be_p(f + 14, MRP_VERSION);
    f[16] = type;
    f[17] = len;
    return 18;
}

/* The Common TLV (@seq, the domain) at @o; returns the offset after it. */
static size_t mrpsim_frame_common(MrpsimRing *r, uint16_t seq, uint8_t *f,
                                  size_t o)
{
    f[o] = MRP_TLV_COMMON;
    f[o + 1] = MRP_COMMON_TLV_LEN;
    o += 2;
    stw_be_p(f + o, seq);
    memcpy(f + o + 2, r->domain, 16);
    return o + MRP_COMMON_TLV_LEN;
}

/* The End TLV at @o; returns the frame's length, padded. */
static size_t mrpsim_frame_end(uint8_t *f, size_t o)
{
    f[o] = MRP_TLV_END;
    f[o + 1] = 0;
    return MAX(o + 2, MRP_MIN_FRAME);
}

static size_t mrpsim_build_test(MrpsimRing *r, MrpsimPort *p,
                                unsigned int which, uint16_t seq,
                                int64_t now, uint8_t *f)
{
    size_t o = mrpsim_frame_head(p, mrp_test_dmac, MRP_TLV_RING_TEST,
                                 MRP_TEST_TLV_LEN, f);

    stw_be_p(f + o, r->prio);
    memcpy(f + o + 2, r->sa, 6);
    stw_be_p(f + o + 8, which);     /* port role: 0 primary, 1 secondary */
    stw_be_p(f + o + 10, r->ring_state);
    stw_be_p(f + o + 12, r->transitions);
    stl_be_p(f + o + 14, now / SCALE_MS);
    o = mrpsim_frame_common(r, seq, f, o + MRP_TEST_TLV_LEN);

    if (r->role == MRPSIM_ROLE_MRA) {
        /* Option TLV: OUI 0, sub-option type 0, AUTO_MGR sub-TLV, pad */
        f[o] = MRP_TLV_OPTION;
        f[o + 1] = MRP_OPTION_TLV_LEN;
        o += 2;
        f[o + 6] = MRP_SUB_TLV_AUTO_MGR;
        o += MRP_OPTION_TLV_LEN;
    }
    return mrpsim_frame_end(f, o);
}

static void mrpsim_send_tests(MrpsimRing *r, int64_t now)
{
    MrpsimState *s = r->s;
    uint8_t f[MRP_TEST_FRAME_MAX];
    unsigned int which;
    size_t len;

    for (which = 0; which < 2; which++) {
        MrpsimPort *p;
        uint16_t seq = r->seq_id + 1;

        if (r->port[which] == MRPSIM_NONE) {
            continue;
        }
        p = &s->port[r->port[which]];
        if (!mrpsim_port_up(p) || !p->link) {
            trace_mrpsim_mrp_test_skip(mrpsim_id(s), r->idx, p->idx);
            continue;
        }
        len = mrpsim_build_test(r, p, which, seq, now, f);
        r->seq_id = seq;
        trace_mrpsim_mrp_test_tx(mrpsim_id(s), r->idx, p->idx, seq);
        if (mrpsim_port_xmit(p, f, len)) {
            p->cnt[MRPSIM_CNT_MRP_TEST_TX]++;
        }
    }
}

/* ---- Test monitor ---- */

static void mrpsim_assist_open(MrpsimRing *r);

/*
 * One interval of the monitor.  @late: the tick ran more than half an
 * interval after its deadline.  The host held the device back, and with
 * it every switch of the ring: no frame moved meanwhile, so the interval
 * counts as neither a miss nor a loss (``MRP_TICK_LATE`` counts it).
 */
static void mrpsim_monitor_tick(MrpsimRing *r, bool late)
{
    MrpsimState *s = r->s;
    unsigned int which;

    for (which = 0; which < 2; which++) {
        MrpsimPort *p;

        if (r->port[which] == MRPSIM_NONE) {
            continue;
        }
        p = &s->port[r->port[which]];
        if (late) {
            p->cnt[MRPSIM_CNT_MRP_TICK_LATE]++;
        } else if (r->miss[which] >= r->max_miss &&
            !(r->status & mrpsim_lost_bit(which))) {
            r->status |= mrpsim_lost_bit(which);
            r->report_due &= ~BIT(which);
            p->cnt[MRPSIM_CNT_MRP_LOSS]++;
            trace_mrpsim_mrp_loss(mrpsim_id(s), r->idx, p->idx,
                                  r->miss[which], mrpsim_clock_ns());
            mrpsim_event(s, MRPSIM_EV_MRP_LOSS, p->idx, r->idx,
                         mrpsim_ev_data(r, which));
            mrpsim_assist_open(r);
        } else if (r->miss[which] < UINT32_MAX) {
            if (r->miss[which]) {
                p->cnt[MRPSIM_CNT_MRP_TEST_MISSED]++;
            }
            r->miss[which]++;
        }
    }
}

/* Ring port @which has seen test frames again: reset its miss counter. */
static void mrpsim_monitor_seen(MrpsimRing *r, unsigned int which)
{
    MrpsimState *s = r->s;
    MrpsimPort *p;

    if (r->port[which] == MRPSIM_NONE) {
        return;
    }
    p = &s->port[r->port[which]];
    r->miss[which] = 0;
    if (r->status & mrpsim_lost_bit(which)) {
        r->report_due &= ~BIT(which);
        r->status &= ~mrpsim_lost_bit(which);
        p->cnt[MRPSIM_CNT_MRP_REGAIN]++;
        trace_mrpsim_mrp_regain(mrpsim_id(s), r->idx, p->idx,
                                mrpsim_clock_ns());
        mrpsim_event(s, MRPSIM_EV_MRP_REGAIN, p->idx, r->idx,
                     mrpsim_ev_data(r, which));
    }
}

/*
 * A test frame that counts for the monitor arrived on ring port @which.
 * A manager counts its own frames per port: each port receives those the
 * other one sent.  An MRA that monitors watches the manager, not the
 * ring: a better manager's frame on either port is proof of it for both,
 * as in the bridge's software test, so that a cable cut next to a
 * monitoring MRA (the manager's frames still arrive on its other port)
 * is no reason to take over.
 */
static void mrpsim_monitor_rx(MrpsimRing *r, unsigned int which)
{
    if (!(r->status & MRPSIM_MRP_STATUS_RUNNING)) {
        return;
    }
    mrpsim_monitor_seen(r, which);
    if (mrpsim_ring_monitor(r)) {
        mrpsim_monitor_seen(r, !which);
    }
}

static void mrpsim_test_arm(MrpsimRing *r)
{
    int64_t when = r->deadline;

    if (r->end && r->end < when) {
        when = r->end;
    }
    timer_mod(r->timer, when);
}

/*
 * While RING_STATE is open, a manager's first own test frame on each ring
 * port that was not lost goes to the CPU as well (``report_due``), as the
 * bridge's software manager reports every own test frame while the ring
 * is open.  The engine reports a regain only after a loss of its own; a
 * manager's software can open the ring without one (on an
 * MRP_LinkChange from a client, a link down, or a test that ended while
 * the software was held up and started afresh), and without that frame
 * it would never hear that the ring closed again.
 */
static void mrpsim_report_arm(MrpsimRing *r)
{
    r->report_due = r->ring_state == MRPSIM_RSTATE_OPEN &&
                    r->role != MRPSIM_ROLE_MRC &&
                    !mrpsim_ring_monitor(r) ? 3 : 0;
}

static void mrpsim_test_stop(MrpsimRing *r)
{
    timer_del(r->timer);
    r->test_ctrl &= ~MRPSIM_TEST_CTRL_RUN;
    r->status &= ~(MRPSIM_MRP_STATUS_RUNNING | MRPSIM_MRP_STATUS_P_LOST |
                   MRPSIM_MRP_STATUS_S_LOST);
    r->miss[0] = r->miss[1] = 0;
    r->report_due = 0;
    r->end = 0;
    trace_mrpsim_mrp_test_stop(mrpsim_id(r->s), r->idx);
}

/*
 * The test checks the ring afresh: a new generation, whose events are
 * told from the last one's, with no port lost and no miss counted.
 */
static void mrpsim_test_afresh(MrpsimRing *r)
{
    r->gen = (r->gen + 1) & 0xff;
    r->miss[0] = r->miss[1] = 0;
    r->status &= ~(MRPSIM_MRP_STATUS_P_LOST | MRPSIM_MRP_STATUS_S_LOST);
}

/*
 * The manager's software closed the ring (RING_STATE open -> closed): a
 * generating test checks it afresh.  A loss left from while the ring was
 * open would raise no event when the closed ring breaks again, and
 * software that clears its own record of losses on closing would never
 * hear of that break; events already raised carry the old generation.
 */
static void mrpsim_test_close(MrpsimRing *r)
{
    if (!(r->status & MRPSIM_MRP_STATUS_RUNNING) ||
        !mrpsim_ring_generates(r)) {
        return;
    }
    mrpsim_test_afresh(r);
    trace_mrpsim_mrp_test_close(mrpsim_id(r->s), r->idx, r->gen);
}

/* ---- Recovery assist ---- */

/* An MRP_TopologyChange frame, as mrpd (tools/mrp) builds it. */
static size_t mrpsim_build_topo(MrpsimRing *r, MrpsimPort *p, uint16_t seq,
                                uint16_t interval_ms, uint8_t *f)
{
    size_t o = mrpsim_frame_head(p, mrp_control_dmac, MRP_TLV_RING_TOPO,
                                 MRP_TOPO_TLV_LEN, f);

    stw_be_p(f + o, r->prio);
    memcpy(f + o + 2, r->sa, 6);
    stw_be_p(f + o + 8, interval_ms);
    o = mrpsim_frame_common(r, seq, f, o + MRP_TOPO_TLV_LEN);
    return mrpsim_frame_end(f, o);
}

/* One TopologyChange on each ring port that is up: flush in @left T. */
static void mrpsim_send_topo(MrpsimRing *r, uint32_t left)
{
    MrpsimState *s = r->s;
    uint16_t ms = (uint64_t)left * r->topo_interval / 1000;
    uint8_t f[MRP_TEST_FRAME_MAX];
    unsigned int which;
    size_t len;

    for (which = 0; which < 2; which++) {
        MrpsimPort *p;

        if (r->port[which] == MRPSIM_NONE) {
            continue;
        }
        p = &s->port[r->port[which]];
        if (!mrpsim_port_up(p) || !p->link) {
            continue;
        }
        r->seq_id++;
        len = mrpsim_build_topo(r, p, r->seq_id, ms, f);
        trace_mrpsim_mrp_topo_tx(mrpsim_id(s), r->idx, p->idx, r->seq_id,
                                 ms);
        if (mrpsim_port_xmit(p, f, len)) {
            p->cnt[MRPSIM_CNT_MRP_TOPO_TX]++;
        }
    }
}

/* The rest of a manager's series: TOPO_INTERVAL apart, down to 0. */
static void mrpsim_topo_timer(void *opaque)
{
    MrpsimRing *r = opaque;

    if (!r->topo_left) {
        return;
    }
    r->topo_left--;
    mrpsim_send_topo(r, r->topo_left);
    if (r->topo_left) {
        timer_mod(r->topo_timer, mrpsim_clock_ns() +
                  (int64_t)r->topo_interval * SCALE_US);
    }
}

static void mrpsim_topo_stop(MrpsimRing *r)
{
    timer_del(r->topo_timer);
    r->topo_left = 0;
}

/* Flush the learned entries of both ring ports; returns how many. */
static unsigned int mrpsim_assist_flush(MrpsimRing *r)
{
    unsigned int which, n = 0;

    for (which = 0; which < 2; which++) {
        if (r->port[which] != MRPSIM_NONE) {
            n += mrpsim_l2_flush_learned(&r->s->port[r->port[which]]);
        }
    }
    trace_mrpsim_mrp_assist_flush(mrpsim_id(r->s), r->idx, n,
                                  mrpsim_clock_ns());
    return n;
}

/*
 * A manager with ASSIST.OPEN lost a port of its closed ring: it opens
 * the ring itself, as its software would a few milliseconds later.  The
 * ring port that blocks forwards, RING_STATE reads open (a transition),
 * the ring ports' learned entries go, and the TopologyChange series
 * starts, TOPO_REPEAT + 1 frames TOPO_INTERVAL apart announcing a flush
 * in TOPO_REPEAT, ..., 1, 0 intervals.  Closing the ring again stays
 * with software.
 *
 * The port that blocks is the secondary, or the primary once the
 * software swapped their roles (a manager does when its primary's link
 * goes down) without writing MRP_PORTS: Linux's bridge has no request
 * that tells a driver of a swap, so mrpd keeps it to itself.
 */
static void mrpsim_assist_open(MrpsimRing *r)
{
    MrpsimState *s = r->s;
    MrpsimPort *p;
    unsigned int w;

    if (!(r->assist & MRPSIM_ASSIST_OPEN) || !mrpsim_ring_generates(r) ||
        r->ring_state != MRPSIM_RSTATE_CLOSED) {
        return;
    }
    for (w = 0; w < 2; w++) {
        if (r->port[w] == MRPSIM_NONE) {
            continue;
        }
        p = &s->port[r->port[w]];
        if (mrpsim_port_up(p) && mrpsim_port_blocking(p)) {
            p->ctrl &= ~MRPSIM_PORT_CTRL_STATE_MASK;
            p->ctrl |= MRPSIM_PSTATE_FORWARDING <<
                       MRPSIM_PORT_CTRL_STATE_SHIFT;
            trace_mrpsim_port_ctrl(mrpsim_id(s), p->idx, true,
                                   MRPSIM_PSTATE_FORWARDING,
                                   mrpsim_clock_ns());
        }
    }
    r->ring_state = MRPSIM_RSTATE_OPEN;
    r->transitions++;
    mrpsim_report_arm(r);
    trace_mrpsim_mrp_assist_open(mrpsim_id(s), r->idx, mrpsim_clock_ns());
    mrpsim_assist_flush(r);
    mrpsim_topo_stop(r);
    if (r->topo_interval && r->topo_repeat) {
        r->topo_left = r->topo_repeat;
        timer_mod(r->topo_timer, mrpsim_clock_ns() +
                  (int64_t)r->topo_interval * SCALE_US);
    }
    mrpsim_send_topo(r, r->topo_left);
    mrpsim_event(s, MRPSIM_EV_MRP_ASSIST, MRPSIM_NONE, r->idx,
                 MRPSIM_EV_ASSIST_OPENED | MRPSIM_EV_ASSIST_FLUSHED |
                 r->gen << MRPSIM_EV_MRP_GEN_SHIFT);
}

/* A client's flush, TopologyChange's interval after the frame. */
static void mrpsim_flush_timer(void *opaque)
{
    MrpsimRing *r = opaque;

    mrpsim_assist_flush(r);
    mrpsim_event(r->s, MRPSIM_EV_MRP_ASSIST, MRPSIM_NONE, r->idx,
                 MRPSIM_EV_ASSIST_FLUSHED);
}

/*
 * A client with ASSIST.FLUSH got an MRP_TopologyChange: flush the ring
 * ports after its interval (at once for 0), as the frame asks; a later
 * frame of the series (each ring port gets every one) sets the time anew.
 */
static void mrpsim_assist_topo_rx(MrpsimRing *r, const uint8_t *tlv)
{
    uint16_t ms;

    if (!(r->assist & MRPSIM_ASSIST_FLUSH) || !mrpsim_ring_client(r) ||
        tlv[1] < MRP_TOPO_TLV_LEN) {
        return;
    }
    ms = lduw_be_p(tlv + 2 + 8);
    trace_mrpsim_mrp_assist_topo_rx(mrpsim_id(r->s), r->idx, ms);
    if (!ms) {
        timer_del(r->flush_timer);
        mrpsim_flush_timer(r);
        return;
    }
    timer_mod(r->flush_timer, mrpsim_clock_ns() + (int64_t)ms * SCALE_MS);
}

/* One interval tick: check the monitor, then send the test frames. */
static void mrpsim_test_tick(MrpsimRing *r, int64_t now, bool late)
{
    trace_mrpsim_mrp_tick(mrpsim_id(r->s), r->idx, now, r->deadline);
    if (r->role != MRPSIM_ROLE_MRC) {
        mrpsim_monitor_tick(r, late);
    }
    if (mrpsim_ring_generates(r)) {
        mrpsim_send_tests(r, now);
    }
}

static void mrpsim_test_timer(void *opaque)
{
    MrpsimRing *r = opaque;
    int64_t now = mrpsim_clock_ns();
    int64_t iv = mrpsim_interval_ns(r);

    if (!(r->status & MRPSIM_MRP_STATUS_RUNNING)) {
        return;
    }
    if (r->end && now >= r->end) {
        mrpsim_test_stop(r);
        trace_mrpsim_mrp_test_done(mrpsim_id(r->s), r->idx);
        mrpsim_event(r->s, MRPSIM_EV_TEST_DONE, MRPSIM_NONE, r->idx,
                     mrpsim_ev_data(r, 0));
        return;
    }
    if (now >= r->deadline) {
        bool late = now - r->deadline > iv / 2;

        mrpsim_test_tick(r, now, late);
        /*
         * On time, the deadline advances by whole intervals: no drift.
         * Late, the deadlines missed are skipped (no burst) and the next
         * one is a whole interval away: the frames just sent get the
         * interval they are checked against.
         */
        r->deadline = late ? now + iv : r->deadline + iv;
    }
    if (r->status & MRPSIM_MRP_STATUS_RUNNING) {
        mrpsim_test_arm(r);
    }
}

/*
 * RUN = 1: start the test, whose first tick happens at once; or restart
 * the period of a running one, keeping its loss state and miss counters,
 * with its next tick no later than one (new) interval from now.  A
 * restart ticks nothing at once: that tick would count a miss against
 * frames sent less than an interval before, and a manager's software
 * shortens and restores the interval on each MRP_LinkUp it gets, so a
 * series of them added up to a false loss.  Setting or clearing MONITOR
 * is no restart (see the TEST_CTRL write): the test is new.
 */
static void mrpsim_test_start(MrpsimRing *r)
{
    int64_t now = mrpsim_clock_ns();
    int64_t next = now + mrpsim_interval_ns(r);
    bool running = r->status & MRPSIM_MRP_STATUS_RUNNING;

    if (!running) {
        mrpsim_test_afresh(r);
        mrpsim_report_arm(r);
    }
    r->status |= MRPSIM_MRP_STATUS_RUNNING;
    r->test_ctrl |= MRPSIM_TEST_CTRL_RUN;
    r->end = r->period ? now + (int64_t)r->period * SCALE_US : 0;
    trace_mrpsim_mrp_test_start(mrpsim_id(r->s), r->idx,
                                mrpsim_role_names[r->role],
                                mrpsim_ring_monitor(r), !running,
                                r->interval, r->max_miss, r->period, now);
    if (running) {
        r->deadline = MIN(r->deadline, next);
    } else {
        r->deadline = next;
        mrpsim_test_tick(r, now, false);
    }
    if (r->status & MRPSIM_MRP_STATUS_RUNNING) {
        mrpsim_test_arm(r);
    }
}

/* ---- Interconnection ---- */

static bool mrpsim_in_running(MrpsimRing *r)
{
    return r->in_status & MRPSIM_IN_STATUS_RUNNING;
}

static int64_t mrpsim_in_interval_ns(MrpsimRing *r)
{
    return (int64_t)r->in_interval * SCALE_US;
}

/* The port of @r with role @which in an InTest: 0, 1 ring; 2 the I-port. */
static unsigned int mrpsim_in_port_of(MrpsimRing *r, unsigned int which)
{
    return which < MRP_IN_PORT_ROLE ? r->port[which] : r->in_port;
}

/* Data of an interconnection event of @r: port role @which, generation. */
static uint32_t mrpsim_in_ev_data(MrpsimRing *r, unsigned int which)
{
    return which | r->in_gen << MRPSIM_EV_MRP_GEN_SHIFT;
}

/* An MRP_InTest frame, built like the Linux bridge's. */
static size_t mrpsim_build_in_test(MrpsimRing *r, MrpsimPort *p,
                                   unsigned int which, uint16_t seq,
                                   int64_t now, uint8_t *f)
{
    size_t o = mrpsim_frame_head(p, mrp_in_test_dmac, MRP_TLV_IN_TEST,
                                 MRP_IN_TEST_TLV_LEN, f);

    stw_be_p(f + o, r->in_id);
    memcpy(f + o + 2, r->sa, 6);
    stw_be_p(f + o + 8, which);
    stw_be_p(f + o + 10, r->in_state);
    stw_be_p(f + o + 12, r->in_transitions);
    stl_be_p(f + o + 14, now / SCALE_MS);
    o = mrpsim_frame_common(r, seq, f, o + MRP_IN_TEST_TLV_LEN);
    return mrpsim_frame_end(f, o);
}

/* A MIM's InTest on both ring ports and the I-port, those that are up. */
static void mrpsim_send_in_tests(MrpsimRing *r, int64_t now)
{
    MrpsimState *s = r->s;
    uint8_t f[MRP_TEST_FRAME_MAX];
    unsigned int which, idx;
    size_t len;

    for (which = 0; which <= MRP_IN_PORT_ROLE; which++) {
        MrpsimPort *p;
        uint16_t seq = r->seq_id + 1;

        idx = mrpsim_in_port_of(r, which);
        if (idx == MRPSIM_NONE) {
            continue;
        }
        p = &s->port[idx];
        if (!mrpsim_port_up(p) || !p->link) {
            continue;
        }
        len = mrpsim_build_in_test(r, p, which, seq, now, f);
        r->seq_id = seq;
        trace_mrpsim_mrp_in_test_tx(mrpsim_id(s), r->idx, p->idx, seq);
        if (mrpsim_port_xmit(p, f, len)) {
            p->cnt[MRPSIM_CNT_MRP_IN_TEST_TX]++;
        }
    }
}

/*
 * One interval of a MIM: count a miss, or raise the loss once the count
 * reached IN_MAX_MISS; then send.  A late tick counts neither (as the
 * ring's monitor, mrpsim_monitor_tick()).
 */
static void mrpsim_in_tick(MrpsimRing *r, int64_t now, bool late)
{
    MrpsimState *s = r->s;
    MrpsimPort *ip = &s->port[r->in_port];

    if (late) {
        ip->cnt[MRPSIM_CNT_MRP_TICK_LATE]++;
    } else if (r->in_miss >= r->in_max_miss &&
               !(r->in_status & MRPSIM_IN_STATUS_LOST)) {
        r->in_status |= MRPSIM_IN_STATUS_LOST;
        r->in_report_due = 0;
        ip->cnt[MRPSIM_CNT_MRP_IN_LOSS]++;
        trace_mrpsim_mrp_in_loss(mrpsim_id(s), r->idx, r->in_miss, now);
        mrpsim_event(s, MRPSIM_EV_IN_LOSS, ip->idx, r->idx,
                     mrpsim_in_ev_data(r, MRP_IN_PORT_ROLE));
    } else if (r->in_miss < UINT32_MAX) {
        r->in_miss++;
    }
    mrpsim_send_in_tests(r, now);
}

/*
 * A running MIM's own InTest came back on @p, its port with role @which:
 * the interconnection is closed.  Raised as IN_REGAIN after a loss, or
 * once while IN_STATE reads open (in_report_due): the software may have
 * opened the interconnection without a loss of the engine's, and must
 * hear that it closed, as the bridge's software MIM tells of every own
 * InTest while it is open.
 */
static void mrpsim_in_seen(MrpsimRing *r, MrpsimPort *p, unsigned int which)
{
    bool lost = r->in_status & MRPSIM_IN_STATUS_LOST;

    if (!mrpsim_in_running(r)) {
        return;
    }
    r->in_miss = 0;
    if (!lost && !r->in_report_due) {
        return;
    }
    r->in_status &= ~MRPSIM_IN_STATUS_LOST;
    r->in_report_due = 0;
    if (lost) {
        p->cnt[MRPSIM_CNT_MRP_IN_REGAIN]++;
    }
    trace_mrpsim_mrp_in_regain(mrpsim_id(r->s), r->idx, p->idx, lost,
                               mrpsim_clock_ns());
    mrpsim_event(r->s, MRPSIM_EV_IN_REGAIN, p->idx, r->idx,
                 mrpsim_in_ev_data(r, which));
}

static void mrpsim_in_report_arm(MrpsimRing *r)
{
    r->in_report_due = mrpsim_in_running(r) &&
                       r->in_state == MRPSIM_IN_STATE_OPEN;
}

static void mrpsim_in_arm(MrpsimRing *r)
{
    int64_t when = r->in_deadline;

    if (r->in_end && r->in_end < when) {
        when = r->in_end;
    }
    timer_mod(r->in_timer, when);
}

static void mrpsim_in_stop(MrpsimRing *r)
{
    timer_del(r->in_timer);
    r->in_test_ctrl &= ~MRPSIM_IN_TEST_CTRL_RUN;
    r->in_status &= ~(MRPSIM_IN_STATUS_RUNNING | MRPSIM_IN_STATUS_LOST);
    r->in_miss = 0;
    r->in_report_due = 0;
    r->in_end = 0;
    trace_mrpsim_mrp_in_test_stop(mrpsim_id(r->s), r->idx);
}

/* A new InTest generation, with nothing lost and no miss counted. */
static void mrpsim_in_afresh(MrpsimRing *r)
{
    r->in_gen = (r->in_gen + 1) & 0xff;
    r->in_miss = 0;
    r->in_status &= ~MRPSIM_IN_STATUS_LOST;
}

static void mrpsim_in_timer(void *opaque)
{
    MrpsimRing *r = opaque;
    int64_t now = mrpsim_clock_ns();
    int64_t iv = mrpsim_in_interval_ns(r);

    if (!mrpsim_in_running(r)) {
        return;
    }
    if (r->in_end && now >= r->in_end) {
        mrpsim_in_stop(r);
        trace_mrpsim_mrp_in_test_done(mrpsim_id(r->s), r->idx);
        mrpsim_event(r->s, MRPSIM_EV_IN_TEST_DONE, MRPSIM_NONE, r->idx,
                     mrpsim_in_ev_data(r, 0));
        return;
    }
    if (now >= r->in_deadline) {
        bool late = now - r->in_deadline > iv / 2;

        mrpsim_in_tick(r, now, late);
        r->in_deadline = late ? now + iv : r->in_deadline + iv;
    }
    mrpsim_in_arm(r);
}

/*
 * IN_TEST_CTRL.RUN = 1: start the InTest, or restart the period of a
 * running one, as mrpsim_test_start() does for MRP_Test.
 */
static void mrpsim_in_start(MrpsimRing *r)
{
    int64_t now = mrpsim_clock_ns();
    int64_t next = now + mrpsim_in_interval_ns(r);
    bool running = mrpsim_in_running(r);

    if (!running) {
        mrpsim_in_afresh(r);
    }
    r->in_status |= MRPSIM_IN_STATUS_RUNNING;
    r->in_test_ctrl |= MRPSIM_IN_TEST_CTRL_RUN;
    r->in_end = r->in_period ? now + (int64_t)r->in_period * SCALE_US : 0;
    trace_mrpsim_mrp_in_test_start(mrpsim_id(r->s), r->idx, !running,
                                   r->in_interval, r->in_max_miss,
                                   r->in_period, now);
    if (running) {
        r->in_deadline = MIN(r->in_deadline, next);
    } else {
        mrpsim_in_report_arm(r);
        r->in_deadline = next;
        mrpsim_in_tick(r, now, false);
    }
    mrpsim_in_arm(r);
}

/* May ring port @q of @r pass an InTest on?  Only a forwarding one. */
static bool mrpsim_in_egress_ok(MrpsimRing *r, unsigned int q)
{
    MrpsimPort *p;

    if (q == MRPSIM_NONE) {
        return false;
    }
    p = &r->s->port[q];
    return mrpsim_port_up(p) && !mrpsim_port_blocking(p);
}

/*
 * An MRP_InTest on @p, port @which of @r (2: the I-port).  A running
 * MIM terminates its own (same IN_ID, as the bridge checks).  With
 * IN_CTRL.FWD the engine forwards the others, once per port, like the
 * bridge (br_mrp_rcv()): never on from a blocked ring port, nor out of a
 * port that is not forwarding (so not between the ring ports of a manager
 * that blocks one); a MIM passes another's only between its ring ports, a
 * MIC to all its other ports, a node with no interconnection role between
 * its ring ports.  Returns false when the frame is the CPU's.
 */
static bool mrpsim_in_test_rx(MrpsimRing *r, MrpsimPort *p,
                              unsigned int which, const uint8_t *buf,
                              size_t len)
{
    const uint8_t *tlv = buf + MRPSIM_ETH_HLEN + 2;
    bool own = r->in_role == MRPSIM_IN_ROLE_MIM &&
               lduw_be_p(tlv + 2) == r->in_id;
    bool sent = false;
    unsigned int w;

    trace_mrpsim_mrp_in_test_rx(mrpsim_id(r->s), r->idx, p->idx, own,
                                lduw_be_p(tlv + 10), mrpsim_clock_ns());
    if (own && mrpsim_in_running(r)) {
        p->cnt[MRPSIM_CNT_MRP_IN_TEST_RX]++;
        mrpsim_in_seen(r, p, which);
        return true;
    }
    if (!(r->in_ctrl & MRPSIM_IN_CTRL_FWD)) {
        return false;
    }
    if (own) {
        /* sent before the test stopped, and back: it ends here */
        p->cnt[MRPSIM_CNT_MRP_IN_TEST_RX]++;
        return true;
    }
    if (which < MRP_IN_PORT_ROLE && mrpsim_port_blocking(p)) {
        trace_mrpsim_drop(p->idx, len, "InTest on a blocked ring port");
        return true;
    }
    if (which == MRP_IN_PORT_ROLE && r->in_role == MRPSIM_IN_ROLE_MIM) {
        trace_mrpsim_drop(p->idx, len, "another InTest on the MIM's I-port");
        return true;
    }
    /* a manager's blocked port is not forwarding: no loop round a ring */
    for (w = 0; w < 2; w++) {
        if (w != which && mrpsim_in_egress_ok(r, r->port[w])) {
            sent |= mrpsim_fwd(p, r->port[w], buf, len,
                               MRPSIM_CNT_MRP_FWD_DROP);
        }
    }
    if (which != MRP_IN_PORT_ROLE && r->in_role == MRPSIM_IN_ROLE_MIC &&
        mrpsim_in_egress_ok(r, r->in_port)) {
        sent |= mrpsim_fwd(p, r->in_port, buf, len, MRPSIM_CNT_MRP_FWD_DROP);
    }
    if (sent) {
        p->cnt[MRPSIM_CNT_MRP_FWD]++;
    } else {
        trace_mrpsim_drop(p->idx, len, "InTest: no port to forward to");
    }
    return true;
}

/* ---- Registers ---- */

/* Ports @prim and @sec for instance @r: in range, distinct, not shared. */
static bool mrpsim_ports_ok(MrpsimRing *r, unsigned int prim,
                            unsigned int sec)
{
    MrpsimState *s = r->s;
    unsigned int i, w;

    if ((prim != MRPSIM_NONE && prim >= s->nports) ||
        (sec != MRPSIM_NONE && sec >= s->nports) ||
        (prim == sec && prim != MRPSIM_NONE)) {
        return false;
    }
    for (i = 0; i < s->nrings; i++) {
        uint8_t in = s->ring[i].in_port;

        if (in != MRPSIM_NONE && (in == prim || in == sec)) {
            return false;
        }
        if (i == r->idx) {
            continue;
        }
        for (w = 0; w < 2; w++) {
            if (s->ring[i].port[w] != MRPSIM_NONE &&
                (s->ring[i].port[w] == prim || s->ring[i].port[w] == sec)) {
                return false;
            }
        }
    }
    return true;
}

/*
 * I-port @port for instance @r: in range, and no instance's ring port or
 * other instance's I-port.
 */
static bool mrpsim_in_port_ok(MrpsimRing *r, unsigned int port)
{
    MrpsimState *s = r->s;
    unsigned int i;

    if (port == MRPSIM_NONE) {
        return true;
    }
    if (port >= s->nports) {
        return false;
    }
    for (i = 0; i < s->nrings; i++) {
        MrpsimRing *o = &s->ring[i];

        if (o->port[0] == port || o->port[1] == port ||
            (i != r->idx && o->in_port == port)) {
            return false;
        }
    }
    return true;
}

static void mrpsim_ring_reset(MrpsimRing *r)
{
    timer_del(r->timer);
    r->role = MRPSIM_ROLE_DISABLED;
    r->ring_id = 0;
    r->port[0] = r->port[1] = MRPSIM_NONE;
    r->prio = 0x8000;
    r->ring_state = MRPSIM_RSTATE_OPEN;
    r->transitions = 0;
    memset(r->sa, 0, sizeof(r->sa));
    memset(r->domain, 0xff, sizeof(r->domain));
    r->interval = 1000;
    r->max_miss = 3;
    r->period = 0;
    r->test_ctrl = 0;
    r->status = 0;
    r->seq_id = 0;
    r->deadline = 0;
    r->end = 0;
    r->miss[0] = r->miss[1] = 0;
    r->report_due = 0;
    r->gen = 0;
    timer_del(r->flush_timer);
    mrpsim_topo_stop(r);
    r->assist = 0;
    r->topo_interval = 10000;
    r->topo_repeat = 3;
    timer_del(r->in_timer);
    r->in_role = MRPSIM_IN_ROLE_DISABLED;
    r->in_id = 0;
    r->in_port = MRPSIM_NONE;
    r->in_state = MRPSIM_IN_STATE_OPEN;
    r->in_transitions = 0;
    r->in_interval = 1000;
    r->in_max_miss = 3;
    r->in_period = 0;
    r->in_test_ctrl = 0;
    r->in_status = 0;
    r->in_gen = 0;
    r->in_ctrl = 0;
    r->in_miss = 0;
    r->in_report_due = 0;
    r->in_deadline = 0;
    r->in_end = 0;
}

uint32_t mrpsim_mrp_read(MrpsimState *s, hwaddr addr)
{
    unsigned int ri = (addr - MRPSIM_MRP_BASE(0)) / MRPSIM_MRP_BLOCK;
    hwaddr off = (addr - MRPSIM_MRP_BASE(0)) % MRPSIM_MRP_BLOCK;
    MrpsimRing *r;

    if (!s->mrp || ri >= s->nrings) {
        return 0;
    }
    r = &s->ring[ri];
    switch (off) {
    case MRPSIM_MRP_ROLE:
        return r->role;
    case MRPSIM_MRP_RING_ID:
        return r->ring_id;
    case MRPSIM_MRP_PORTS:
        return r->port[0] | r->port[1] << MRPSIM_MRP_PORTS_S_SHIFT;
    case MRPSIM_MRP_PRIO:
        return r->prio;
    case MRPSIM_MRP_RING_STATE:
        return r->ring_state;
    case MRPSIM_MRP_TRANSITIONS:
        return r->transitions;
    case MRPSIM_MRP_SA_LO:
        return ldl_le_p(r->sa);
    case MRPSIM_MRP_SA_HI:
        return lduw_le_p(r->sa + 4);
    case MRPSIM_MRP_DOMAIN(0):
    case MRPSIM_MRP_DOMAIN(1):
    case MRPSIM_MRP_DOMAIN(2):
    case MRPSIM_MRP_DOMAIN(3):
        return ldl_le_p(r->domain + (off - MRPSIM_MRP_DOMAIN(0)));
    case MRPSIM_MRP_TEST_INTERVAL:
        return r->interval;
    case MRPSIM_MRP_TEST_MAX_MISS:
        return r->max_miss;
    case MRPSIM_MRP_TEST_PERIOD:
        return r->period;
    case MRPSIM_MRP_TEST_CTRL:
        return r->test_ctrl;
    case MRPSIM_MRP_STATUS:
        return r->status | r->gen << MRPSIM_MRP_STATUS_GEN_SHIFT;
    case MRPSIM_MRP_SEQ_ID:
        return r->seq_id;
    case MRPSIM_MRP_TOPO_INTERVAL:
        return r->topo_interval;
    case MRPSIM_MRP_TOPO_REPEAT:
        return r->topo_repeat;
    case MRPSIM_MRP_ASSIST:
        return r->assist;
    case MRPSIM_MRP_IN_ROLE:
        return r->in_role;
    case MRPSIM_MRP_IN_ID:
        return r->in_id;
    case MRPSIM_MRP_IN_PORT:
        return r->in_port;
    case MRPSIM_MRP_IN_STATE:
        return r->in_state;
    case MRPSIM_MRP_IN_TRANSITIONS:
        return r->in_transitions;
    case MRPSIM_MRP_IN_INTERVAL:
        return r->in_interval;
    case MRPSIM_MRP_IN_MAX_MISS:
        return r->in_max_miss;
    case MRPSIM_MRP_IN_PERIOD:
        return r->in_period;
    case MRPSIM_MRP_IN_TEST_CTRL:
        return r->in_test_ctrl;
    case MRPSIM_MRP_IN_STATUS:
        return r->in_status | r->in_gen << MRPSIM_MRP_STATUS_GEN_SHIFT;
    case MRPSIM_MRP_IN_CTRL:
        return r->in_ctrl;
    }
    return 0;
}

static void mrpsim_reg_error(MrpsimRing *r, hwaddr addr, uint32_t val)
{
    trace_mrpsim_mrp_bad_value(mrpsim_id(r->s), r->idx, addr, val);
    mrpsim_error(r->s, MRPSIM_ERR_REG, MRPSIM_NONE, addr);
}

/* The interconnection's registers of @r; @off is within its block. */
static void mrpsim_in_write(MrpsimRing *r, hwaddr addr, hwaddr off,
                            uint32_t val)
{
    switch (off) {
    case MRPSIM_MRP_IN_ROLE:
        if (val > MRPSIM_IN_ROLE_MIM) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->in_role = val;
        trace_mrpsim_mrp_in_role(mrpsim_id(r->s), r->idx,
                                 mrpsim_in_role_names[val]);
        if (val != MRPSIM_IN_ROLE_MIM && mrpsim_in_running(r)) {
            mrpsim_in_stop(r);
        }
        return;
    case MRPSIM_MRP_IN_ID:
        r->in_id = val;
        return;
    case MRPSIM_MRP_IN_PORT:
        /* a running InTest sends on its I-port: it cannot go */
        if (!mrpsim_in_port_ok(r, val) ||
            (val == MRPSIM_NONE && mrpsim_in_running(r))) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->in_port = val;
        return;
    case MRPSIM_MRP_IN_STATE:
        if (val > MRPSIM_IN_STATE_CLOSED) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        trace_mrpsim_mrp_in_state(mrpsim_id(r->s), r->idx, val,
                                  mrpsim_clock_ns());
        if (val != r->in_state) {
            r->in_transitions++;
        }
        /* closed afresh, as RING_STATE (mrpsim_test_close()) */
        if (val == MRPSIM_IN_STATE_CLOSED &&
            r->in_state != MRPSIM_IN_STATE_CLOSED && mrpsim_in_running(r)) {
            mrpsim_in_afresh(r);
        }
        r->in_state = val;
        mrpsim_in_report_arm(r);
        return;
    case MRPSIM_MRP_IN_TRANSITIONS:
        r->in_transitions = val;
        return;
    case MRPSIM_MRP_IN_INTERVAL:
        if (val < MRPSIM_TEST_INTERVAL_MIN) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->in_interval = val;
        return;
    case MRPSIM_MRP_IN_MAX_MISS:
        r->in_max_miss = val;
        return;
    case MRPSIM_MRP_IN_PERIOD:
        r->in_period = val;
        return;
    case MRPSIM_MRP_IN_TEST_CTRL:
        if (!(val & MRPSIM_IN_TEST_CTRL_RUN)) {
            if (mrpsim_in_running(r)) {
                mrpsim_in_stop(r);
            }
            return;
        }
        if (val & ~MRPSIM_IN_TEST_CTRL_RUN ||
            r->in_role != MRPSIM_IN_ROLE_MIM || r->in_port == MRPSIM_NONE ||
            !mrpsim_in_port_ok(r, r->in_port)) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        mrpsim_in_start(r);
        return;
    case MRPSIM_MRP_IN_CTRL:
        if (val & ~MRPSIM_IN_CTRL_FWD) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->in_ctrl = val;
        return;
    }
    trace_mrpsim_reg_ignored(addr, val);
}

void mrpsim_mrp_write(MrpsimState *s, hwaddr addr, uint32_t val)
{
    unsigned int ri = (addr - MRPSIM_MRP_BASE(0)) / MRPSIM_MRP_BLOCK;
    hwaddr off = (addr - MRPSIM_MRP_BASE(0)) % MRPSIM_MRP_BLOCK;
    unsigned int prim, sec;
    MrpsimRing *r;

    if (!s->mrp || ri >= s->nrings) {
        trace_mrpsim_reg_ignored(addr, val);
        return;
    }
    r = &s->ring[ri];
    switch (off) {
    case MRPSIM_MRP_ROLE:
        if (val > MRPSIM_ROLE_MRA || (val == MRPSIM_ROLE_MRA && !s->mra)) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->role = val;
        trace_mrpsim_mrp_role(mrpsim_id(s), r->idx, mrpsim_role_names[val]);
        if (!mrpsim_ring_generates(r)) {
            mrpsim_topo_stop(r);
        }
        if (!mrpsim_ring_client(r)) {
            timer_del(r->flush_timer);
        }
        if ((val == MRPSIM_ROLE_DISABLED || val == MRPSIM_ROLE_MRC) &&
            (r->status & MRPSIM_MRP_STATUS_RUNNING)) {
            mrpsim_test_stop(r);
        }
        return;
    case MRPSIM_MRP_RING_ID:
        r->ring_id = val;
        return;
    case MRPSIM_MRP_PORTS:
        prim = val & MRPSIM_MRP_PORTS_P_MASK;
        sec = (val & MRPSIM_MRP_PORTS_S_MASK) >> MRPSIM_MRP_PORTS_S_SHIFT;
        if (!mrpsim_ports_ok(r, prim, sec)) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->port[0] = prim;
        r->port[1] = sec;
        return;
    case MRPSIM_MRP_PRIO:
        r->prio = val;
        return;
    case MRPSIM_MRP_RING_STATE:
        if (val > MRPSIM_RSTATE_CLOSED) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        trace_mrpsim_mrp_ring_state(mrpsim_id(s), r->idx, val,
                                    mrpsim_clock_ns());
        if (val != r->ring_state) {
            r->transitions++;
        }
        if (val == MRPSIM_RSTATE_CLOSED &&
            r->ring_state != MRPSIM_RSTATE_CLOSED) {
            mrpsim_test_close(r);
        }
        r->ring_state = val;
        mrpsim_report_arm(r);
        return;
    case MRPSIM_MRP_TRANSITIONS:
        r->transitions = val;
        return;
    case MRPSIM_MRP_SA_LO:
        stl_le_p(r->sa, val);
        return;
    case MRPSIM_MRP_SA_HI:
        stw_le_p(r->sa + 4, val);
        return;
    case MRPSIM_MRP_DOMAIN(0):
    case MRPSIM_MRP_DOMAIN(1):
    case MRPSIM_MRP_DOMAIN(2):
    case MRPSIM_MRP_DOMAIN(3):
        stl_le_p(r->domain + (off - MRPSIM_MRP_DOMAIN(0)), val);
        return;
    case MRPSIM_MRP_TEST_INTERVAL:
        if (val < MRPSIM_TEST_INTERVAL_MIN) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->interval = val;
        return;
    case MRPSIM_MRP_TEST_MAX_MISS:
        r->max_miss = val;
        return;
    case MRPSIM_MRP_TEST_PERIOD:
        r->period = val;
        return;
    case MRPSIM_MRP_TEST_CTRL:
        if (!(val & MRPSIM_TEST_CTRL_RUN)) {
            r->test_ctrl = val & MRPSIM_TEST_CTRL_MONITOR;
            if (r->status & MRPSIM_MRP_STATUS_RUNNING) {
                mrpsim_test_stop(r);
            }
            return;
        }
        if (r->role == MRPSIM_ROLE_DISABLED || r->role == MRPSIM_ROLE_MRC ||
            (r->port[0] == MRPSIM_NONE && r->port[1] == MRPSIM_NONE) ||
            !mrpsim_ports_ok(r, r->port[0], r->port[1])) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        if ((r->status & MRPSIM_MRP_STATUS_RUNNING) &&
            ((r->test_ctrl ^ val) & MRPSIM_TEST_CTRL_MONITOR)) {
            /*
             * Generate <-> monitor: the misses and losses counted so far
             * were of other frames; start a new test, not a restart.
             */
            mrpsim_test_stop(r);
        }
        r->test_ctrl = val & (MRPSIM_TEST_CTRL_RUN | MRPSIM_TEST_CTRL_MONITOR);
        mrpsim_test_start(r);
        return;
    case MRPSIM_MRP_TOPO_INTERVAL:
        if (val > MRPSIM_TOPO_INTERVAL_MAX ||
            (val && val < MRPSIM_TEST_INTERVAL_MIN)) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->topo_interval = val;
        return;
    case MRPSIM_MRP_TOPO_REPEAT:
        if (val > MRPSIM_TOPO_REPEAT_MAX) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->topo_repeat = val;
        return;
    case MRPSIM_MRP_ASSIST:
        if (val & ~(MRPSIM_ASSIST_OPEN | MRPSIM_ASSIST_FLUSH)) {
            mrpsim_reg_error(r, addr, val);
            return;
        }
        r->assist = val;
        if (!(val & MRPSIM_ASSIST_OPEN)) {
            mrpsim_topo_stop(r);
        }
        if (!(val & MRPSIM_ASSIST_FLUSH)) {
            timer_del(r->flush_timer);
        }
        return;
    default:
        if (off >= MRPSIM_MRP_IN_ROLE && off <= MRPSIM_MRP_IN_CTRL) {
            mrpsim_in_write(r, addr, off, val);
            return;
        }
    }
    trace_mrpsim_reg_ignored(addr, val);
}

/* ---- Frames from the wire ---- */

/*
 * Check an MRP frame without reading past its end.  Returns false when it
 * is malformed; otherwise *@first is its first TLV's type at offset 16.
 */
static bool mrpsim_mrp_parse(const uint8_t *buf, size_t len, uint8_t *first)
{
    size_t off = MRPSIM_ETH_HLEN + 2;
    unsigned int n = 0;

    if (len < MRPSIM_ETH_HLEN + 2 + 2 ||
        lduw_be_p(buf + MRPSIM_ETH_HLEN) != MRP_VERSION) {
        return false;
    }
    *first = buf[off];
    while (off + 2 <= len) {
        uint8_t type = buf[off];
        uint8_t tlen = buf[off + 1];

        if (off + 2 + tlen > len) {
            return false;
        }
        if (n == 0 && type == MRP_TLV_RING_TEST && tlen < MRP_TEST_TLV_LEN) {
            return false;
        }
        if (n == 0 && type == MRP_TLV_IN_TEST && tlen < MRP_IN_TEST_TLV_LEN) {
            return false;
        }
        if (type == MRP_TLV_END) {
            break;
        }
        off += 2 + tlen;
        n++;
    }
    return true;
}

/*
 * The instance with a role whose ring port (*@which 0, 1) or, with an
 * interconnection role, I-port (2) @port is.
 */
static MrpsimRing *mrpsim_ring_of_port(MrpsimState *s, unsigned int port,
                                       unsigned int *which)
{
    unsigned int i, w;

    for (i = 0; i < s->nrings; i++) {
        MrpsimRing *r = &s->ring[i];

        if (r->role == MRPSIM_ROLE_DISABLED) {
            continue;
        }
        for (w = 0; w < 2; w++) {
            if (r->port[w] == port) {
                *which = w;
                return r;
            }
        }
        if (r->in_role != MRPSIM_IN_ROLE_DISABLED && r->in_port == port) {
            *which = MRP_IN_PORT_ROLE;
            return r;
        }
    }
    return NULL;
}

/* Is a test frame from (@prio, @sa) better than this instance's own? */
static bool mrpsim_better(MrpsimRing *r, uint16_t prio, const uint8_t *sa)
{
    if (prio != r->prio) {
        return prio < r->prio;
    }
    return memcmp(sa, r->sa, 6) < 0;
}

static bool mrpsim_forward(MrpsimRing *r, MrpsimPort *p, unsigned int which,
                           const uint8_t *buf, size_t len)
{
    unsigned int out = r->port[!which];

    if (out == MRPSIM_NONE) {
        trace_mrpsim_drop(p->idx, len, "mrp fwd: no other ring port");
        return false;
    }
    if (!mrpsim_fwd(p, out, buf, len, MRPSIM_CNT_MRP_FWD_DROP)) {
        return false;
    }
    p->cnt[MRPSIM_CNT_MRP_FWD]++;
    return true;
}

static void mrpsim_trap(MrpsimRing *r, MrpsimPort *p, const uint8_t *buf,
                        size_t len, uint16_t flags)
{
    p->cnt[MRPSIM_CNT_MRP_TRAP]++;
    trace_mrpsim_mrp_trap(mrpsim_id(r->s), r->idx, p->idx, len);
    mrpsim_rx_to_cpu(p, buf, len, MRPSIM_DESC_MRP | flags, r->idx);
}

/*
 * An MRP frame arrived on port @p.  Returns false when the port is not a
 * ring port of an instance with a role: the frame is then an ordinary one.
 */
bool mrpsim_mrp_receive(MrpsimPort *p, const uint8_t *buf, size_t len)
{
    MrpsimState *s = p->s;
    unsigned int which;
    MrpsimRing *r = mrpsim_ring_of_port(s, p->idx, &which);
    const uint8_t *tlv = buf + MRPSIM_ETH_HLEN + 2;
    uint8_t first;

    if (!r) {
        return false;
    }
    if (!mrpsim_mrp_parse(buf, len, &first)) {
        p->cnt[MRPSIM_CNT_MRP_MALFORMED]++;
        trace_mrpsim_mrp_malformed(mrpsim_id(s), r->idx, p->idx, len);
        return true;
    }

    if (first == MRP_TLV_IN_TEST && mrpsim_in_test_rx(r, p, which, buf, len)) {
        return true;
    }
    /* anything else on the I-port is the CPU's: it is no ring port */
    if (which == MRP_IN_PORT_ROLE) {
        mrpsim_trap(r, p, buf, len, 0);
        return true;
    }

    if (first == MRP_TLV_RING_TEST) {
        uint16_t prio = lduw_be_p(tlv + 2);
        const uint8_t *sa = tlv + 4;
        bool own = !memcmp(sa, r->sa, 6);

        trace_mrpsim_mrp_test_rx(mrpsim_id(s), r->idx, p->idx, own,
                                 lduw_be_p(tlv + 8), mrpsim_clock_ns());
        if (!mrpsim_ring_client(r)) {
            if (own) {
                /* our own test frame came round the ring: terminate it */
                p->cnt[MRPSIM_CNT_MRP_TEST_RX]++;
                if ((r->report_due & BIT(which)) &&
                    (r->status & MRPSIM_MRP_STATUS_RUNNING) &&
                    !(r->status & mrpsim_lost_bit(which))) {
                    r->report_due &= ~BIT(which);
                    mrpsim_trap(r, p, buf, len, 0);
                }
                mrpsim_monitor_rx(r, which);
            } else {
                mrpsim_trap(r, p, buf, len, 0);
            }
            return true;
        }
        if (own) {
            /*
             * Sent while this instance was a manager (an MRA that has
             * given way) and back round the ring: forwarding it would
             * send it round a second time.
             */
            p->cnt[MRPSIM_CNT_MRP_TEST_RX]++;
            return true;
        }
        if (mrpsim_ring_monitor(r) && mrpsim_better(r, prio, sa)) {
            mrpsim_monitor_rx(r, which);
        }
        mrpsim_forward(r, p, which, buf, len);
        return true;
    }

    /*
     * Every other MRP frame (TopologyChange, LinkDown/LinkUp, Option,
     * the interconnection's but InTest with IN_CTRL.FWD, whatever its
     * role) goes to the CPU only: on a client the bridge forwards it to
     * the other ring port, so that it crosses each cable once.
     * Forwarding it here too would double it at every client.
     */
    mrpsim_trap(r, p, buf, len, 0);
    if (first == MRP_TLV_RING_TOPO) {
        mrpsim_assist_topo_rx(r, tlv);
    }
    return true;
}

/* ---- Life cycle ---- */

static bool mrpsim_ring_report_needed(void *opaque)
{
    MrpsimRing *r = opaque;

    return r->report_due;
}

static bool mrpsim_ring_gen_needed(void *opaque)
{
    MrpsimRing *r = opaque;

    return r->gen;
}

static const VMStateDescription mrpsim_vmstate_ring_gen = {
    .name = "mrpsim/ring/gen",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = mrpsim_ring_gen_needed,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(gen, MrpsimRing),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription mrpsim_vmstate_ring_report = {
    .name = "mrpsim/ring/report",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = mrpsim_ring_report_needed,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(report_due, MrpsimRing),
        VMSTATE_END_OF_LIST()
    }
};

static bool mrpsim_ring_in_needed(void *opaque)
{
    MrpsimRing *r = opaque;

    return r->in_role || r->in_id || r->in_port != MRPSIM_NONE ||
           r->in_state || r->in_transitions || r->in_interval != 1000 ||
           r->in_max_miss != 3 || r->in_period || r->in_test_ctrl ||
           r->in_status || r->in_gen || r->in_ctrl;
}

static const VMStateDescription mrpsim_vmstate_ring_in = {
    .name = "mrpsim/ring/in",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = mrpsim_ring_in_needed,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(in_role, MrpsimRing),
        VMSTATE_UINT16(in_id, MrpsimRing),
        VMSTATE_UINT8(in_port, MrpsimRing),
        VMSTATE_UINT32(in_state, MrpsimRing),
        VMSTATE_UINT16(in_transitions, MrpsimRing),
        VMSTATE_UINT32(in_interval, MrpsimRing),
        VMSTATE_UINT32(in_max_miss, MrpsimRing),
        VMSTATE_UINT32(in_period, MrpsimRing),
        VMSTATE_UINT32(in_test_ctrl, MrpsimRing),
        VMSTATE_UINT32(in_status, MrpsimRing),
        VMSTATE_UINT32(in_gen, MrpsimRing),
        VMSTATE_UINT32(in_ctrl, MrpsimRing),
        VMSTATE_UINT32(in_miss, MrpsimRing),
        VMSTATE_UINT32(in_report_due, MrpsimRing),
        VMSTATE_TIMER_PTR(in_timer, MrpsimRing),
        VMSTATE_INT64(in_deadline, MrpsimRing),
        VMSTATE_INT64(in_end, MrpsimRing),
        VMSTATE_END_OF_LIST()
    }
};

const VMStateDescription mrpsim_vmstate_ring = {
    .name = "mrpsim/ring",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(role, MrpsimRing),
        VMSTATE_UINT32(ring_id, MrpsimRing),
        VMSTATE_UINT8_ARRAY(port, MrpsimRing, 2),
        VMSTATE_UINT16(prio, MrpsimRing),
        VMSTATE_UINT32(ring_state, MrpsimRing),
        VMSTATE_UINT16(transitions, MrpsimRing),
        VMSTATE_UINT8_ARRAY(sa, MrpsimRing, 6),
        VMSTATE_UINT8_ARRAY(domain, MrpsimRing, 16),
        VMSTATE_UINT32(interval, MrpsimRing),
        VMSTATE_UINT32(max_miss, MrpsimRing),
        VMSTATE_UINT32(period, MrpsimRing),
        VMSTATE_UINT32(test_ctrl, MrpsimRing),
        VMSTATE_UINT32(status, MrpsimRing),
        VMSTATE_UINT16(seq_id, MrpsimRing),
        VMSTATE_TIMER_PTR(timer, MrpsimRing),
        VMSTATE_INT64(deadline, MrpsimRing),
        VMSTATE_INT64(end, MrpsimRing),
        VMSTATE_UINT32_ARRAY(miss, MrpsimRing, 2),
        VMSTATE_UINT32(assist, MrpsimRing),
        VMSTATE_UINT32(topo_interval, MrpsimRing),
        VMSTATE_UINT32(topo_repeat, MrpsimRing),
        VMSTATE_UINT32(topo_left, MrpsimRing),
        VMSTATE_TIMER_PTR(topo_timer, MrpsimRing),
        VMSTATE_TIMER_PTR(flush_timer, MrpsimRing),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &mrpsim_vmstate_ring_report,
        &mrpsim_vmstate_ring_gen,
        &mrpsim_vmstate_ring_in,
        NULL
    }
};

/* The interconnection's register and status invariants hold. */
static bool mrpsim_in_valid(MrpsimRing *r)
{
    bool running = mrpsim_in_running(r);

    if (r->in_role > MRPSIM_IN_ROLE_MIM ||
        r->in_state > MRPSIM_IN_STATE_CLOSED ||
        r->in_interval < MRPSIM_TEST_INTERVAL_MIN ||
        (r->in_test_ctrl & ~MRPSIM_IN_TEST_CTRL_RUN) ||
        (r->in_status & ~(MRPSIM_IN_STATUS_RUNNING |
                          MRPSIM_IN_STATUS_LOST)) ||
        (r->in_ctrl & ~MRPSIM_IN_CTRL_FWD) ||
        r->in_gen > 0xff || r->in_report_due > 1 ||
        !mrpsim_in_port_ok(r, r->in_port) ||
        running != !!(r->in_test_ctrl & MRPSIM_IN_TEST_CTRL_RUN)) {
        return false;
    }
    if (!running) {
        return !(r->in_status & MRPSIM_IN_STATUS_LOST) && !r->in_report_due;
    }
    return r->in_role == MRPSIM_IN_ROLE_MIM && r->in_port != MRPSIM_NONE;
}

/* The register and status invariants of a ring instance hold. */
static bool mrpsim_ring_valid(MrpsimState *s, MrpsimRing *r)
{
    const uint32_t lost = MRPSIM_MRP_STATUS_P_LOST | MRPSIM_MRP_STATUS_S_LOST;
    bool running = r->status & MRPSIM_MRP_STATUS_RUNNING;

    if (r->role > MRPSIM_ROLE_MRA ||
        (r->role == MRPSIM_ROLE_MRA && !s->mra) ||
        r->ring_state > MRPSIM_RSTATE_CLOSED || r->report_due > 3 ||
        r->gen > 0xff ||
        r->interval < MRPSIM_TEST_INTERVAL_MIN ||
        (r->assist & ~(MRPSIM_ASSIST_OPEN | MRPSIM_ASSIST_FLUSH)) ||
        r->topo_interval > MRPSIM_TOPO_INTERVAL_MAX ||
        (r->topo_interval && r->topo_interval < MRPSIM_TEST_INTERVAL_MIN) ||
        r->topo_repeat > MRPSIM_TOPO_REPEAT_MAX ||
        r->topo_left > r->topo_repeat ||
        (r->test_ctrl & ~(MRPSIM_TEST_CTRL_RUN | MRPSIM_TEST_CTRL_MONITOR)) ||
        (r->status & ~(MRPSIM_MRP_STATUS_RUNNING | lost)) ||
        !mrpsim_ports_ok(r, r->port[0], r->port[1])) {
        return false;
    }
    if ((!s->mrp || r->idx >= s->nrings) &&
        (r->role != MRPSIM_ROLE_DISABLED || r->status ||
         r->in_role != MRPSIM_IN_ROLE_DISABLED || r->in_status)) {
        return false;
    }
    if (!mrpsim_in_valid(r)) {
        return false;
    }
    /* RUN and RUNNING go together, and only as mrpsim_test_start() allows */
    if (running != !!(r->test_ctrl & MRPSIM_TEST_CTRL_RUN)) {
        return false;
    }
    if (!running) {
        return !(r->status & lost);
    }
    return (r->role == MRPSIM_ROLE_MRM || r->role == MRPSIM_ROLE_MRA) &&
           (r->port[0] != MRPSIM_NONE || r->port[1] != MRPSIM_NONE);
}

/*
 * Check the instances of an incoming migration stream; 0 when sane.  A
 * running test's deadline and end come from the source's clock: the
 * deadline is put within one interval from now, the end within the
 * longest TEST_PERIOD from now, and the timer is armed from them, never
 * from the stream.  (QEMU's virtual clock is migrated, so this only
 * changes a stream that is corrupt, or one from the qtest accelerator.)
 */
int mrpsim_mrp_post_load(MrpsimState *s)
{
    int64_t now = mrpsim_clock_ns();
    unsigned int i;

    for (i = 0; i < MRPSIM_MAX_RINGS; i++) {
        MrpsimRing *r = &s->ring[i];

        if (!mrpsim_ring_valid(s, r)) {
            return -EINVAL;
        }
    }
    for (i = 0; i < MRPSIM_MAX_RINGS; i++) {
        MrpsimRing *r = &s->ring[i];

        /* a series or a flush is at most one interval (or frame) away */
        if (!r->topo_left || !mrpsim_ring_generates(r) ||
            !(r->assist & MRPSIM_ASSIST_OPEN)) {
            mrpsim_topo_stop(r);
        } else if (!timer_pending(r->topo_timer) ||
                   timer_expire_time_ns(r->topo_timer) > now +
                   (int64_t)r->topo_interval * SCALE_US) {
            timer_mod(r->topo_timer, now);
        }
        if (!mrpsim_ring_client(r) || !(r->assist & MRPSIM_ASSIST_FLUSH)) {
            timer_del(r->flush_timer);
        } else if (timer_pending(r->flush_timer) &&
                   timer_expire_time_ns(r->flush_timer) > now +
                   (int64_t)UINT16_MAX * SCALE_MS) {
            timer_mod(r->flush_timer, now);
        }
        if (!mrpsim_in_running(r)) {
            timer_del(r->in_timer);
        } else {
            r->in_deadline = MIN(MAX(r->in_deadline, now),
                                 now + mrpsim_in_interval_ns(r));
            r->in_end = MIN(r->in_end, now + (int64_t)UINT32_MAX * SCALE_US);
            mrpsim_in_arm(r);
        }
        if (!(r->status & MRPSIM_MRP_STATUS_RUNNING)) {
            timer_del(r->timer);
            continue;
        }
        r->deadline = MIN(MAX(r->deadline, now),
                          now + mrpsim_interval_ns(r));
        /* an end in the past ends the test at the first tick */
        r->end = MIN(r->end, now + (int64_t)UINT32_MAX * SCALE_US);
        mrpsim_test_arm(r);
    }
    return 0;
}

void mrpsim_mrp_realize(MrpsimState *s)
{
    unsigned int i;

    for (i = 0; i < MRPSIM_MAX_RINGS; i++) {
        MrpsimRing *r = &s->ring[i];

        r->s = s;
        r->idx = i;
        r->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mrpsim_test_timer, r);
        r->topo_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mrpsim_topo_timer,
                                     r);
        r->flush_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mrpsim_flush_timer,
                                      r);
        r->in_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mrpsim_in_timer, r);
    }
}

void mrpsim_mrp_unrealize(MrpsimState *s)
{
    unsigned int i;

    for (i = 0; i < MRPSIM_MAX_RINGS; i++) {
        timer_free(s->ring[i].timer);
        s->ring[i].timer = NULL;
        timer_free(s->ring[i].topo_timer);
        s->ring[i].topo_timer = NULL;
        timer_free(s->ring[i].flush_timer);
        s->ring[i].flush_timer = NULL;
        timer_free(s->ring[i].in_timer);
        s->ring[i].in_timer = NULL;
    }
}

void mrpsim_mrp_reset(MrpsimState *s)
{
    unsigned int i;

    for (i = 0; i < MRPSIM_MAX_RINGS; i++) {
        mrpsim_ring_reset(&s->ring[i]);
    }
}
