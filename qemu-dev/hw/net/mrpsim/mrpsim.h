/*
 * QEMU mrpsim switch: definitions shared by the device's source files
 *
 * Copyright (c) 2026 mrpsim developers
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 *
 * The programming model (registers, descriptors, events) is defined in
 * hw/net/mrpsim_hw.h, shared with the Linux driver, and documented in the
 * project's docs/specs/mrpsim.rst.
 */

#ifndef HW_NET_MRPSIM_H
#define HW_NET_MRPSIM_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qemu/bswap.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "sysemu/runstate.h"
#include "hw/net/mrpsim_hw.h"

#define TYPE_MRPSIM "mrpsim"
OBJECT_DECLARE_SIMPLE_TYPE(MrpsimState, MRPSIM)

#define MRPSIM_ETH_HLEN         14
#define MRPSIM_ETH_P_MRP        0x88e3
#define MRPSIM_NONE             0xff    /* no port, no ring instance */
#define MRPSIM_FWDQ_LEN         32      /* hardware forwarding queue */
#define MRPSIM_FWD_BURST        16      /* forwarded at once per main loop */
#define MRPSIM_PORT_BLOCK       MRPSIM_PORT_STRIDE
#define MRPSIM_MRP_BLOCK        0x100
#define MRPSIM_EVPEND_LEN       32      /* events waiting for evq_bh */
#define MRPSIM_PORT_CTRL_RW     (MRPSIM_PORT_CTRL_EN | \
                                 MRPSIM_PORT_CTRL_STATE_MASK | \
                                 MRPSIM_PORT_CTRL_LEARN | \
                                 MRPSIM_PORT_CTRL_FLOOD_ALL)

/* A descriptor ring or the event queue: the guest-visible registers. */
typedef struct MrpsimQueue {
    uint64_t base_reg;          /* BASE_LO/HI as written */
    uint32_t size_reg;          /* SIZE as written */
    uint64_t base;              /* latched when the queue was enabled */
    uint32_t size;
    uint32_t head;
    uint32_t tail;
    bool en;
    bool halted;
} MrpsimQueue;

typedef struct MrpsimPort {
    MrpsimState *s;
    unsigned int idx;
    NICConf conf;               /* netdevN and the power-on MAC */
    NICState *nic;
    MrpsimQueue txq;
    MrpsimQueue rxq;
    uint32_t ctrl;              /* PORT_CTRL */
    uint8_t mac[6];             /* PORT_MAC_LO/HI */
    bool link;
    uint32_t fwd_mask;          /* PORT_FWD_MASK */
    uint32_t flood_limit;       /* PORT_FLOOD_LIMIT, frames/s */
    int64_t flood_credit;       /* storm control: ns of allowance */
    int64_t flood_stamp;        /* virtual clock of the last refill */
    uint64_t cnt[MRPSIM_PORT_NUM_COUNTERS];
} MrpsimPort;

/* One MRP ring instance of the engine. */
typedef struct MrpsimRing {
    MrpsimState *s;
    unsigned int idx;
    uint32_t role;
    uint32_t ring_id;
    uint8_t port[2];            /* primary, secondary; MRPSIM_NONE */
    uint16_t prio;
    uint32_t ring_state;
    uint16_t transitions;
    uint8_t sa[6];
    uint8_t domain[16];
    uint32_t interval;          /* us */
    uint32_t max_miss;
    uint32_t period;            /* us, 0: no end */
    uint32_t test_ctrl;
    uint32_t status;
    uint16_t seq_id;
    QEMUTimer *timer;
    int64_t deadline;           /* next tick, virtual clock ns */
    int64_t end;                /* end of the test period, 0: none */
    uint32_t miss[2];
    uint32_t report_due;        /* bit w: own frame on ring port w to CPU */
    uint32_t gen;               /* test generation, STATUS[15:8] */
    /* recovery assist */
    uint32_t assist;            /* ASSIST */
    uint32_t topo_interval;     /* TOPO_INTERVAL, us */
    uint32_t topo_repeat;       /* TOPO_REPEAT */
    uint32_t topo_left;         /* TopologyChange frames of the series left */
    QEMUTimer *topo_timer;      /* manager: the next TopologyChange */
    QEMUTimer *flush_timer;     /* client: the flush a TopologyChange asked */
    /* interconnection */
    uint32_t in_role;           /* IN_ROLE */
    uint16_t in_id;
    uint8_t in_port;            /* I-port, MRPSIM_NONE */
    uint32_t in_state;          /* IN_STATE */
    uint16_t in_transitions;
    uint32_t in_interval;       /* us */
    uint32_t in_max_miss;
    uint32_t in_period;         /* us, 0: no end */
    uint32_t in_test_ctrl;      /* IN_TEST_CTRL */
    uint32_t in_status;         /* IN_STATUS: RUNNING, LOST */
    uint32_t in_gen;            /* InTest generation, IN_STATUS[15:8] */
    uint32_t in_ctrl;           /* IN_CTRL */
    uint32_t in_miss;
    uint32_t in_report_due;     /* IN_STATE open: report the next own one */
    QEMUTimer *in_timer;
    int64_t in_deadline;        /* next InTest tick, virtual clock ns */
    int64_t in_end;             /* end of the InTest period, 0: none */
} MrpsimRing;

typedef struct MrpsimFwd {
    uint8_t in;
    uint8_t out;
    uint16_t len;
    uint8_t buf[MRPSIM_MAX_FRAME_LEN];
} MrpsimFwd;

/* An FDB slot; flags are FDB_ENTRY's bits 15:8 (VALID: in use). */
typedef struct MrpsimFdbEntry {
    uint8_t mac[6];
    uint8_t port;               /* MRPSIM_NONE for a CPU entry */
    uint8_t flags;
    int64_t seen;               /* learned: virtual clock of the last frame */
} MrpsimFdbEntry;

/* An event raised where it could not be written at once (mrpsim_event()). */
typedef struct MrpsimPendingEvent {
    uint8_t type;
    uint8_t port;
    uint8_t ring;
    uint32_t data;
    int64_t ts;
} MrpsimPendingEvent;

struct MrpsimState {
    PCIDevice parent_obj;

    MemoryRegion mmio;

    /* properties */
    uint32_t nports;
    uint32_t nrings;
    bool mrp;
    bool mra;
    MACAddr mac;

    uint8_t base_mac[6];
    MrpsimPort port[MRPSIM_MAX_PORTS];
    MrpsimRing ring[MRPSIM_MAX_RINGS];
    MrpsimQueue evq;
    uint32_t evq_drops;
    uint32_t err_status;
    uint32_t err_info;
    uint32_t irq_pending;
    uint32_t irq_mask;
    uint32_t clock_hi;          /* latched by CLOCK_LO */
    uint32_t cnt_hi;            /* latched by a counter's low half */

    /*
     * MRP frames forwarded by hardware leave at once (mrpsim_fwd()), or
     * from this bottom half when the switch is forwarding already.
     */
    QEMUBH *fwd_bh;
    MrpsimFwd fwdq[MRPSIM_FWDQ_LEN];
    uint32_t fwd_head;
    uint32_t fwd_count;
    bool fwd_busy;              /* in mrpsim_fwd() or the bottom half */
    uint32_t fwd_burst;         /* sent at once since the bottom half ran */

    /*
     * Events raised outside the device's re-entrancy guard (the MRP timer,
     * set_link, a link partner) are written by this guarded bottom half.
     */
    QEMUBH *evq_bh;
    MrpsimPendingEvent evpend[MRPSIM_EVPEND_LEN];
    uint32_t evpend_head;
    uint32_t evpend_count;

    /* FDB and L2 forwarding (mrpsim_l2.c) */
    MrpsimFdbEntry fdb[MRPSIM_FDB_ENTRIES];
    uint32_t fdb_count;
    uint32_t fdb_ageing;        /* ms, 0: never */
    uint8_t fdb_mac[6];         /* FDB_MAC_LO/HI */
    uint32_t fdb_entry;         /* FDB_ENTRY */
    uint32_t fdb_index;         /* FDB_INDEX */
    uint32_t fdb_status;        /* FDB_CMD as read */
    QEMUTimer *age_timer;       /* schedules age_bh */
    QEMUBH *age_bh;

    VMChangeStateEntry *vmsc;
};

/*
 * The switch's -device id, for the trace events that change what the guest
 * or the wire sees: one QEMU process usually runs a whole ring of switches.
 */
static inline const char *mrpsim_id(MrpsimState *s)
{
    const char *id = DEVICE(s)->id;

    return id ? id : "";
}

/* The device clock: QEMU's virtual clock, in ns. */
static inline int64_t mrpsim_clock_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static inline bool mrpsim_port_up(MrpsimPort *p)
{
    uint32_t state = (p->ctrl & MRPSIM_PORT_CTRL_STATE_MASK) >>
                     MRPSIM_PORT_CTRL_STATE_SHIFT;

    return (p->ctrl & MRPSIM_PORT_CTRL_EN) &&
           state != MRPSIM_PSTATE_DISABLED;
}

/* Blocking, listening or learning: only MRP and link-local frames pass. */
static inline bool mrpsim_port_blocking(MrpsimPort *p)
{
    return ((p->ctrl & MRPSIM_PORT_CTRL_STATE_MASK) >>
            MRPSIM_PORT_CTRL_STATE_SHIFT) != MRPSIM_PSTATE_FORWARDING;
}

/* A MAC address as a 48-bit number, to add port numbers to it. */
static inline uint64_t mrpsim_mac_to_u64(const uint8_t *mac)
{
    return (uint64_t)lduw_be_p(mac) << 32 | ldl_be_p(mac + 2);
}

static inline void mrpsim_u64_to_mac(uint8_t *mac, uint64_t val)
{
    stw_be_p(mac, val >> 32);
    stl_be_p(mac + 2, val);
}

/* mrpsim.c */
void mrpsim_error(MrpsimState *s, unsigned int code, unsigned int port,
                  unsigned int index);
void mrpsim_event(MrpsimState *s, uint8_t type, uint8_t port, uint8_t ring,
                  uint32_t data);
bool mrpsim_port_xmit(MrpsimPort *p, const uint8_t *buf, size_t len);
void mrpsim_rx_to_cpu(MrpsimPort *p, const uint8_t *buf, size_t len,
                      uint16_t flags, uint8_t ring);
bool mrpsim_fwd(MrpsimPort *in, unsigned int out, const uint8_t *buf,
                size_t len, unsigned int drop_cnt);

/* mrpsim_l2.c */
extern const VMStateDescription mrpsim_vmstate_l2;
void mrpsim_l2_realize(MrpsimState *s);
void mrpsim_l2_unrealize(MrpsimState *s);
void mrpsim_l2_reset(MrpsimState *s);
int mrpsim_l2_post_load(MrpsimState *s);
uint32_t mrpsim_l2_read(MrpsimState *s, hwaddr addr);
bool mrpsim_l2_write(MrpsimState *s, hwaddr addr, uint32_t val);
bool mrpsim_l2_egress_ok(MrpsimPort *q);
void mrpsim_l2_flood_reset(MrpsimPort *p);
unsigned int mrpsim_l2_flush_learned(MrpsimPort *p);
bool mrpsim_l2_receive(MrpsimPort *p, const uint8_t *buf, size_t len,
                       bool link_local, uint16_t *flags);

/* mrpsim_mrp.c */
extern const VMStateDescription mrpsim_vmstate_ring;
int mrpsim_mrp_post_load(MrpsimState *s);
void mrpsim_mrp_realize(MrpsimState *s);
void mrpsim_mrp_unrealize(MrpsimState *s);
void mrpsim_mrp_reset(MrpsimState *s);
uint32_t mrpsim_mrp_read(MrpsimState *s, hwaddr addr);
void mrpsim_mrp_write(MrpsimState *s, hwaddr addr, uint32_t val);
bool mrpsim_mrp_receive(MrpsimPort *p, const uint8_t *buf, size_t len);

#endif /* HW_NET_MRPSIM_H */
