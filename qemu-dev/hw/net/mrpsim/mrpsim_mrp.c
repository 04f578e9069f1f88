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
 * a ring manager (MRM), client (MRC) and auto-manager (MRA).
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
#define MRP_TLV_OPTION          0x7f
#define MRP_SUB_TLV_AUTO_MGR    0x03
#define MRP_TEST_TLV_LEN        18
#define MRP_COMMON_TLV_LEN      18
#define MRP_TOPO_TLV_LEN        10  /* prio 2, SA 6, interval 2 */
#define MRP_OPTION_TLV_LEN      10  /* OUI 3, sub-option 1 + 2, sub-TLV 2 + 2 */
#define MRP_MIN_FRAME           60
#define MRP_TEST_FRAME_MAX      80

static const uint8_t mrp_test_dmac[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x01 };
static const uint8_t mrp_control_dmac[6] = {
    0x01, 0x15, 0x4e, 0x00, 0x00, 0x02
};

static const char *const mrpsim_role_names[] = {
    "disabled", "MRC", "MRM", "MRA"
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
    }
    return 0;
}

static void mrpsim_reg_error(MrpsimRing *r, hwaddr addr, uint32_t val)
{
    trace_mrpsim_mrp_bad_value(mrpsim_id(r->s), r->idx, addr, val);
    mrpsim_error(r->s, MRPSIM_ERR_REG, MRPSIM_NONE, addr);
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
        if (type == MRP_TLV_END) {
            break;
        }
        off += 2 + tlen;
        n++;
    }
    return true;
}

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
     * whatever its role) goes to the CPU only: on a client the bridge
     * forwards it to the other ring port, so that it crosses each cable
     * once.  Forwarding it here too would double it at every client.
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
        NULL
    }
};

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
        (r->role != MRPSIM_ROLE_DISABLED || r->status)) {
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
    }
}

void mrpsim_mrp_reset(MrpsimState *s)
{
    unsigned int i;

    for (i = 0; i < MRPSIM_MAX_RINGS; i++) {
        mrpsim_ring_reset(&s->ring[i]);
    }
}
