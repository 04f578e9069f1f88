/*
 * QEMU mrpsim switch: PCI function, registers, rings, events, interrupts
 * and ports
 *
 * Copyright (c) 2026 mrpsim developers
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 *
 * mrpsim is a virtual PCI Ethernet switch whose ports are QEMU NIC
 * backends.  Frames between the CPU and a port go through per-port DMA
 * descriptor rings; link changes, MRP events and errors go through an
 * event queue.  The MRP engine lives in mrpsim_mrp.c.  The programming
 * model is docs/specs/mrpsim.rst in the mrpsim project.
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "mrpsim.h"
#include "trace.h"

#define MRPSIM_RX_BUF_MIN       64

static const char *const mrpsim_err_names[] = {
    [MRPSIM_ERR_NONE] = "none",
    [MRPSIM_ERR_DMA] = "DMA",
    [MRPSIM_ERR_RING] = "RING",
    [MRPSIM_ERR_INDEX] = "INDEX",
    [MRPSIM_ERR_LEN] = "LEN",
    [MRPSIM_ERR_EVQ_FULL] = "EVQ_FULL",
    [MRPSIM_ERR_REG] = "REG",
};

static uint32_t mrpsim_vec_mask(MrpsimState *s)
{
    return MAKE_64BIT_MASK(0, MRPSIM_NUM_VECS(s->nports));
}

/* ---- Interrupts ---- */

static void mrpsim_irq_update(MrpsimState *s)
{
    PCIDevice *pci = PCI_DEVICE(s);
    uint32_t fire = s->irq_pending & ~s->irq_mask;
    unsigned int v;

    if (!fire || !msix_enabled(pci)) {
        return;
    }
    for (v = 0; v < MRPSIM_NUM_VECS(s->nports); v++) {
        if (fire & BIT(v)) {
            /* auto-mask: the driver unmasks when it has drained the work */
            s->irq_pending &= ~BIT(v);
            s->irq_mask |= BIT(v);
            trace_mrpsim_irq(v);
            msix_notify(pci, v);
        }
    }
}

static void mrpsim_irq_raise(MrpsimState *s, unsigned int vec)
{
    s->irq_pending |= BIT(vec);
    mrpsim_irq_update(s);
}

/* ---- Events and errors ---- */

static void mrpsim_set_error(MrpsimState *s, unsigned int code,
                             unsigned int port, unsigned int index)
{
    s->err_status |= MRPSIM_ERR_BIT(code);
    s->err_info = code | (port & 0xff) << MRPSIM_ERR_INFO_PORT_SHIFT |
                  (index & 0xffff) << MRPSIM_ERR_INFO_INDEX_SHIFT;
    trace_mrpsim_error(mrpsim_err_names[code], port, index);
    qemu_log_mask(LOG_GUEST_ERROR, "mrpsim: %s error, port %u, index %u\n",
                  mrpsim_err_names[code], port, index);
}

/*
 * Write one event to the queue.  Only with the device's re-entrancy guard
 * engaged: the write is DMA to a guest address, and an address in the
 * device's own BAR0 or MSI-X table is then refused by the memory core
 * instead of entering the device in the middle of an event.
 */
static void mrpsim_event_write(MrpsimState *s, const MrpsimPendingEvent *e)
{
    MrpsimQueue *q = &s->evq;
    struct mrpsim_event ev;

    if (!q->en || q->halted) {
        trace_mrpsim_event_lost(e->type, q->en, q->halted);
        if (q->en) {
            s->evq_drops++;
        }
        return;
    }
    if (((q->head + 1) & (q->size - 1)) == q->tail) {
        s->evq_drops++;
        /* EVQ_FULL raises no event: there is no room for one */
        mrpsim_set_error(s, MRPSIM_ERR_EVQ_FULL, MRPSIM_NONE, q->head);
        return;
    }
    memset(&ev, 0, sizeof(ev));
    ev.type = e->type;
    ev.flags = MRPSIM_EV_F_VALID;
    ev.port = e->port;
    ev.ring = e->ring;
    ev.data = cpu_to_le32(e->data);
    ev.ts = cpu_to_le64(e->ts);
    if (pci_dma_write(PCI_DEVICE(s), q->base + q->head * MRPSIM_EVENT_SIZE,
                      &ev, sizeof(ev)) != MEMTX_OK) {
        /*
         * The queue halts; an ERROR event could not be written either.
         * Signal the vector all the same: the driver finds no event,
         * sees EVQ_CTRL.HALTED and restarts the queue.  Else loss
         * reports would stop for good with nothing to tell why.
         */
        s->evq_drops++;
        q->halted = true;
        mrpsim_set_error(s, MRPSIM_ERR_DMA, MRPSIM_NONE, q->head);
        mrpsim_irq_raise(s, MRPSIM_VEC_EVENT);
        return;
    }
    q->head = (q->head + 1) & (q->size - 1);
    mrpsim_irq_raise(s, MRPSIM_VEC_EVENT);
}

/* Write the pending events, oldest first; guard engaged. */
static void mrpsim_event_flush(MrpsimState *s)
{
    MrpsimPendingEvent e;

    while (s->evpend_count) {
        e = s->evpend[s->evpend_head];
        s->evpend_head = (s->evpend_head + 1) % MRPSIM_EVPEND_LEN;
        s->evpend_count--;
        mrpsim_event_write(s, &e);
    }
}

static void mrpsim_evq_bh(void *opaque)
{
    mrpsim_event_flush(opaque);
}

/*
 * Raise an event.  Where the device's re-entrancy guard is engaged (its
 * MMIO handlers, its NICs' receive path, its guarded bottom halves) the
 * event is written at once.  Elsewhere (the MRP timer, set_link, a link
 * partner's register write or reset) it waits, with its timestamp, for
 * evq_bh, a guarded bottom half of the same main loop; the order of events
 * is kept.
 */
void mrpsim_event(MrpsimState *s, uint8_t type, uint8_t port, uint8_t ring,
                  uint32_t data)
{
    MrpsimPendingEvent *e;

    trace_mrpsim_event(type, port, ring, data);
    if (!s->evq.en) {
        trace_mrpsim_event_lost(type, false, s->evq.halted);
        return;
    }
    if (s->evpend_count == MRPSIM_EVPEND_LEN) {
        s->evq_drops++;
        mrpsim_set_error(s, MRPSIM_ERR_EVQ_FULL, MRPSIM_NONE, s->evq.head);
        return;
    }
    e = &s->evpend[(s->evpend_head + s->evpend_count) % MRPSIM_EVPEND_LEN];
    e->type = type;
    e->port = port;
    e->ring = ring;
    e->data = data;
    e->ts = mrpsim_clock_ns();
    s->evpend_count++;
    if (DEVICE(s)->mem_reentrancy_guard.engaged_in_io) {
        mrpsim_event_flush(s);
    } else {
        qemu_bh_schedule(s->evq_bh);
    }
}

void mrpsim_error(MrpsimState *s, unsigned int code, unsigned int port,
                  unsigned int index)
{
    mrpsim_set_error(s, code, port, index);
    if (code != MRPSIM_ERR_EVQ_FULL) {
        mrpsim_event(s, MRPSIM_EV_ERROR, port, MRPSIM_NONE, s->err_info);
    }
}

/* ---- Queues ---- */

static bool mrpsim_queue_size_ok(uint32_t size)
{
    return size >= MRPSIM_RING_MIN && size <= MRPSIM_RING_MAX &&
           is_power_of_2(size);
}

static void mrpsim_queue_reset(MrpsimQueue *q)
{
    memset(q, 0, sizeof(*q));
}

static uint32_t mrpsim_queue_read(MrpsimQueue *q, hwaddr off)
{
    switch (off) {
    case MRPSIM_Q_BASE_LO:
        return q->base_reg;
    case MRPSIM_Q_BASE_HI:
        return q->base_reg >> 32;
    case MRPSIM_Q_SIZE:
        return q->size_reg;
    case MRPSIM_Q_HEAD:
        return q->head;
    case MRPSIM_Q_TAIL:
        return q->tail;
    case MRPSIM_Q_CTRL:
        return (q->en ? MRPSIM_Q_CTRL_EN : 0) |
               (q->halted ? MRPSIM_Q_CTRL_HALTED : 0);
    }
    return 0;
}

/*
 * Write one queue register; returns true when TAIL was written (a
 * doorbell).  @port is MRPSIM_NONE for the event queue.
 */
static bool mrpsim_queue_write(MrpsimState *s, MrpsimQueue *q,
                               unsigned int port, hwaddr off, uint32_t val)
{
    uint32_t limit;

    switch (off) {
    case MRPSIM_Q_BASE_LO:
        q->base_reg = deposit64(q->base_reg, 0, 32, val);
        return false;
    case MRPSIM_Q_BASE_HI:
        q->base_reg = deposit64(q->base_reg, 32, 32, val);
        return false;
    case MRPSIM_Q_SIZE:
        q->size_reg = val;
        return false;
    case MRPSIM_Q_TAIL:
        limit = q->en ? q->size : q->size_reg;
        if (val >= limit) {
            mrpsim_error(s, MRPSIM_ERR_INDEX, port, val);
            return false;
        }
        q->tail = val;
        return true;
    case MRPSIM_Q_CTRL:
        if (!(val & MRPSIM_Q_CTRL_EN)) {
            q->en = false;
            q->halted = false;
            trace_mrpsim_queue_disable(port);
            return false;
        }
        if (q->en) {
            return false;
        }
        if (!q->base_reg || (q->base_reg & (MRPSIM_RING_ALIGN - 1)) ||
            !mrpsim_queue_size_ok(q->size_reg) ||
            q->base_reg + (uint64_t)q->size_reg * MRPSIM_DESC_SIZE <
            q->base_reg) {
            mrpsim_error(s, MRPSIM_ERR_RING, port, 0);
            return false;
        }
        q->base = q->base_reg;
        q->size = q->size_reg;
        q->head = 0;
        q->tail = 0;
        q->halted = false;
        q->en = true;
        trace_mrpsim_queue_enable(port, q->base, q->size);
        return false;
    }
    return false;
}

static void mrpsim_queue_halt(MrpsimState *s, MrpsimQueue *q,
                              unsigned int port)
{
    q->halted = true;
    mrpsim_error(s, MRPSIM_ERR_DMA, port, q->head);
}

static bool mrpsim_dma_range_ok(uint64_t addr, uint64_t len)
{
    return addr + len >= addr;
}

/* ---- Ports: wire side ---- */

static bool mrpsim_is_mrp(const uint8_t *buf, size_t len)
{
    return len >= MRPSIM_ETH_HLEN && lduw_be_p(buf + 12) == MRPSIM_ETH_P_MRP;
}

/*
 * IEEE 802.1Q's reserved group addresses 01-80-C2-00-00-00..0F (STP, LLDP,
 * 802.1X, ...) are link-local: a bridge never forwards them, and a port
 * in blocking state still exchanges them with its CPU, as the Linux
 * bridge does and as PROFINET needs LLDP on a ring's blocked port.
 */
static bool mrpsim_is_link_local(const uint8_t *buf, size_t len)
{
    static const uint8_t base[5] = { 0x01, 0x80, 0xc2, 0x00, 0x00 };

    return len >= MRPSIM_ETH_HLEN && !memcmp(buf, base, sizeof(base)) &&
           !(buf[5] & 0xf0);
}

/* Put a frame on the wire of port @p; counts it, or the drop. */
bool mrpsim_port_xmit(MrpsimPort *p, const uint8_t *buf, size_t len)
{
    if (!p->link) {
        p->cnt[MRPSIM_CNT_TX_DROP_LINK]++;
        trace_mrpsim_drop(p->idx, len, "tx link down");
        return false;
    }
    p->cnt[MRPSIM_CNT_TX_FRAMES]++;
    p->cnt[MRPSIM_CNT_TX_BYTES] += len;
    trace_mrpsim_tx_frame(p->idx, len);
    qemu_send_packet(qemu_get_queue(p->nic), buf, len);
    return true;
}

/* Deliver a frame to the CPU on port @p's RX ring. */
void mrpsim_rx_to_cpu(MrpsimPort *p, const uint8_t *buf, size_t len,
                      uint16_t flags, uint8_t ring)
{
    MrpsimState *s = p->s;
    PCIDevice *pci = PCI_DEVICE(s);
    MrpsimQueue *q = &p->rxq;
    struct mrpsim_desc d;
    uint64_t daddr, addr;
    uint16_t blen;
    uint8_t wb[8];

    p->cnt[MRPSIM_CNT_RX_CPU]++;
    if (!q->en || q->halted || q->head == q->tail) {
        p->cnt[MRPSIM_CNT_RX_DROP_NOBUF]++;
        trace_mrpsim_drop(p->idx, len, "rx no buffer");
        return;
    }
    daddr = q->base + (uint64_t)q->head * MRPSIM_DESC_SIZE;
    if (pci_dma_read(pci, daddr, &d, sizeof(d)) != MEMTX_OK) {
        p->cnt[MRPSIM_CNT_RX_ERR]++;
        mrpsim_queue_halt(s, q, p->idx);
        return;
    }
    addr = le64_to_cpu(d.addr);
    blen = le16_to_cpu(d.len);
    if (blen < MRPSIM_RX_BUF_MIN) {
        /* unusable buffer: complete it with ERR so the ring moves on */
        p->cnt[MRPSIM_CNT_RX_ERR]++;
        mrpsim_error(s, MRPSIM_ERR_LEN, p->idx, q->head);
        stw_le_p(wb, 0);
        stw_le_p(wb + 2, MRPSIM_DESC_DONE | MRPSIM_DESC_ERR);
        stl_le_p(wb + 4, MRPSIM_NONE);
    } else if (len > blen) {
        /* the frame is dropped; the buffer stays for the next one */
        p->cnt[MRPSIM_CNT_RX_ERR]++;
        trace_mrpsim_drop(p->idx, len, "rx frame larger than buffer");
        return;
    } else {
        if (!mrpsim_dma_range_ok(addr, len) ||
            pci_dma_write(pci, addr, buf, len) != MEMTX_OK) {
            p->cnt[MRPSIM_CNT_RX_ERR]++;
            mrpsim_queue_halt(s, q, p->idx);
            return;
        }
        stw_le_p(wb, len);
        stw_le_p(wb + 2, MRPSIM_DESC_DONE | flags);
        stl_le_p(wb + 4, ring);
    }
    if (pci_dma_write(pci, daddr + 8, wb, sizeof(wb)) != MEMTX_OK) {
        p->cnt[MRPSIM_CNT_RX_ERR]++;
        mrpsim_queue_halt(s, q, p->idx);
        return;
    }
    trace_mrpsim_rx_desc(p->idx, q->head, len, lduw_le_p(wb + 2), ring);
    q->head = (q->head + 1) & (q->size - 1);
    mrpsim_irq_raise(s, MRPSIM_VEC_PORT(p->idx));
}

static ssize_t mrpsim_receive(NetClientState *nc, const uint8_t *buf,
                              size_t size)
{
    MrpsimPort *p = qemu_get_nic_opaque(nc);
    uint16_t flags;
    bool mrp;

    /* Accept everything: a refused frame would be queued by the net core. */
    p->cnt[MRPSIM_CNT_RX_FRAMES]++;
    p->cnt[MRPSIM_CNT_RX_BYTES] += size;
    trace_mrpsim_rx_frame(p->idx, size);

    if (!mrpsim_port_up(p)) {
        p->cnt[MRPSIM_CNT_RX_DROP_DISABLED]++;
        trace_mrpsim_drop(p->idx, size, "rx port disabled");
        return size;
    }
    if (size < MRPSIM_ETH_HLEN || size > MRPSIM_MAX_FRAME_LEN) {
        p->cnt[MRPSIM_CNT_RX_ERR]++;
        trace_mrpsim_drop(p->idx, size, "rx bad frame length");
        return size;
    }
    mrp = mrpsim_is_mrp(buf, size);
    if (mrp) {
        /* the MRP engine's, or the CPU's: never L2 forwarded */
        if (!p->s->mrp || !mrpsim_mrp_receive(p, buf, size)) {
            mrpsim_rx_to_cpu(p, buf, size, MRPSIM_DESC_MRP, MRPSIM_NONE);
        }
        return size;
    }
    if (mrpsim_l2_receive(p, buf, size, mrpsim_is_link_local(buf, size),
                          &flags)) {
        mrpsim_rx_to_cpu(p, buf, size, flags, MRPSIM_NONE);
    }
    return size;
}

static NetClientInfo mrpsim_net_info;

/* ---- Ports: link ---- */

/*
 * A cable between two ports in one QEMU is a hub of two hubports, each the
 * peer of one port (tests/vm.py, qemu-dev/README.md).  A real port powers
 * its PHY down while it is disabled, and the port at the other end of the
 * cable loses its link: so on such a cable a port has link only while the
 * far port is enabled (PORT_CTRL.EN) and plugged in.  Any other backend
 * (tap, socket, a hub of more ports) gives its own link as it is.
 */

/*
 * Whether @p's cable is a hub of two hubports; if so, *@far is what the
 * far hubport is connected to, NULL once that side was unplugged.
 */
static bool mrpsim_cable_far_end(MrpsimPort *p, NetClientState **far)
{
    g_autofree NetClientState **ncs = NULL;
    NetClientState *hp;
    int hub, id, n, i, ends = 0;

    if (!p->nic) {
        return false;
    }
    hp = qemu_get_queue(p->nic)->peer;
    if (!hp || hp->info->type != NET_CLIENT_DRIVER_HUBPORT ||
        net_hub_id_for_client(hp, &hub)) {
        return false;
    }
    n = qemu_find_net_clients_except(NULL, NULL, NET_CLIENT_DRIVER_NIC, 0);
    ncs = g_new(NetClientState *, n);
    n = qemu_find_net_clients_except(NULL, ncs, NET_CLIENT_DRIVER_NIC, n);
    for (i = 0; i < n; i++) {
        if (ncs[i] != hp && ncs[i]->info->type == NET_CLIENT_DRIVER_HUBPORT &&
            !net_hub_id_for_client(ncs[i], &id) && id == hub) {
            *far = ncs[i]->peer;
            ends++;
        }
    }
    return ends == 1;
}

/*
 * Whether the far end of @p's cable has its PHY on; *@partner is set to
 * the far port when it is an mrpsim port, else to NULL.
 */
static bool mrpsim_far_end_on(MrpsimPort *p, MrpsimPort **partner)
{
    NetClientState *far = NULL;

    *partner = NULL;
    if (!mrpsim_cable_far_end(p, &far)) {
        return true;
    }
    if (!far) {
        return false;           /* unplugged */
    }
    if (far->info != &mrpsim_net_info) {
        return true;            /* another NIC: its link is not modelled */
    }
    *partner = qemu_get_nic_opaque(far);
    return (*partner)->ctrl & MRPSIM_PORT_CTRL_EN;
}

static bool mrpsim_link_now(MrpsimPort *p)
{
    NetClientState *nc;
    MrpsimPort *partner;

    if (!p->nic) {
        return false;   /* no backend: link down for ever */
    }
    nc = qemu_get_queue(p->nic);
    return nc->peer && !nc->link_down && mrpsim_far_end_on(p, &partner);
}

/* Recompute @p's link; a change raises a LINK event. */
static void mrpsim_link_update(MrpsimPort *p)
{
    bool up = mrpsim_link_now(p);

    if (up == p->link) {
        return;
    }
    p->link = up;
    trace_mrpsim_link(mrpsim_id(p->s), p->idx, up, mrpsim_clock_ns());
    mrpsim_event(p->s, MRPSIM_EV_LINK, p->idx, MRPSIM_NONE, up);
}

/* @p was enabled or disabled: its link partner sees the link follow. */
static void mrpsim_partner_update(MrpsimPort *p)
{
    MrpsimPort *partner;

    mrpsim_far_end_on(p, &partner);
    if (partner) {
        mrpsim_link_update(partner);
    }
}

static void mrpsim_link_status_changed(NetClientState *nc)
{
    mrpsim_link_update(qemu_get_nic_opaque(nc));
}

static NetClientInfo mrpsim_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = mrpsim_receive,
    .link_status_changed = mrpsim_link_status_changed,
};

/* ---- Hardware forwarding ---- */

/*
 * A forwarded frame leaves port @out, unchanged, if it is enabled; a data
 * frame (the MRP engine's frames pass any block state) only if the port
 * is forwarding as well, which a queued frame checks when it leaves.
 */
static void mrpsim_fwd_xmit(MrpsimState *s, unsigned int in, unsigned int out,
                            const uint8_t *buf, size_t len)
{
    MrpsimPort *p = &s->port[out];

    trace_mrpsim_fwd(in, out, len);
    if (!mrpsim_port_up(p) ||
        (!mrpsim_is_mrp(buf, len) && mrpsim_port_blocking(p))) {
        p->cnt[MRPSIM_CNT_TX_DROP_BLOCKED]++;
        trace_mrpsim_drop(p->idx, len, "fwd port disabled");
        return;
    }
    mrpsim_port_xmit(p, buf, len);
}

/*
 * Forward a frame out of port @out.  It leaves at once, from the receive
 * path, as a switch ASIC forwards it within microseconds: round a ring of
 * switches in one QEMU the whole trip happens in the call that sent the
 * frame.  Each hop through a bottom half instead cost a turn of QEMU's
 * main loop, 17 us median on 14 switches under TCG but at times more
 * than an interval, so that a manager testing every 500 us counted its
 * frames missing three times in a row on a closed ring.
 *
 * A frame that circles for ever (a ring with no manager to stop it) must
 * not hang QEMU.  The net layer turns the recursion into a loop: when the
 * frame comes back to a cable it is still being delivered on, it is queued
 * there and sent when that delivery returns.  So a switch forwards at most
 * MRPSIM_FWD_BURST frames at once per turn of the main loop, and queues
 * the rest for its bottom half, which ends the burst; it also queues while
 * it is forwarding already, or has frames queued (their order is kept).
 * A frame that finds the queue full is counted in @drop_cnt of @in.
 */
bool mrpsim_fwd(MrpsimPort *in, unsigned int out, const uint8_t *buf,
                size_t len, unsigned int drop_cnt)
{
    MrpsimState *s = in->s;
    MrpsimFwd *f;

    if (!s->fwd_busy && !s->fwd_count && s->fwd_burst < MRPSIM_FWD_BURST) {
        s->fwd_burst++;
        qemu_bh_schedule(s->fwd_bh);
        s->fwd_busy = true;
        mrpsim_fwd_xmit(s, in->idx, out, buf, len);
        s->fwd_busy = false;
        return true;
    }
    if (s->fwd_count == MRPSIM_FWDQ_LEN) {
        in->cnt[drop_cnt]++;
        trace_mrpsim_drop(in->idx, len, "forwarding queue full");
        return false;
    }
    f = &s->fwdq[(s->fwd_head + s->fwd_count) % MRPSIM_FWDQ_LEN];
    f->in = in->idx;
    f->out = out;
    f->len = len;
    memcpy(f->buf, buf, len);
    s->fwd_count++;
    qemu_bh_schedule(s->fwd_bh);
    return true;
}

static void mrpsim_fwd_bh(void *opaque)
{
    MrpsimState *s = opaque;
    unsigned int n = s->fwd_count;
    MrpsimFwd *f;

    /* only what was queued before this run: sending can queue more */
    s->fwd_burst = 0;
    s->fwd_busy = true;
    while (n-- && s->fwd_count) {
        f = &s->fwdq[s->fwd_head];
        mrpsim_fwd_xmit(s, f->in, f->out, f->buf, f->len);
        s->fwd_head = (s->fwd_head + 1) % MRPSIM_FWDQ_LEN;
        s->fwd_count--;
    }
    s->fwd_busy = false;
    if (s->fwd_count) {
        qemu_bh_schedule(s->fwd_bh);
    }
}

/* ---- Ports: CPU side ---- */

static void mrpsim_tx_frame(MrpsimPort *p, const uint8_t *buf, size_t len)
{
    if (!mrpsim_port_up(p) ||
        (mrpsim_port_blocking(p) && !mrpsim_is_mrp(buf, len) &&
         !mrpsim_is_link_local(buf, len))) {
        p->cnt[MRPSIM_CNT_TX_DROP_BLOCKED]++;
        trace_mrpsim_drop(p->idx, len, "tx port blocking or disabled");
        return;
    }
    mrpsim_port_xmit(p, buf, len);
}

static void mrpsim_tx_process(MrpsimPort *p)
{
    MrpsimState *s = p->s;
    PCIDevice *pci = PCI_DEVICE(s);
    MrpsimQueue *q = &p->txq;
    uint8_t buf[MRPSIM_MAX_FRAME_LEN];
    struct mrpsim_desc d;
    uint64_t daddr, addr;
    uint16_t len, status;
    unsigned int done = 0;

    while (q->en && !q->halted && q->head != q->tail && done < q->size) {
        daddr = q->base + (uint64_t)q->head * MRPSIM_DESC_SIZE;
        if (pci_dma_read(pci, daddr, &d, sizeof(d)) != MEMTX_OK) {
            p->cnt[MRPSIM_CNT_TX_ERR]++;
            mrpsim_queue_halt(s, q, p->idx);
            break;
        }
        addr = le64_to_cpu(d.addr);
        len = le16_to_cpu(d.len);
        status = MRPSIM_DESC_DONE;
        trace_mrpsim_tx_desc(p->idx, q->head, addr, len);
        if (len < MRPSIM_MIN_FRAME_LEN || len > MRPSIM_MAX_FRAME_LEN) {
            p->cnt[MRPSIM_CNT_TX_ERR]++;
            status |= MRPSIM_DESC_ERR;
            mrpsim_error(s, MRPSIM_ERR_LEN, p->idx, q->head);
        } else if (!mrpsim_dma_range_ok(addr, len) ||
                   pci_dma_read(pci, addr, buf, len) != MEMTX_OK) {
            p->cnt[MRPSIM_CNT_TX_ERR]++;
            mrpsim_queue_halt(s, q, p->idx);
            break;
        } else {
            mrpsim_tx_frame(p, buf, len);
        }
        d.status = cpu_to_le16(status);
        if (pci_dma_write(pci, daddr + offsetof(struct mrpsim_desc, status),
                          &d.status, sizeof(d.status)) != MEMTX_OK) {
            mrpsim_queue_halt(s, q, p->idx);
            break;
        }
        q->head = (q->head + 1) & (q->size - 1);
        done++;
    }
    if (done) {
        mrpsim_irq_raise(s, MRPSIM_VEC_PORT(p->idx));
    }
}

/* ---- Registers ---- */

static uint32_t mrpsim_cap(MrpsimState *s)
{
    uint32_t cap = s->nports | MRPSIM_CAP_L2;

    if (s->mrp) {
        cap |= s->nrings << MRPSIM_CAP_RINGS_SHIFT;
        cap |= MRPSIM_CAP_MRP;
        if (s->mra) {
            cap |= MRPSIM_CAP_MRA;
        }
        cap |= MRPSIM_CAP_ASSIST | MRPSIM_CAP_IN;
    }
    return cap;
}

static uint32_t mrpsim_global_read(MrpsimState *s, hwaddr addr)
{
    uint64_t now;

    switch (addr) {
    case MRPSIM_REG_ID:
        return MRPSIM_ID;
    case MRPSIM_REG_VERSION:
        return MRPSIM_VERSION_MAJOR << MRPSIM_VERSION_MAJOR_SHIFT |
               MRPSIM_VERSION_MINOR;
    case MRPSIM_REG_CAP:
        return mrpsim_cap(s);
    case MRPSIM_REG_ERR_STATUS:
        return s->err_status;
    case MRPSIM_REG_ERR_INFO:
        return s->err_info;
    case MRPSIM_REG_IRQ_PENDING:
        return s->irq_pending;
    case MRPSIM_REG_IRQ_MASK:
        return s->irq_mask;
    case MRPSIM_REG_CLOCK_LO:
        now = mrpsim_clock_ns();
        s->clock_hi = now >> 32;
        return now;
    case MRPSIM_REG_CLOCK_HI:
        return s->clock_hi;
    case MRPSIM_REG_MAC_LO:
        return ldl_le_p(s->base_mac);
    case MRPSIM_REG_MAC_HI:
        return lduw_le_p(s->base_mac + 4);
    case MRPSIM_REG_EVQ_DROPS:
        return s->evq_drops;
    }
    if (addr >= MRPSIM_REG_EVQ_BASE_LO && addr <= MRPSIM_REG_EVQ_CTRL) {
        return mrpsim_queue_read(&s->evq, addr - MRPSIM_REG_EVQ_BASE_LO);
    }
    return mrpsim_l2_read(s, addr);
}

static uint32_t mrpsim_port_read(MrpsimPort *p, hwaddr off)
{
    unsigned int i;

    if (off >= MRPSIM_PORT_CNT_BASE &&
        off < MRPSIM_PORT_CNT(MRPSIM_PORT_NUM_COUNTERS)) {
        i = (off - MRPSIM_PORT_CNT_BASE) / 8;
        if (off & 4) {
            return p->s->cnt_hi;
        }
        p->s->cnt_hi = p->cnt[i] >> 32;
        return p->cnt[i];
    }
    if (off < MRPSIM_PORT_RXQ) {
        return mrpsim_queue_read(&p->txq, off - MRPSIM_PORT_TXQ);
    }
    if (off < MRPSIM_PORT_CTRL) {
        return mrpsim_queue_read(&p->rxq, off - MRPSIM_PORT_RXQ);
    }
    switch (off) {
    case MRPSIM_PORT_CTRL:
        return p->ctrl;
    case MRPSIM_PORT_STATUS:
        return p->link ? MRPSIM_PORT_STATUS_LINK : 0;
    case MRPSIM_PORT_MAC_LO:
        return ldl_le_p(p->mac);
    case MRPSIM_PORT_MAC_HI:
        return lduw_le_p(p->mac + 4);
    case MRPSIM_PORT_FWD_MASK:
        return p->fwd_mask;
    case MRPSIM_PORT_FLOOD_LIMIT:
        return p->flood_limit;
    }
    return 0;
}

static uint64_t mrpsim_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    MrpsimState *s = opaque;
    hwaddr pbase = MRPSIM_PORT_BASE(0);
    uint32_t val = 0;

    if (addr < pbase) {
        val = mrpsim_global_read(s, addr);
    } else if (addr < pbase + s->nports * MRPSIM_PORT_BLOCK) {
        val = mrpsim_port_read(&s->port[(addr - pbase) / MRPSIM_PORT_BLOCK],
                               (addr - pbase) % MRPSIM_PORT_BLOCK);
    } else if (addr >= MRPSIM_MRP_BASE(0) &&
               addr < MRPSIM_MRP_BASE(MRPSIM_MAX_RINGS)) {
        val = mrpsim_mrp_read(s, addr);
    }
    trace_mrpsim_reg_read(addr, val);
    return val;
}

static void mrpsim_reset_state(MrpsimState *s);

static void mrpsim_global_write(MrpsimState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case MRPSIM_REG_CTRL:
        if (val & MRPSIM_CTRL_RESET) {
            mrpsim_reset_state(s);
        }
        return;
    case MRPSIM_REG_ERR_STATUS:
        s->err_status &= ~val;
        return;
    case MRPSIM_REG_IRQ_MASK_SET:
        s->irq_mask |= val & mrpsim_vec_mask(s);
        return;
    case MRPSIM_REG_IRQ_MASK_CLR:
        s->irq_mask &= ~val;
        mrpsim_irq_update(s);
        return;
    case MRPSIM_REG_EVQ_BASE_LO:
    case MRPSIM_REG_EVQ_BASE_HI:
    case MRPSIM_REG_EVQ_SIZE:
    case MRPSIM_REG_EVQ_TAIL:
    case MRPSIM_REG_EVQ_CTRL:
        mrpsim_queue_write(s, &s->evq, MRPSIM_NONE,
                           addr - MRPSIM_REG_EVQ_BASE_LO, val);
        return;
    }
    if (!mrpsim_l2_write(s, addr, val)) {
        trace_mrpsim_reg_ignored(addr, val);
    }
}

static void mrpsim_port_write(MrpsimPort *p, hwaddr addr, hwaddr off,
                              uint32_t val)
{
    MrpsimState *s = p->s;
    uint32_t state, en;

    if (off < MRPSIM_PORT_RXQ) {
        if (off == MRPSIM_Q_HEAD) {
            trace_mrpsim_reg_ignored(addr, val);
        } else if (mrpsim_queue_write(s, &p->txq, p->idx,
                                      off - MRPSIM_PORT_TXQ, val)) {
            mrpsim_tx_process(p);
        }
        return;
    }
    if (off < MRPSIM_PORT_CTRL) {
        if (off - MRPSIM_PORT_RXQ == MRPSIM_Q_HEAD) {
            trace_mrpsim_reg_ignored(addr, val);
        } else {
            mrpsim_queue_write(s, &p->rxq, p->idx, off - MRPSIM_PORT_RXQ,
                               val);
        }
        return;
    }
    switch (off) {
    case MRPSIM_PORT_CTRL:
        state = (val & MRPSIM_PORT_CTRL_STATE_MASK) >>
                MRPSIM_PORT_CTRL_STATE_SHIFT;
        if (state > MRPSIM_PSTATE_LEARNING) {
            mrpsim_error(s, MRPSIM_ERR_REG, p->idx, addr);
            return;
        }
        en = p->ctrl & MRPSIM_PORT_CTRL_EN;
        p->ctrl = val & MRPSIM_PORT_CTRL_RW;
        trace_mrpsim_port_ctrl(mrpsim_id(s), p->idx,
                               !!(p->ctrl & MRPSIM_PORT_CTRL_EN), state,
                               mrpsim_clock_ns());
        if (en != (p->ctrl & MRPSIM_PORT_CTRL_EN)) {
            mrpsim_partner_update(p);
        }
        return;
    case MRPSIM_PORT_MAC_LO:
        stl_le_p(p->mac, val);
        return;
    case MRPSIM_PORT_MAC_HI:
        stw_le_p(p->mac + 4, val);
        return;
    case MRPSIM_PORT_FWD_MASK:
        /* bits of ports the switch does not have read as 0 */
        p->fwd_mask = val & ((1u << s->nports) - 1);
        return;
    case MRPSIM_PORT_FLOOD_LIMIT:
        if (val > MRPSIM_FLOOD_LIMIT_MAX) {
            mrpsim_error(s, MRPSIM_ERR_REG, p->idx, addr);
            return;
        }
        p->flood_limit = val;
        mrpsim_l2_flood_reset(p);
        return;
    }
    trace_mrpsim_reg_ignored(addr, val);
}

static void mrpsim_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    MrpsimState *s = opaque;
    hwaddr pbase = MRPSIM_PORT_BASE(0);

    trace_mrpsim_reg_write(addr, val);
    if (addr < pbase) {
        mrpsim_global_write(s, addr, val);
    } else if (addr < pbase + s->nports * MRPSIM_PORT_BLOCK) {
        mrpsim_port_write(&s->port[(addr - pbase) / MRPSIM_PORT_BLOCK], addr,
                          (addr - pbase) % MRPSIM_PORT_BLOCK, val);
    } else if (addr >= MRPSIM_MRP_BASE(0) &&
               addr < MRPSIM_MRP_BASE(MRPSIM_MAX_RINGS)) {
        mrpsim_mrp_write(s, addr, val);
    } else {
        trace_mrpsim_reg_ignored(addr, val);
    }
}

static const MemoryRegionOps mrpsim_mmio_ops = {
    .read = mrpsim_mmio_read,
    .write = mrpsim_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        /* 64-bit accesses are split, low half first */
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- Reset, realize ---- */

/*
 * The VM runs (again): after a migration the ports carry the link the
 * guest last saw, and the backends here may say otherwise (QEMU does not
 * migrate a netdev's link, nor is a link partner loaded before this
 * device).  Any difference raises its LINK event now, when every device is
 * loaded.  Otherwise the links are current and this changes nothing.
 */
static void mrpsim_vm_state_change(void *opaque, bool running,
                                   RunState state)
{
    MrpsimState *s = opaque;
    unsigned int i;

    if (!running) {
        return;
    }
    for (i = 0; i < s->nports; i++) {
        mrpsim_link_update(&s->port[i]);
    }
}

static void mrpsim_reset_state(MrpsimState *s)
{
    PCIDevice *pci = PCI_DEVICE(s);
    unsigned int i, v;
    uint64_t mac = mrpsim_mac_to_u64(s->base_mac);

    trace_mrpsim_reset();
    mrpsim_mrp_reset(s);
    mrpsim_l2_reset(s);
    qemu_bh_cancel(s->fwd_bh);
    s->fwd_head = 0;
    s->fwd_count = 0;
    s->fwd_burst = 0;
    qemu_bh_cancel(s->evq_bh);
    s->evpend_head = 0;
    s->evpend_count = 0;

    mrpsim_queue_reset(&s->evq);
    s->evq_drops = 0;
    s->err_status = 0;
    s->err_info = 0;
    s->irq_pending = 0;
    s->irq_mask = mrpsim_vec_mask(s);
    s->clock_hi = 0;
    s->cnt_hi = 0;
    if (msix_present(pci)) {
        for (v = 0; v < MRPSIM_NUM_VECS(s->nports); v++) {
            msix_clr_pending(pci, v);
        }
    }

    for (i = 0; i < s->nports; i++) {
        MrpsimPort *p = &s->port[i];

        mrpsim_queue_reset(&p->txq);
        mrpsim_queue_reset(&p->rxq);
        p->ctrl = MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_FLOOD_ALL |
                  MRPSIM_PSTATE_FORWARDING << MRPSIM_PORT_CTRL_STATE_SHIFT;
        p->fwd_mask = 0;
        p->flood_limit = MRPSIM_FLOOD_LIMIT_DEFAULT;
        mrpsim_l2_flood_reset(p);
        mrpsim_u64_to_mac(p->mac, mac + i);
        memset(p->cnt, 0, sizeof(p->cnt));
        p->link = mrpsim_link_now(p);
        mrpsim_partner_update(p);
    }
}

static void mrpsim_qdev_reset(DeviceState *dev)
{
    mrpsim_reset_state(MRPSIM(dev));
}

static void mrpsim_realize(PCIDevice *pci, Error **errp)
{
    MrpsimState *s = MRPSIM(pci);
    DeviceState *dev = DEVICE(pci);
    static const uint8_t def_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x00 };
    uint64_t mac;
    unsigned int i, j, v;

    if (s->nports < MRPSIM_MIN_PORTS || s->nports > MRPSIM_MAX_PORTS) {
        error_setg(errp, "mrpsim: ports must be between %d and %d",
                   MRPSIM_MIN_PORTS, MRPSIM_MAX_PORTS);
        return;
    }
    if (s->nrings < 1 || s->nrings > MRPSIM_MAX_RINGS) {
        error_setg(errp, "mrpsim: rings must be between 1 and %d",
                   MRPSIM_MAX_RINGS);
        return;
    }
    for (i = s->nports; i < MRPSIM_MAX_PORTS; i++) {
        if (s->port[i].conf.peers.ncs[0]) {
            error_setg(errp, "mrpsim: netdev%u set but the switch has only "
                       "%u ports", i, s->nports);
            return;
        }
    }
    /*
     * The netdev property only refuses a backend that is connected already:
     * two ports of one switch given the same one would both connect to it
     * in qemu_new_nic(), and the net core asserts on the second.
     */
    for (i = 0; i < s->nports; i++) {
        NetClientState *nc = s->port[i].conf.peers.ncs[0];

        for (j = 0; nc && j < i; j++) {
            if (s->port[j].conf.peers.ncs[0] == nc) {
                error_setg(errp, "mrpsim: netdev%u and netdev%u are both "
                           "'%s': a backend serves one port", j, i, nc->name);
                return;
            }
        }
    }

    pci->config[PCI_INTERRUPT_PIN] = 0;     /* MSI-X only */
    memory_region_init_io(&s->mmio, OBJECT(s), &mrpsim_mmio_ops, s,
                          "mrpsim-mmio", MRPSIM_BAR_SIZE);
    pci_register_bar(pci, MRPSIM_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    if (msix_init_exclusive_bar(pci, MRPSIM_NUM_VECS(s->nports),
                                MRPSIM_BAR_MSIX, errp)) {
        return;
    }
    for (v = 0; v < MRPSIM_NUM_VECS(s->nports); v++) {
        msix_vector_use(pci, v);
    }

    /* Base MAC: the property, or 52:54:00:12:34:00 + 16 * PCI slot. */
    if (buffer_is_zero(s->mac.a, sizeof(s->mac.a))) {
        mrpsim_u64_to_mac(s->base_mac, mrpsim_mac_to_u64(def_mac) +
                          16 * PCI_SLOT(pci->devfn));
    } else {
        memcpy(s->base_mac, s->mac.a, 6);
    }
    mac = mrpsim_mac_to_u64(s->base_mac);

    s->fwd_bh = qemu_bh_new_guarded(mrpsim_fwd_bh, s,
                                    &dev->mem_reentrancy_guard);
    s->evq_bh = qemu_bh_new_guarded(mrpsim_evq_bh, s,
                                    &dev->mem_reentrancy_guard);
    for (i = 0; i < s->nports; i++) {
        MrpsimPort *p = &s->port[i];
        g_autofree char *name = NULL;

        p->s = s;
        p->idx = i;
        mrpsim_u64_to_mac(p->conf.macaddr.a, mac + i);
        if (!p->conf.peers.ncs[0]) {
            /* an unconnected port gets no NIC (nor a "no peer" warning) */
            continue;
        }
        if (dev->id) {
            name = g_strdup_printf("%s.p%u", dev->id, i);
        }
        p->nic = qemu_new_nic(&mrpsim_net_info, &p->conf,
                              object_get_typename(OBJECT(s)), name,
                              &dev->mem_reentrancy_guard, p);
        qemu_format_nic_info_str(qemu_get_queue(p->nic), p->conf.macaddr.a);
    }
    mrpsim_mrp_realize(s);
    mrpsim_l2_realize(s);
    mrpsim_reset_state(s);
    s->vmsc = qemu_add_vm_change_state_handler(mrpsim_vm_state_change, s);
}

static void mrpsim_exit(PCIDevice *pci)
{
    MrpsimState *s = MRPSIM(pci);
    unsigned int i;

    qemu_del_vm_change_state_handler(s->vmsc);
    mrpsim_mrp_unrealize(s);
    mrpsim_l2_unrealize(s);
    qemu_bh_delete(s->fwd_bh);
    qemu_bh_delete(s->evq_bh);
    for (i = 0; i < s->nports; i++) {
        MrpsimPort *partner;

        if (s->port[i].nic) {
            /* unplugged: the link partner loses its link */
            mrpsim_far_end_on(&s->port[i], &partner);
            qemu_del_nic(s->port[i].nic);
            s->port[i].nic = NULL;
            if (partner) {
                mrpsim_link_update(partner);
            }
        }
    }
    msix_unuse_all_vectors(pci);
    msix_uninit_exclusive_bar(pci);
}

/* ---- Migration ---- */

static bool mrpsim_queue_valid(MrpsimQueue *q)
{
    if (!q->en) {
        return !q->halted;
    }
    return mrpsim_queue_size_ok(q->size) && q->head < q->size &&
           q->tail < q->size && q->base &&
           !(q->base & (MRPSIM_RING_ALIGN - 1)) &&
           q->base + (uint64_t)q->size * MRPSIM_DESC_SIZE > q->base;
}

/* Never trust the incoming stream more than a guest register write. */
static int mrpsim_post_load(void *opaque, int version_id)
{
    MrpsimState *s = opaque;
    unsigned int i;

    if (!mrpsim_queue_valid(&s->evq) || s->fwd_count > MRPSIM_FWDQ_LEN ||
        s->fwd_head >= MRPSIM_FWDQ_LEN ||
        s->evpend_count > MRPSIM_EVPEND_LEN ||
        s->evpend_head >= MRPSIM_EVPEND_LEN) {
        return -EINVAL;
    }
    for (i = 0; i < s->fwd_count; i++) {
        MrpsimFwd *f = &s->fwdq[(s->fwd_head + i) % MRPSIM_FWDQ_LEN];

        if (f->in >= s->nports || f->out >= s->nports ||
            f->len < MRPSIM_MIN_FRAME_LEN || f->len > MRPSIM_MAX_FRAME_LEN) {
            return -EINVAL;
        }
    }
    for (i = 0; i < s->nports; i++) {
        MrpsimPort *p = &s->port[i];

        if (!mrpsim_queue_valid(&p->txq) || !mrpsim_queue_valid(&p->rxq) ||
            (p->ctrl & ~MRPSIM_PORT_CTRL_RW) ||
            ((p->ctrl & MRPSIM_PORT_CTRL_STATE_MASK) >>
             MRPSIM_PORT_CTRL_STATE_SHIFT) > MRPSIM_PSTATE_LEARNING ||
            (p->fwd_mask & ~((1u << s->nports) - 1)) ||
            p->flood_limit > MRPSIM_FLOOD_LIMIT_MAX) {
            return -EINVAL;
        }
        /* storm control starts afresh, with a full bucket */
        mrpsim_l2_flood_reset(p);
        /*
         * p->link is what the guest last saw; mrpsim_vm_state_change()
         * compares it with the backends here when the VM runs
         */
    }
    s->irq_mask &= mrpsim_vec_mask(s);
    s->irq_pending &= mrpsim_vec_mask(s);
    if (mrpsim_mrp_post_load(s) || mrpsim_l2_post_load(s)) {
        return -EINVAL;
    }
    if (s->fwd_count) {
        qemu_bh_schedule(s->fwd_bh);
    }
    if (s->evpend_count) {
        qemu_bh_schedule(s->evq_bh);
    }
    return 0;
}

/* What the subsections give when the stream has none. */
static int mrpsim_pre_load(void *opaque)
{
    MrpsimState *s = opaque;
    unsigned int i;

    for (i = 0; i < MRPSIM_MAX_PORTS; i++) {
        s->port[i].link = true;
    }
    s->evpend_head = 0;
    s->evpend_count = 0;
    return 0;
}

static const VMStateDescription mrpsim_vmstate_queue = {
    .name = "mrpsim/queue",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(base_reg, MrpsimQueue),
        VMSTATE_UINT32(size_reg, MrpsimQueue),
        VMSTATE_UINT64(base, MrpsimQueue),
        VMSTATE_UINT32(size, MrpsimQueue),
        VMSTATE_UINT32(head, MrpsimQueue),
        VMSTATE_UINT32(tail, MrpsimQueue),
        VMSTATE_BOOL(en, MrpsimQueue),
        VMSTATE_BOOL(halted, MrpsimQueue),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription mrpsim_vmstate_port = {
    .name = "mrpsim/port",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT(txq, MrpsimPort, 1, mrpsim_vmstate_queue, MrpsimQueue),
        VMSTATE_STRUCT(rxq, MrpsimPort, 1, mrpsim_vmstate_queue, MrpsimQueue),
        VMSTATE_UINT32(ctrl, MrpsimPort),
        VMSTATE_UINT8_ARRAY(mac, MrpsimPort, 6),
        VMSTATE_UINT32(fwd_mask, MrpsimPort),
        VMSTATE_UINT32(flood_limit, MrpsimPort),
        VMSTATE_UINT64_ARRAY(cnt, MrpsimPort, MRPSIM_PORT_NUM_COUNTERS),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription mrpsim_vmstate_fwd = {
    .name = "mrpsim/fwd",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT8(in, MrpsimFwd),
        VMSTATE_UINT8(out, MrpsimFwd),
        VMSTATE_UINT16(len, MrpsimFwd),
        VMSTATE_UINT8_ARRAY(buf, MrpsimFwd, MRPSIM_MAX_FRAME_LEN),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription mrpsim_vmstate_port_link = {
    .name = "mrpsim/port/link",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_BOOL(link, MrpsimPort),
        VMSTATE_END_OF_LIST()
    }
};

static bool mrpsim_link_needed(void *opaque)
{
    MrpsimState *s = opaque;
    unsigned int i;

    for (i = 0; i < s->nports; i++) {
        if (!s->port[i].link) {
            return true;
        }
    }
    return false;
}

/* The link each port last showed the guest; without it, all were up. */
static const VMStateDescription mrpsim_vmstate_link = {
    .name = "mrpsim/link",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = mrpsim_link_needed,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(port, MrpsimState, MRPSIM_MAX_PORTS, 1,
                             mrpsim_vmstate_port_link, MrpsimPort),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription mrpsim_vmstate_evpend_entry = {
    .name = "mrpsim/event",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT8(type, MrpsimPendingEvent),
        VMSTATE_UINT8(port, MrpsimPendingEvent),
        VMSTATE_UINT8(ring, MrpsimPendingEvent),
        VMSTATE_UINT32(data, MrpsimPendingEvent),
        VMSTATE_INT64(ts, MrpsimPendingEvent),
        VMSTATE_END_OF_LIST()
    }
};

static bool mrpsim_evpend_needed(void *opaque)
{
    MrpsimState *s = opaque;

    return s->evpend_count;
}

/* Events raised but not written yet (mrpsim_event()). */
static const VMStateDescription mrpsim_vmstate_evpend = {
    .name = "mrpsim/evpend",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = mrpsim_evpend_needed,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(evpend_head, MrpsimState),
        VMSTATE_UINT32(evpend_count, MrpsimState),
        VMSTATE_STRUCT_ARRAY(evpend, MrpsimState, MRPSIM_EVPEND_LEN, 1,
                             mrpsim_vmstate_evpend_entry,
                             MrpsimPendingEvent),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * Version 2: the port counters gained MRP_TICK_LATE.  Version 3: L2
 * forwarding (PORT_FWD_MASK, its counters, the FDB subsection).
 */
static const VMStateDescription mrpsim_vmstate = {
    .name = TYPE_MRPSIM,
    .version_id = 3,
    .minimum_version_id = 3,
    .pre_load = mrpsim_pre_load,
    .post_load = mrpsim_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, MrpsimState),
        VMSTATE_MSIX(parent_obj, MrpsimState),
        VMSTATE_UINT32_EQUAL(nports, MrpsimState, NULL),
        VMSTATE_UINT32_EQUAL(nrings, MrpsimState, NULL),
        VMSTATE_UINT8_ARRAY(base_mac, MrpsimState, 6),
        VMSTATE_STRUCT_ARRAY(port, MrpsimState, MRPSIM_MAX_PORTS, 1,
                             mrpsim_vmstate_port, MrpsimPort),
        VMSTATE_STRUCT_ARRAY(ring, MrpsimState, MRPSIM_MAX_RINGS, 1,
                             mrpsim_vmstate_ring, MrpsimRing),
        VMSTATE_STRUCT(evq, MrpsimState, 1, mrpsim_vmstate_queue,
                       MrpsimQueue),
        VMSTATE_UINT32(evq_drops, MrpsimState),
        VMSTATE_UINT32(err_status, MrpsimState),
        VMSTATE_UINT32(err_info, MrpsimState),
        VMSTATE_UINT32(irq_pending, MrpsimState),
        VMSTATE_UINT32(irq_mask, MrpsimState),
        VMSTATE_UINT32(clock_hi, MrpsimState),
        VMSTATE_UINT32(cnt_hi, MrpsimState),
        VMSTATE_UINT32(fwd_head, MrpsimState),
        VMSTATE_UINT32(fwd_count, MrpsimState),
        VMSTATE_STRUCT_ARRAY(fwdq, MrpsimState, MRPSIM_FWDQ_LEN, 1,
                             mrpsim_vmstate_fwd, MrpsimFwd),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &mrpsim_vmstate_evpend,
        &mrpsim_vmstate_link,
        &mrpsim_vmstate_l2,
        NULL
    }
};

static Property mrpsim_properties[] = {
    DEFINE_PROP_UINT32("ports", MrpsimState, nports, 2),
    DEFINE_PROP_UINT32("rings", MrpsimState, nrings, 2),
    DEFINE_PROP_BOOL("mrp", MrpsimState, mrp, true),
    DEFINE_PROP_BOOL("mra", MrpsimState, mra, true),
    DEFINE_PROP_MACADDR("mac", MrpsimState, mac),
    DEFINE_PROP_NETDEV("netdev0", MrpsimState, port[0].conf.peers),
    DEFINE_PROP_NETDEV("netdev1", MrpsimState, port[1].conf.peers),
    DEFINE_PROP_NETDEV("netdev2", MrpsimState, port[2].conf.peers),
    DEFINE_PROP_NETDEV("netdev3", MrpsimState, port[3].conf.peers),
    DEFINE_PROP_NETDEV("netdev4", MrpsimState, port[4].conf.peers),
    DEFINE_PROP_NETDEV("netdev5", MrpsimState, port[5].conf.peers),
    DEFINE_PROP_NETDEV("netdev6", MrpsimState, port[6].conf.peers),
    DEFINE_PROP_NETDEV("netdev7", MrpsimState, port[7].conf.peers),
    DEFINE_PROP_END_OF_LIST(),
};

static void mrpsim_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = mrpsim_realize;
    pc->exit = mrpsim_exit;
    pc->vendor_id = MRPSIM_PCI_VENDOR_ID;
    pc->device_id = MRPSIM_PCI_DEVICE_ID;
    pc->revision = MRPSIM_PCI_REVISION;
    pc->class_id = MRPSIM_PCI_CLASS;
    dc->desc = "mrpsim Ethernet switch with an MRP engine";
    dc->reset = mrpsim_qdev_reset;
    dc->vmsd = &mrpsim_vmstate;
    device_class_set_props(dc, mrpsim_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo mrpsim_info = {
    .name = TYPE_MRPSIM,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(MrpsimState),
    .class_init = mrpsim_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void mrpsim_register_types(void)
{
    type_register_static(&mrpsim_info);
}

type_init(mrpsim_register_types)
