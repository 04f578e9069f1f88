/*
 * QEMU mrpsim switch: FDB, learning, ageing and L2 forwarding
 *
 * Copyright (c) 2026 mrpsim developers
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 *
 * One table of MAC addresses for the whole switch: MRPSIM_FDB_ENTRIES
 * slots, MRPSIM_FDB_WAYS per hash bucket, no VLANs.  A port forwards in
 * hardware only to the ports of its PORT_FWD_MASK (the driver puts the
 * ports of one bridge there); with a mask of 0 every frame goes to the
 * CPU, as on a switch without L2 forwarding.  MRP frames never pass here:
 * the MRP engine or the CPU takes them (mrpsim.c).  The programming model
 * is docs/specs/mrpsim.rst in the mrpsim project.
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/main-loop.h"
#include "migration/vmstate.h"
#include "mrpsim.h"
#include "trace.h"

#define MRPSIM_FDB_BUCKETS      (MRPSIM_FDB_ENTRIES / MRPSIM_FDB_WAYS)
#define MRPSIM_FDB_F_USED       (MRPSIM_FDB_ENTRY_VALID >> 8)
#define MRPSIM_FDB_F_STATIC     (MRPSIM_FDB_ENTRY_STATIC >> 8)
#define MRPSIM_FDB_F_CPU        (MRPSIM_FDB_ENTRY_CPU >> 8)
#define MRPSIM_FDB_F_ALL        (MRPSIM_FDB_F_USED | MRPSIM_FDB_F_STATIC | \
                                 MRPSIM_FDB_F_CPU)
/* An ageing scan every AGEING / 8: entries go AGEING to 9/8 AGEING late. */
#define MRPSIM_AGE_SCANS        8

static unsigned int mrpsim_fdb_bucket(const uint8_t *mac)
{
    return (mrpsim_mac_to_u64(mac) * 0x9e3779b97f4a7c15ULL) >> 56;
}

static bool mrpsim_fdb_learned(const MrpsimFdbEntry *e)
{
    return (e->flags & MRPSIM_FDB_F_USED) && !(e->flags & MRPSIM_FDB_F_STATIC);
}

/* The slot holding @mac, or -1. */
static int mrpsim_fdb_find(MrpsimState *s, const uint8_t *mac)
{
    unsigned int i = mrpsim_fdb_bucket(mac) * MRPSIM_FDB_WAYS;
    unsigned int w;

    for (w = 0; w < MRPSIM_FDB_WAYS; w++) {
        if ((s->fdb[i + w].flags & MRPSIM_FDB_F_USED) &&
            !memcmp(s->fdb[i + w].mac, mac, 6)) {
            return i + w;
        }
    }
    return -1;
}

/* A free slot in @mac's bucket, or -1. */
static int mrpsim_fdb_free_slot(MrpsimState *s, const uint8_t *mac)
{
    unsigned int i = mrpsim_fdb_bucket(mac) * MRPSIM_FDB_WAYS;
    unsigned int w;

    for (w = 0; w < MRPSIM_FDB_WAYS; w++) {
        if (!(s->fdb[i + w].flags & MRPSIM_FDB_F_USED)) {
            return i + w;
        }
    }
    return -1;
}

static void mrpsim_fdb_remove(MrpsimState *s, unsigned int idx)
{
    memset(&s->fdb[idx], 0, sizeof(s->fdb[idx]));
    s->fdb_count--;
}

/*
 * The MRP engine's assist flushes a ring port: its learned entries go, as
 * with FLUSH, and are counted (``L2_FLUSHED``); returns how many.
 */
unsigned int mrpsim_l2_flush_learned(MrpsimPort *p)
{
    MrpsimState *s = p->s;
    unsigned int i, n = 0;

    for (i = 0; i < MRPSIM_FDB_ENTRIES; i++) {
        if (mrpsim_fdb_learned(&s->fdb[i]) && s->fdb[i].port == p->idx) {
            mrpsim_fdb_remove(s, i);
            n++;
        }
    }
    p->cnt[MRPSIM_CNT_L2_FLUSHED] += n;
    return n;
}

static int64_t mrpsim_age_ns(MrpsimState *s)
{
    return (int64_t)s->fdb_ageing * SCALE_MS;
}

static void mrpsim_age_arm(MrpsimState *s)
{
    if (!s->fdb_ageing) {
        timer_del(s->age_timer);
    } else if (!timer_pending(s->age_timer)) {
        timer_mod(s->age_timer, mrpsim_clock_ns() +
                  mrpsim_age_ns(s) / MRPSIM_AGE_SCANS);
    }
}

static void mrpsim_fdb_event(MrpsimState *s, unsigned int idx,
                             unsigned int port, unsigned int why)
{
    mrpsim_event(s, MRPSIM_EV_FDB, port, MRPSIM_NONE,
                 idx | why << MRPSIM_EV_FDB_WHY_SHIFT);
}

/*
 * The ageing scan runs in a guarded bottom half, as the receive path does:
 * it writes its events at once, however many entries age together.
 */
static void mrpsim_age_bh(void *opaque)
{
    MrpsimState *s = opaque;
    int64_t now = mrpsim_clock_ns();
    bool learned = false;
    unsigned int i, port;

    if (!s->fdb_ageing) {
        return;
    }
    for (i = 0; i < MRPSIM_FDB_ENTRIES; i++) {
        MrpsimFdbEntry *e = &s->fdb[i];

        if (!mrpsim_fdb_learned(e)) {
            continue;
        }
        if (now - e->seen < mrpsim_age_ns(s)) {
            learned = true;
            continue;
        }
        port = e->port;
        trace_mrpsim_l2_aged(mrpsim_id(s), i, mrpsim_mac_to_u64(e->mac),
                             port);
        mrpsim_fdb_remove(s, i);
        mrpsim_fdb_event(s, i, port, MRPSIM_FDB_EV_AGED);
    }
    if (learned) {
        mrpsim_age_arm(s);
    }
}

static void mrpsim_age_timer(void *opaque)
{
    MrpsimState *s = opaque;

    qemu_bh_schedule(s->age_bh);
}

/* Learn the source address of a frame received on @p. */
static void mrpsim_l2_learn(MrpsimPort *p, const uint8_t *buf)
{
    MrpsimState *s = p->s;
    const uint8_t *sa = buf + 6;
    MrpsimFdbEntry *e;
    unsigned int why;
    int idx;

    if ((sa[0] & 1) || buffer_is_zero(sa, 6)) {
        return;
    }
    idx = mrpsim_fdb_find(s, sa);
    if (idx >= 0) {
        e = &s->fdb[idx];
        if (e->flags & MRPSIM_FDB_F_STATIC) {
            return;             /* static and CPU entries never move */
        }
        e->seen = mrpsim_clock_ns();
        if (e->port == p->idx) {
            return;
        }
        why = MRPSIM_FDB_EV_MOVED;
    } else {
        idx = mrpsim_fdb_free_slot(s, sa);
        if (idx < 0) {
            p->cnt[MRPSIM_CNT_L2_LEARN_FULL]++;
            trace_mrpsim_l2_learn_full(mrpsim_id(s), p->idx,
                                       mrpsim_mac_to_u64(sa));
            return;
        }
        e = &s->fdb[idx];
        memcpy(e->mac, sa, 6);
        e->flags = MRPSIM_FDB_F_USED;
        e->seen = mrpsim_clock_ns();
        s->fdb_count++;
        why = MRPSIM_FDB_EV_LEARNED;
    }
    e->port = p->idx;
    p->cnt[MRPSIM_CNT_L2_LEARNED]++;
    trace_mrpsim_l2_learn(mrpsim_id(s), p->idx, mrpsim_mac_to_u64(sa), idx,
                          why);
    mrpsim_fdb_event(s, idx, p->idx, why);
    mrpsim_age_arm(s);
}

static unsigned int mrpsim_pstate(MrpsimPort *p)
{
    return (p->ctrl & MRPSIM_PORT_CTRL_STATE_MASK) >>
           MRPSIM_PORT_CTRL_STATE_SHIFT;
}

/*
 * Storm control: a token bucket per ingress port lets FLOOD_LIMIT flooded
 * frames a second through, in bursts of up to a fiftieth of a second's
 * worth.  A loop of switches (a ring whose manager does not block) then
 * costs the host, and the CPUs the floods are copied to, a bounded rate,
 * as a real switch's storm control bounds what a loop costs.
 */
static int64_t mrpsim_flood_cap(MrpsimPort *p, int64_t cost)
{
    return cost * MAX(p->flood_limit / 50, 1);
}

void mrpsim_l2_flood_reset(MrpsimPort *p)
{
    p->flood_stamp = mrpsim_clock_ns();
    p->flood_credit = p->flood_limit ?
        mrpsim_flood_cap(p, NANOSECONDS_PER_SECOND / p->flood_limit) : 0;
}

static bool mrpsim_flood_ok(MrpsimPort *p)
{
    int64_t now, cost;

    if (!p->flood_limit) {
        return true;
    }
    now = mrpsim_clock_ns();
    cost = NANOSECONDS_PER_SECOND / p->flood_limit;
    if (now > p->flood_stamp) {
        p->flood_credit = MIN(p->flood_credit + (now - p->flood_stamp),
                              mrpsim_flood_cap(p, cost));
        p->flood_stamp = now;
    }
    if (p->flood_credit < cost) {
        return false;
    }
    p->flood_credit -= cost;
    return true;
}

/* Whether hardware-forwarded data frames may leave @q now. */
bool mrpsim_l2_egress_ok(MrpsimPort *q)
{
    return mrpsim_port_up(q) && q->link &&
           mrpsim_pstate(q) == MRPSIM_PSTATE_FORWARDING;
}

/*
 * A frame from the wire on @p that is neither an MRP frame nor dropped by
 * the port's state.  Learns its source, forwards it within the port's
 * forwarding mask, and returns whether the CPU gets it, with *@flags the
 * RX descriptor flags (FWD when the hardware flooded it).
 */
bool mrpsim_l2_receive(MrpsimPort *p, const uint8_t *buf, size_t len,
                       bool link_local, uint16_t *flags)
{
    MrpsimState *s = p->s;
    unsigned int state = mrpsim_pstate(p);
    uint32_t mask, flood, out;
    const uint8_t *da = buf;
    MrpsimFdbEntry *e;
    int idx;

    *flags = 0;
    if ((p->ctrl & MRPSIM_PORT_CTRL_LEARN) &&
        (state == MRPSIM_PSTATE_FORWARDING ||
         state == MRPSIM_PSTATE_LEARNING)) {
        mrpsim_l2_learn(p, buf);
    }
    if (state != MRPSIM_PSTATE_FORWARDING && !link_local) {
        p->cnt[MRPSIM_CNT_RX_DROP_BLOCKED]++;
        trace_mrpsim_drop(p->idx, len, "rx port not forwarding");
        return false;
    }
    mask = p->fwd_mask & ~(1u << p->idx) & ((1u << s->nports) - 1);
    if (link_local || !mask) {
        return true;
    }
    if (!(da[0] & 1)) {
        idx = mrpsim_fdb_find(s, da);
        if (idx >= 0) {
            e = &s->fdb[idx];
            if (e->flags & MRPSIM_FDB_F_CPU) {
                return true;
            }
            if (e->port == p->idx) {
                p->cnt[MRPSIM_CNT_L2_DROP]++;
                trace_mrpsim_drop(p->idx, len, "l2 destination on ingress");
                return false;
            }
            if (mask & (1u << e->port)) {
                if (!mrpsim_l2_egress_ok(&s->port[e->port])) {
                    p->cnt[MRPSIM_CNT_L2_DROP]++;
                    trace_mrpsim_drop(p->idx, len, "l2 destination down");
                    return false;
                }
                p->cnt[MRPSIM_CNT_L2_FWD]++;
                mrpsim_fwd(p, e->port, buf, len, MRPSIM_CNT_L2_QUEUE_DROP);
                return false;
            }
            /* a port of another bridge: unknown here */
        }
        flood = MRPSIM_PORT_CTRL_FLOOD_UC;
    } else if (!memcmp(da, "\xff\xff\xff\xff\xff\xff", 6)) {
        flood = MRPSIM_PORT_CTRL_FLOOD_BC;
    } else {
        flood = MRPSIM_PORT_CTRL_FLOOD_MC;
    }
    if (!mrpsim_flood_ok(p)) {
        p->cnt[MRPSIM_CNT_L2_STORM_DROP]++;
        trace_mrpsim_drop(p->idx, len, "l2 flood over FLOOD_LIMIT");
        return false;
    }
    p->cnt[MRPSIM_CNT_L2_FLOOD]++;
    trace_mrpsim_l2_flood(mrpsim_id(s), p->idx, mask, flood);
    for (out = 0; out < s->nports; out++) {
        if ((mask & (1u << out)) && (s->port[out].ctrl & flood) &&
            mrpsim_l2_egress_ok(&s->port[out])) {
            mrpsim_fwd(p, out, buf, len, MRPSIM_CNT_L2_QUEUE_DROP);
        }
    }
    *flags = MRPSIM_DESC_FWD;
    return true;
}

/* ---- Registers ---- */

static uint32_t mrpsim_fdb_entry_reg(const MrpsimFdbEntry *e)
{
    if (!(e->flags & MRPSIM_FDB_F_USED)) {
        return MRPSIM_NONE;
    }
    return e->port | (uint32_t)e->flags << 8;
}

static uint32_t mrpsim_fdb_cmd(MrpsimState *s, uint32_t cmd)
{
    uint32_t port = s->fdb_entry & MRPSIM_FDB_ENTRY_PORT_MASK;
    bool cpu = s->fdb_entry & MRPSIM_FDB_ENTRY_CPU;
    bool stat = s->fdb_entry & MRPSIM_FDB_ENTRY_STATIC;
    MrpsimFdbEntry *e;
    unsigned int i;
    int idx;

    switch (cmd) {
    case MRPSIM_FDB_CMD_ADD:
        if ((s->fdb_mac[0] & 1) || buffer_is_zero(s->fdb_mac, 6) ||
            (s->fdb_entry & ~(MRPSIM_FDB_ENTRY_PORT_MASK |
                              MRPSIM_FDB_ENTRY_STATIC |
                              MRPSIM_FDB_ENTRY_CPU)) ||
            (!cpu && (!stat || port >= s->nports))) {
            return MRPSIM_FDB_INVAL;
        }
        idx = mrpsim_fdb_find(s, s->fdb_mac);
        if (idx < 0) {
            idx = mrpsim_fdb_free_slot(s, s->fdb_mac);
            if (idx < 0) {
                return MRPSIM_FDB_FULL;
            }
            s->fdb_count++;
        }
        e = &s->fdb[idx];
        memcpy(e->mac, s->fdb_mac, 6);
        e->port = cpu ? MRPSIM_NONE : port;
        e->flags = MRPSIM_FDB_F_USED | MRPSIM_FDB_F_STATIC |
                   (cpu ? MRPSIM_FDB_F_CPU : 0);
        e->seen = 0;
        s->fdb_index = idx;
        return MRPSIM_FDB_OK;
    case MRPSIM_FDB_CMD_DEL:
        idx = mrpsim_fdb_find(s, s->fdb_mac);
        if (idx < 0) {
            return MRPSIM_FDB_NOT_FOUND;
        }
        mrpsim_fdb_remove(s, idx);
        s->fdb_index = idx;
        return MRPSIM_FDB_OK;
    case MRPSIM_FDB_CMD_READ:
        if (s->fdb_index >= MRPSIM_FDB_ENTRIES) {
            return MRPSIM_FDB_INVAL;
        }
        e = &s->fdb[s->fdb_index];
        memcpy(s->fdb_mac, e->mac, 6);
        s->fdb_entry = mrpsim_fdb_entry_reg(e);
        return MRPSIM_FDB_OK;
    case MRPSIM_FDB_CMD_FLUSH:
        if (port != MRPSIM_NONE && port >= s->nports) {
            return MRPSIM_FDB_INVAL;
        }
        for (i = 0; i < MRPSIM_FDB_ENTRIES; i++) {
            e = &s->fdb[i];
            if ((e->flags & MRPSIM_FDB_F_USED) &&
                (port == MRPSIM_NONE || e->port == port) &&
                (stat || !(e->flags & MRPSIM_FDB_F_STATIC))) {
                mrpsim_fdb_remove(s, i);
            }
        }
        return MRPSIM_FDB_OK;
    }
    return MRPSIM_FDB_INVAL;
}

uint32_t mrpsim_l2_read(MrpsimState *s, hwaddr addr)
{
    switch (addr) {
    case MRPSIM_REG_FDB_SIZE:
        return MRPSIM_FDB_ENTRIES;
    case MRPSIM_REG_FDB_COUNT:
        return s->fdb_count;
    case MRPSIM_REG_FDB_AGEING:
        return s->fdb_ageing;
    case MRPSIM_REG_FDB_MAC_LO:
        return ldl_le_p(s->fdb_mac);
    case MRPSIM_REG_FDB_MAC_HI:
        return lduw_le_p(s->fdb_mac + 4);
    case MRPSIM_REG_FDB_ENTRY:
        return s->fdb_entry;
    case MRPSIM_REG_FDB_INDEX:
        return s->fdb_index;
    case MRPSIM_REG_FDB_CMD:
        return s->fdb_status;
    }
    return 0;
}

/* Returns false for a register that is not the FDB's. */
bool mrpsim_l2_write(MrpsimState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case MRPSIM_REG_FDB_AGEING:
        if (val && val < MRPSIM_FDB_AGEING_MIN) {
            mrpsim_error(s, MRPSIM_ERR_REG, MRPSIM_NONE, addr);
            return true;
        }
        s->fdb_ageing = val;
        timer_del(s->age_timer);
        mrpsim_age_arm(s);
        return true;
    case MRPSIM_REG_FDB_MAC_LO:
        stl_le_p(s->fdb_mac, val);
        return true;
    case MRPSIM_REG_FDB_MAC_HI:
        stw_le_p(s->fdb_mac + 4, val);
        return true;
    case MRPSIM_REG_FDB_ENTRY:
        s->fdb_entry = val;
        return true;
    case MRPSIM_REG_FDB_INDEX:
        s->fdb_index = val;
        return true;
    case MRPSIM_REG_FDB_CMD:
        s->fdb_status = mrpsim_fdb_cmd(s, val);
        trace_mrpsim_fdb_cmd(mrpsim_id(s), val, mrpsim_mac_to_u64(s->fdb_mac),
                             s->fdb_entry, s->fdb_index, s->fdb_status);
        return true;
    }
    return false;
}

/* ---- Reset, realize, migration ---- */

void mrpsim_l2_reset(MrpsimState *s)
{
    timer_del(s->age_timer);
    qemu_bh_cancel(s->age_bh);
    memset(s->fdb, 0, sizeof(s->fdb));
    s->fdb_count = 0;
    s->fdb_ageing = MRPSIM_FDB_AGEING_DEFAULT;
    memset(s->fdb_mac, 0, sizeof(s->fdb_mac));
    s->fdb_entry = 0;
    s->fdb_index = 0;
    s->fdb_status = MRPSIM_FDB_OK;
}

void mrpsim_l2_realize(MrpsimState *s)
{
    s->age_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mrpsim_age_timer, s);
    s->age_bh = qemu_bh_new_guarded(mrpsim_age_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
}

void mrpsim_l2_unrealize(MrpsimState *s)
{
    timer_free(s->age_timer);
    qemu_bh_delete(s->age_bh);
}

/*
 * Every entry as a sequence of commands and learned frames could leave
 * it: in its MAC's bucket, once, with a port of this switch (CPU entries:
 * none) and a last-seen time no later than now.
 */
int mrpsim_l2_post_load(MrpsimState *s)
{
    int64_t now = mrpsim_clock_ns();
    unsigned int i, count = 0;

    if ((s->fdb_ageing && s->fdb_ageing < MRPSIM_FDB_AGEING_MIN)) {
        return -EINVAL;
    }
    for (i = 0; i < MRPSIM_FDB_ENTRIES; i++) {
        MrpsimFdbEntry *e = &s->fdb[i];

        if (!(e->flags & MRPSIM_FDB_F_USED)) {
            if (e->flags || e->port || e->seen ||
                !buffer_is_zero(e->mac, 6)) {
                return -EINVAL;
            }
            continue;
        }
        if ((e->flags & ~MRPSIM_FDB_F_ALL) || (e->mac[0] & 1) ||
            buffer_is_zero(e->mac, 6) ||
            mrpsim_fdb_bucket(e->mac) != i / MRPSIM_FDB_WAYS ||
            mrpsim_fdb_find(s, e->mac) != i) {
            return -EINVAL;
        }
        if (e->flags & MRPSIM_FDB_F_CPU) {
            if (!(e->flags & MRPSIM_FDB_F_STATIC) || e->port != MRPSIM_NONE) {
                return -EINVAL;
            }
        } else if (e->port >= s->nports) {
            return -EINVAL;
        }
        if (e->seen > now) {
            e->seen = now;
        }
        count++;
    }
    s->fdb_count = count;
    timer_del(s->age_timer);
    mrpsim_age_arm(s);
    return 0;
}

static const VMStateDescription mrpsim_vmstate_fdb_entry = {
    .name = "mrpsim/fdb-entry",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT8_ARRAY(mac, MrpsimFdbEntry, 6),
        VMSTATE_UINT8(port, MrpsimFdbEntry),
        VMSTATE_UINT8(flags, MrpsimFdbEntry),
        VMSTATE_INT64(seen, MrpsimFdbEntry),
        VMSTATE_END_OF_LIST()
    }
};

const VMStateDescription mrpsim_vmstate_l2 = {
    .name = "mrpsim/l2",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(fdb, MrpsimState, MRPSIM_FDB_ENTRIES, 1,
                             mrpsim_vmstate_fdb_entry, MrpsimFdbEntry),
        VMSTATE_UINT32(fdb_ageing, MrpsimState),
        VMSTATE_UINT8_ARRAY(fdb_mac, MrpsimState, 6),
        VMSTATE_UINT32(fdb_entry, MrpsimState),
        VMSTATE_UINT32(fdb_index, MrpsimState),
        VMSTATE_UINT32(fdb_status, MrpsimState),
        VMSTATE_END_OF_LIST()
    }
};
