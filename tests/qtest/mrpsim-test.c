/*
 * QTest testcases for the mrpsim switch and its MRP engine
 *
 * Copyright (c) 2026 mrpsim developers
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 *
 * Every test boots a PC with one or two mrpsim switches whose ports are
 * cabled with -netdev hubport pairs on private hubs (socket cables do not
 * deliver in virtual time), drives them through BAR0, DMA rings in guest
 * memory and MSI-X messages aimed at guest memory, and steps the virtual
 * clock for the MRP engine.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "qapi/qmp/qdict.h"
#include "hw/pci/pci_regs.h"
#include "hw/net/mrpsim_hw.h"

#define MAX_SW          4
#define RING_SIZE       16
#define EVQ_SIZE        64
#define BUF_SIZE        2048
#define IV_US           1000
#define MRP_FRAME_LEN   60
#define MS              1000000LL   /* ns */

typedef struct Ring {
    uint64_t base;
    uint64_t bufs;
    uint32_t size;
    uint32_t next;          /* TX: next free slot; RX: next to complete */
} Ring;

typedef struct Sw {
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t msix_addr[MRPSIM_NUM_VECS(MRPSIM_MAX_PORTS)];
    Ring tx[MRPSIM_MAX_PORTS];
    Ring rx[MRPSIM_MAX_PORTS];
    Ring evq;
    unsigned int nports;
} Sw;

typedef struct Ctx {
    QOSState *qs;
    QTestState *qts;
    Sw sw[MAX_SW];
} Ctx;

typedef struct Ev {
    uint8_t type;
    uint8_t port;
    uint8_t ring;
    uint32_t data;
    uint64_t ts;
} Ev;

static const uint8_t test_dmac[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x01 };
static const uint8_t ctrl_dmac[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x02 };
static const uint8_t in_dmac[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x03 };
static const uint8_t sa0[6] = { 0x02, 0x00, 0x00, 0x00, 0xaa, 0x01 };

/* ---- Boot and register access ---- */

static void sw_init(Ctx *t, int i, int slot)
{
    Sw *sw = &t->sw[i];
    uint64_t size;
    unsigned int v;

    sw->dev = qpci_device_find(t->qs->pcibus, QPCI_DEVFN(slot, 0));
    g_assert(sw->dev);
    qpci_device_enable(sw->dev);
    sw->bar = qpci_iomap(sw->dev, MRPSIM_BAR_REGS, &size);
    g_assert_cmphex(size, ==, MRPSIM_BAR_SIZE);
    qpci_msix_enable(sw->dev);
    sw->nports = qpci_io_readl(sw->dev, sw->bar, MRPSIM_REG_CAP) &
                 MRPSIM_CAP_PORTS_MASK;
    g_assert_cmpuint(qpci_msix_table_size(sw->dev), ==,
                     MRPSIM_NUM_VECS(sw->nports));
    /* each vector writes 0x1000 + v to its own word of guest memory */
    for (v = 0; v < MRPSIM_NUM_VECS(sw->nports); v++) {
        uint64_t off = sw->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        sw->msix_addr[v] = guest_alloc(&t->qs->alloc, 4);
        qtest_writel(t->qts, sw->msix_addr[v], 0);
        qpci_io_writel(sw->dev, sw->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_LOWER_ADDR, sw->msix_addr[v]);
        qpci_io_writel(sw->dev, sw->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_UPPER_ADDR,
                       sw->msix_addr[v] >> 32);
        qpci_io_writel(sw->dev, sw->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_DATA, 0x1000 + v);
        qpci_io_writel(sw->dev, sw->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
}

static Ctx *boot(const char *args, int nsw)
{
    Ctx *t = g_new0(Ctx, 1);
    int i;

    t->qs = qtest_pc_boot("-nodefaults %s", args);
    t->qts = t->qs->qts;
    for (i = 0; i < nsw; i++) {
        sw_init(t, i, 4 + i);
    }
    return t;
}

static void shutdown_ctx(Ctx *t)
{
    int i;

    for (i = 0; i < MAX_SW; i++) {
        g_free(t->sw[i].dev);
    }
    qtest_shutdown(t->qs);
    g_free(t);
}

static uint32_t rd(Sw *sw, uint32_t off)
{
    return qpci_io_readl(sw->dev, sw->bar, off);
}

static void wr(Sw *sw, uint32_t off, uint32_t val)
{
    qpci_io_writel(sw->dev, sw->bar, off, val);
}

static uint32_t prd(Sw *sw, int port, uint32_t off)
{
    return rd(sw, MRPSIM_PORT_BASE(port) + off);
}

static void pwr(Sw *sw, int port, uint32_t off, uint32_t val)
{
    wr(sw, MRPSIM_PORT_BASE(port) + off, val);
}

static uint32_t mrd(Sw *sw, int ring, uint32_t off)
{
    return rd(sw, MRPSIM_MRP_BASE(ring) + off);
}

/* MRP STATUS of instance @ring without its test generation (mgen()) */
static uint32_t mstatus(Sw *sw, int ring)
{
    return mrd(sw, ring, MRPSIM_MRP_STATUS) & ~MRPSIM_MRP_STATUS_GEN_MASK;
}

static uint32_t mgen(Sw *sw, int ring)
{
    return (mrd(sw, ring, MRPSIM_MRP_STATUS) & MRPSIM_MRP_STATUS_GEN_MASK) >>
           MRPSIM_MRP_STATUS_GEN_SHIFT;
}

static void mwr(Sw *sw, int ring, uint32_t off, uint32_t val)
{
    wr(sw, MRPSIM_MRP_BASE(ring) + off, val);
}

static uint64_t cnt(Sw *sw, int port, int c)
{
    uint32_t lo = prd(sw, port, MRPSIM_PORT_CNT(c));
    uint32_t hi = prd(sw, port, MRPSIM_PORT_CNT(c) + 4);

    return (uint64_t)hi << 32 | lo;
}

/* Check and clear an error bit and its ERR_INFO. */
static void expect_err(Sw *sw, int code, int port)
{
    uint32_t info = rd(sw, MRPSIM_REG_ERR_INFO);

    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS) & MRPSIM_ERR_BIT(code),
                    ==, MRPSIM_ERR_BIT(code));
    g_assert_cmpuint(info & MRPSIM_ERR_INFO_CODE_MASK, ==, code);
    g_assert_cmphex((info & MRPSIM_ERR_INFO_PORT_MASK) >>
                    MRPSIM_ERR_INFO_PORT_SHIFT, ==, port);
    wr(sw, MRPSIM_REG_ERR_STATUS, 0xffffffff);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
}

static bool msix_fired(Ctx *t, Sw *sw, unsigned int v)
{
    uint32_t data = qtest_readl(t->qts, sw->msix_addr[v]);

    if (data == 0) {
        return false;
    }
    g_assert_cmphex(data, ==, 0x1000 + v);
    qtest_writel(t->qts, sw->msix_addr[v], 0);
    return true;
}

static void set_link(Ctx *t, const char *name, bool up)
{
    QDict *resp = qtest_qmp(t->qts, "{'execute': 'set_link', 'arguments':"
                            " {'name': %s, 'up': %i}}", name, up);

    g_assert(!qdict_haskey(resp, "error"));
    qobject_unref(resp);
}

/* ---- Rings ---- */

static bool ring_enable(Ctx *t, Sw *sw, uint32_t qoff, uint64_t base,
                        uint32_t size)
{
    wr(sw, qoff + MRPSIM_Q_BASE_LO, base);
    wr(sw, qoff + MRPSIM_Q_BASE_HI, base >> 32);
    wr(sw, qoff + MRPSIM_Q_SIZE, size);
    wr(sw, qoff + MRPSIM_Q_CTRL, MRPSIM_Q_CTRL_EN);
    return rd(sw, qoff + MRPSIM_Q_CTRL) & MRPSIM_Q_CTRL_EN;
}

static void ring_alloc(Ctx *t, Ring *r, uint32_t size, uint32_t esize,
                       bool bufs)
{
    r->size = size;
    r->next = 0;
    r->base = guest_alloc(&t->qs->alloc, size * esize);
    qtest_memset(t->qts, r->base, 0, size * esize);
    r->bufs = bufs ? guest_alloc(&t->qs->alloc, size * BUF_SIZE) : 0;
}

static void write_desc(Ctx *t, Ring *r, uint32_t i, uint64_t addr,
                       uint16_t len)
{
    struct mrpsim_desc d = {
        .addr = cpu_to_le64(addr),
        .len = cpu_to_le16(len),
    };

    qtest_memwrite(t->qts, r->base + i * MRPSIM_DESC_SIZE, &d, sizeof(d));
}

static struct mrpsim_desc read_desc(Ctx *t, Ring *r, uint32_t i)
{
    struct mrpsim_desc d;

    qtest_memread(t->qts, r->base + i * MRPSIM_DESC_SIZE, &d, sizeof(d));
    d.addr = le64_to_cpu(d.addr);
    d.len = le16_to_cpu(d.len);
    d.status = le16_to_cpu(d.status);
    d.meta = le32_to_cpu(d.meta);
    return d;
}

/* TX ring and RX ring with size - 1 posted buffers of @rxlen bytes. */
static void port_rings(Ctx *t, Sw *sw, int port, uint16_t rxlen)
{
    uint32_t base = MRPSIM_PORT_BASE(port);
    uint32_t i;

    ring_alloc(t, &sw->tx[port], RING_SIZE, MRPSIM_DESC_SIZE, true);
    g_assert(ring_enable(t, sw, base + MRPSIM_PORT_TXQ, sw->tx[port].base,
                         RING_SIZE));
    ring_alloc(t, &sw->rx[port], RING_SIZE, MRPSIM_DESC_SIZE, true);
    g_assert(ring_enable(t, sw, base + MRPSIM_PORT_RXQ, sw->rx[port].base,
                         RING_SIZE));
    for (i = 0; i < RING_SIZE - 1; i++) {
        write_desc(t, &sw->rx[port], i, sw->rx[port].bufs + i * BUF_SIZE,
                   rxlen);
    }
    pwr(sw, port, MRPSIM_PORT_RXQ + MRPSIM_Q_TAIL, RING_SIZE - 1);
}

/* RX and TX rings on both ports of two switches */
static void two_port_rings(Ctx *t, Sw *a, Sw *b)
{
    port_rings(t, a, 0, BUF_SIZE);
    port_rings(t, a, 1, BUF_SIZE);
    port_rings(t, b, 0, BUF_SIZE);
    port_rings(t, b, 1, BUF_SIZE);
}

static void evq_setup(Ctx *t, Sw *sw, uint32_t size)
{
    ring_alloc(t, &sw->evq, size, MRPSIM_EVENT_SIZE, false);
    g_assert(ring_enable(t, sw, MRPSIM_REG_EVQ_BASE_LO, sw->evq.base, size));
}

/* Post one frame on port @port's TX ring; returns its descriptor index. */
static uint32_t tx_post(Ctx *t, Sw *sw, int port, const void *frame,
                        uint16_t len, uint64_t addr)
{
    Ring *r = &sw->tx[port];
    uint32_t i = r->next;

    if (!addr) {
        addr = r->bufs + i * BUF_SIZE;
        qtest_memwrite(t->qts, addr, frame, len);
    }
    write_desc(t, r, i, addr, len);
    r->next = (i + 1) % r->size;
    pwr(sw, port, MRPSIM_PORT_TXQ + MRPSIM_Q_TAIL, r->next);
    return i;
}

static void tx(Ctx *t, Sw *sw, int port, const void *frame, uint16_t len)
{
    uint32_t i = tx_post(t, sw, port, frame, len, 0);

    g_assert_cmphex(read_desc(t, &sw->tx[port], i).status, ==,
                    MRPSIM_DESC_DONE);
}

/*
 * Next completed RX descriptor of @port: its frame in @buf, returns its
 * length, or -1 when the device has not completed one.  The buffer is
 * posted again.
 */
static int rx(Ctx *t, Sw *sw, int port, uint8_t *buf, uint16_t *status,
              uint32_t *meta)
{
    Ring *r = &sw->rx[port];
    struct mrpsim_desc d = read_desc(t, r, r->next);
    uint32_t tail;

    if (!(d.status & MRPSIM_DESC_DONE)) {
        return -1;
    }
    g_assert_cmpuint(d.len, <=, BUF_SIZE);
    qtest_memread(t->qts, d.addr, buf, d.len);
    if (status) {
        *status = d.status;
    }
    if (meta) {
        *meta = d.meta;
    }
    /* repost: the slot becomes the one before the current tail */
    tail = prd(sw, port, MRPSIM_PORT_RXQ + MRPSIM_Q_TAIL);
    write_desc(t, r, tail, r->bufs + tail * BUF_SIZE, BUF_SIZE);
    pwr(sw, port, MRPSIM_PORT_RXQ + MRPSIM_Q_TAIL, (tail + 1) % r->size);
    r->next = (r->next + 1) % r->size;
    return d.len;
}

static bool ev_next(Ctx *t, Sw *sw, Ev *ev)
{
    uint8_t e[MRPSIM_EVENT_SIZE];
    uint64_t addr = sw->evq.base + sw->evq.next * MRPSIM_EVENT_SIZE;

    qtest_memread(t->qts, addr, e, sizeof(e));
    if (!(e[1] & MRPSIM_EV_F_VALID)) {
        return false;
    }
    ev->type = e[0];
    ev->port = e[2];
    ev->ring = e[3];
    ev->data = ldl_le_p(e + 4);
    ev->ts = ldq_le_p(e + 8);
    e[1] = 0;
    qtest_memwrite(t->qts, addr, e, sizeof(e));
    sw->evq.next = (sw->evq.next + 1) % sw->evq.size;
    wr(sw, MRPSIM_REG_EVQ_TAIL, sw->evq.next);
    return true;
}

static void expect_ev(Ctx *t, Sw *sw, uint8_t type, uint8_t port,
                      uint8_t ring, uint32_t data)
{
    Ev ev;

    g_assert(ev_next(t, sw, &ev));
    g_assert_cmpuint(ev.type, ==, type);
    g_assert_cmpuint(ev.port, ==, port);
    g_assert_cmpuint(ev.ring, ==, ring);
    if (type == MRPSIM_EV_MRP_LOSS || type == MRPSIM_EV_MRP_REGAIN ||
        type == MRPSIM_EV_TEST_DONE) {
        /* raised by the instance's current (or last) test */
        g_assert_cmphex(ev.data, ==, data | mgen(sw, ring) <<
                        MRPSIM_EV_MRP_GEN_SHIFT);
        return;
    }
    g_assert_cmphex(ev.data, ==, data);
}

static void expect_no_ev(Ctx *t, Sw *sw)
{
    Ev ev;

    if (ev_next(t, sw, &ev)) {
        g_error("unexpected event: type %u port 0x%x ring 0x%x data 0x%x",
                ev.type, ev.port, ev.ring, ev.data);
    }
}

/*
 * Frames forwarded by hardware leave from a bottom half: let the main loop
 * run (every qtest command is one iteration) until @c of @port reaches
 * @want.
 */
static void wait_cnt(Sw *sw, int port, int c, uint64_t want)
{
    int i;

    for (i = 0; i < 1000 && cnt(sw, port, c) < want; i++) {
        g_usleep(100);
    }
    g_assert_cmpuint(cnt(sw, port, c), ==, want);
}

static size_t data_frame(uint8_t *f, size_t len, uint8_t seed)
{
    size_t i;

    memset(f, 0xff, 6);
    memcpy(f + 6, sa0, 6);
    stw_be_p(f + 12, 0x0800);
    for (i = 14; i < len; i++) {
        f[i] = seed + i;
    }
    return len;
}

/*
 * A 64-byte LLDP frame to 01-80-C2-00-00-@last (0x0e: LLDP's own address,
 * link-local; 0x10: outside the reserved range).
 */
static size_t lldp_frame(uint8_t *f, uint8_t last)
{
    static const uint8_t da[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 };

    data_frame(f, 64, 5);
    memcpy(f, da, 6);
    f[5] = last;
    stw_be_p(f + 12, 0x88cc);
    return 64;
}

/* A zeroed MRP frame from @sa to @da whose first TLV is (@tlv, @len). */
static void mrp_head(uint8_t *f, const uint8_t *da, const uint8_t *sa,
                     uint8_t tlv, uint8_t len)
{
    memset(f, 0, MRP_FRAME_LEN);
    memcpy(f, da, 6);
    memcpy(f + 6, sa, 6);
    stw_be_p(f + 12, 0x88e3);
    stw_be_p(f + 14, 1);
    f[16] = tlv;
    f[17] = len;
}

/* An MRP frame with a Test TLV from @sa, as another MRM would send it. */
static size_t mrp_test_frame(uint8_t *f, const uint8_t *sa, uint16_t seq)
{
    mrp_head(f, test_dmac, sa, 0x02, 18);
    stw_be_p(f + 18, 0x8000);
    memcpy(f + 20, sa, 6);
    f[36] = 0x01;
    f[37] = 18;
    stw_be_p(f + 38, seq);
    memset(f + 40, 0xff, 16);
    return MRP_FRAME_LEN;
}

/* An MRP_TopologyChange from sa0 asking for a flush in @ms. */
static size_t mrp_topo_frame(uint8_t *f, uint16_t ms)
{
    mrp_head(f, ctrl_dmac, sa0, 0x03, 10);
    stw_be_p(f + 18, 0x8000);
    memcpy(f + 20, sa0, 6);
    stw_be_p(f + 26, ms);
    f[28] = 0x01;
    f[29] = 18;
    memset(f + 32, 0xff, 16);
    return MRP_FRAME_LEN;
}

static size_t mrp_ctrl_frame(uint8_t *f, uint8_t tlv)
{
    mrp_head(f, ctrl_dmac, sa0, tlv, 12);
    f[30] = 0x01;
    f[31] = 18;
    return MRP_FRAME_LEN;
}

/* An MRP_InTest of interconnection @id from @sa, sent on port role @role. */
static size_t mrp_in_test_frame(uint8_t *f, uint16_t id, const uint8_t *sa,
                                uint16_t role)
{
    mrp_head(f, in_dmac, sa, 0x06, 18);
    stw_be_p(f + 18, id);
    memcpy(f + 20, sa, 6);
    stw_be_p(f + 26, role);
    f[36] = 0x01;
    f[37] = 18;
    memset(f + 40, 0xff, 16);
    return MRP_FRAME_LEN;
}

/* ---- FDB and L2 forwarding ---- */

static const uint8_t host[5][6] = {
    { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x00 },
    { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x01 },
    { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x02 },
    { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x03 },
    { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x04 },
};
#define L2_CTRL (MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_LEARN | \
                 MRPSIM_PORT_CTRL_FLOOD_ALL)

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

/* An IPv4-typed frame from @sa to @da. */
static size_t host_frame(uint8_t *f, size_t len, const uint8_t *sa,
                         const uint8_t *da)
{
    data_frame(f, len, sa[5]);
    memcpy(f, da, 6);
    memcpy(f + 6, sa, 6);
    return len;
}

/* Run an FDB command on @mac with FDB_ENTRY @entry; returns its status. */
static uint32_t fdb_cmd(Sw *sw, uint32_t cmd, const uint8_t *mac,
                        uint32_t entry)
{
    wr(sw, MRPSIM_REG_FDB_MAC_LO, ldl_le_p(mac));
    wr(sw, MRPSIM_REG_FDB_MAC_HI, lduw_le_p(mac + 4));
    wr(sw, MRPSIM_REG_FDB_ENTRY, entry);
    wr(sw, MRPSIM_REG_FDB_CMD, cmd);
    return rd(sw, MRPSIM_REG_FDB_CMD);
}

/* FDB_ENTRY of slot @idx, its MAC in @mac. */
static uint32_t fdb_read(Sw *sw, uint32_t idx, uint8_t *mac)
{
    wr(sw, MRPSIM_REG_FDB_INDEX, idx);
    wr(sw, MRPSIM_REG_FDB_CMD, MRPSIM_FDB_CMD_READ);
    g_assert_cmpuint(rd(sw, MRPSIM_REG_FDB_CMD), ==, MRPSIM_FDB_OK);
    stl_le_p(mac, rd(sw, MRPSIM_REG_FDB_MAC_LO));
    stw_le_p(mac + 4, rd(sw, MRPSIM_REG_FDB_MAC_HI));
    return rd(sw, MRPSIM_REG_FDB_ENTRY);
}

/* The next event is an FDB event for @port, @why; returns its index. */
static uint32_t expect_fdb_ev(Ctx *t, Sw *sw, uint8_t port, uint32_t why)
{
    Ev ev;

    g_assert(ev_next(t, sw, &ev));
    g_assert_cmpuint(ev.type, ==, MRPSIM_EV_FDB);
    g_assert_cmpuint(ev.port, ==, port);
    g_assert_cmpuint(ev.ring, ==, MRPSIM_EV_NONE);
    g_assert_cmpuint((ev.data & MRPSIM_EV_FDB_WHY_MASK) >>
                     MRPSIM_EV_FDB_WHY_SHIFT, ==, why);
    g_assert_cmpuint(ev.data & MRPSIM_EV_FDB_INDEX_MASK, <,
                     MRPSIM_FDB_ENTRIES);
    return ev.data & MRPSIM_EV_FDB_INDEX_MASK;
}

/* Frames waiting on @port's RX ring, each checked and consumed. */
static int rx_count(Ctx *t, Sw *sw, int port, uint16_t want_status)
{
    uint8_t g[BUF_SIZE];
    uint16_t status;
    int n = 0;

    while (rx(t, sw, port, g, &status, NULL) >= 0) {
        g_assert_cmphex(status, ==, want_status);
        n++;
    }
    return n;
}

/* ---- Tests ---- */

static void test_ident(void)
{
    Ctx *t = boot("-netdev hubport,id=c0,hubid=1 "
                  "-netdev hubport,id=c1,hubid=1 "
                  "-device mrpsim,addr=4,ports=4,rings=3,netdev1=c0,"
                  "mac=02:00:00:00:10:00 "
                  "-device mrpsim,addr=5,ports=2,mrp=off,netdev0=c1 "
                  "-netdev hubport,id=c2,hubid=2 "
                  "-netdev hubport,id=c3,hubid=2 "
                  "-device mrpsim,addr=6,ports=8,rings=4,netdev7=c2,"
                  "netdev6=c3", 3);
    Sw *a = &t->sw[0], *b = &t->sw[1], *c = &t->sw[2];
    uint32_t c0, c1;

    g_assert_cmphex(qpci_config_readw(a->dev, PCI_VENDOR_ID), ==,
                    MRPSIM_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(a->dev, PCI_DEVICE_ID), ==,
                    MRPSIM_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readb(a->dev, PCI_REVISION_ID), ==,
                    MRPSIM_PCI_REVISION);
    g_assert_cmphex(qpci_config_readw(a->dev, PCI_CLASS_DEVICE), ==,
                    MRPSIM_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(a->dev, PCI_INTERRUPT_PIN), ==, 0);
    g_assert_cmphex(rd(a, MRPSIM_REG_ID), ==, MRPSIM_ID);
    g_assert_cmphex(rd(a, MRPSIM_REG_VERSION), ==, 0x10002);
    g_assert_cmphex(rd(a, MRPSIM_REG_CAP), ==,
                    4 | 3 << MRPSIM_CAP_RINGS_SHIFT | MRPSIM_CAP_MRP |
                    MRPSIM_CAP_MRA | MRPSIM_CAP_L2 | MRPSIM_CAP_ASSIST |
                    MRPSIM_CAP_IN);
    g_assert_cmphex(rd(b, MRPSIM_REG_CAP), ==, 2 | MRPSIM_CAP_L2);
    g_assert_cmphex(rd(c, MRPSIM_REG_CAP), ==,
                    8 | 4 << MRPSIM_CAP_RINGS_SHIFT | MRPSIM_CAP_MRP |
                    MRPSIM_CAP_MRA | MRPSIM_CAP_L2 | MRPSIM_CAP_ASSIST |
                    MRPSIM_CAP_IN);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_SIZE), ==, MRPSIM_FDB_ENTRIES);
    g_assert_cmphex(rd(c, MRPSIM_REG_IRQ_MASK), ==, 0x1ff);
    g_assert_cmphex(prd(c, 7, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    g_assert_cmphex(prd(c, 5, MRPSIM_PORT_STATUS), ==, 0);
    g_assert_cmphex(mrd(c, 3, MRPSIM_MRP_PRIO), ==, 0x8000);

    /* base MAC and per-port MACs; the default one differs per slot */
    g_assert_cmphex(rd(a, MRPSIM_REG_MAC_LO), ==, 0x00000002);
    g_assert_cmphex(rd(a, MRPSIM_REG_MAC_HI), ==, 0x0010);
    g_assert_cmphex(prd(a, 3, MRPSIM_PORT_MAC_HI), ==, 0x0310);
    g_assert_cmphex(rd(b, MRPSIM_REG_MAC_LO), ==, 0x12005452);
    g_assert_cmphex(rd(b, MRPSIM_REG_MAC_HI), ==, 0x5034);
    g_assert_cmphex(prd(b, 1, MRPSIM_PORT_MAC_HI), ==, 0x5134);

    /* power-on state: all vectors masked, ports enabled forwarding */
    g_assert_cmphex(rd(a, MRPSIM_REG_IRQ_MASK), ==, 0x1f);
    g_assert_cmphex(rd(b, MRPSIM_REG_IRQ_MASK), ==, 0x7);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_CTRL), ==,
                    MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_FLOOD_ALL);
    /* link follows the backend; unconnected ports are down */
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==, 0);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    g_assert_cmphex(prd(b, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    g_assert_cmphex(prd(b, 1, MRPSIM_PORT_STATUS), ==, 0);
    /* port blocks past the port count read as zero */
    g_assert_cmphex(prd(b, 2, MRPSIM_PORT_CTRL), ==, 0);

    /* MRP blocks: defaults with mrp=on, zero and read-only with mrp=off */
    g_assert_cmphex(mrd(a, 2, MRPSIM_MRP_PRIO), ==, 0x8000);
    g_assert_cmphex(mrd(a, 2, MRPSIM_MRP_PORTS), ==, 0xffff);
    g_assert_cmphex(mrd(a, 3, MRPSIM_MRP_PRIO), ==, 0);
    g_assert_cmphex(mrd(b, 0, MRPSIM_MRP_PRIO), ==, 0);
    mwr(b, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRM);
    g_assert_cmphex(mrd(b, 0, MRPSIM_MRP_ROLE), ==, 0);

    /* free-running clock in ns of the virtual clock */
    c0 = rd(a, MRPSIM_REG_CLOCK_LO);
    qtest_clock_step(t->qts, 1000000);
    c1 = rd(a, MRPSIM_REG_CLOCK_LO);
    g_assert_cmpuint(c1 - c0, ==, 1000000);
    g_assert_cmphex(rd(a, MRPSIM_REG_CLOCK_HI), ==, 0);

    /* undefined registers read 0, writes to read-only ones are ignored */
    g_assert_cmphex(rd(a, 0x0f00), ==, 0);
    wr(a, MRPSIM_REG_ID, 0);
    g_assert_cmphex(rd(a, MRPSIM_REG_ID), ==, MRPSIM_ID);
    shutdown_ctx(t);
}

static void expect_ring_err(Ctx *t, Sw *sw, int port)
{
    expect_err(sw, MRPSIM_ERR_RING, port);
    expect_ev(t, sw, MRPSIM_EV_ERROR, port, MRPSIM_EV_NONE, MRPSIM_ERR_RING |
              port << MRPSIM_ERR_INFO_PORT_SHIFT);
}

static void test_ring_setup(void)
{
    Ctx *t = boot("-device mrpsim,addr=4", 1);
    Sw *sw = &t->sw[0];
    uint32_t txq = MRPSIM_PORT_BASE(1) + MRPSIM_PORT_TXQ;
    uint64_t mem = guest_alloc(&t->qs->alloc, 4096);

    evq_setup(t, sw, EVQ_SIZE);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_CTRL), ==, MRPSIM_Q_CTRL_EN);

    /* bad bases and sizes: RING error, the ring stays disabled */
    g_assert(!ring_enable(t, sw, txq, 0, 16));
    expect_ring_err(t, sw, 1);
    g_assert(!ring_enable(t, sw, txq, mem + 8, 16));
    expect_ring_err(t, sw, 1);
    g_assert(!ring_enable(t, sw, txq, mem, 12));
    expect_ring_err(t, sw, 1);
    g_assert(!ring_enable(t, sw, txq, mem, 1));
    expect_ring_err(t, sw, 1);
    g_assert(!ring_enable(t, sw, txq, mem, 8192));
    expect_ring_err(t, sw, 1);
    g_assert(!ring_enable(t, sw, txq, 0xfffffffffffffff0ULL, 16));
    expect_ring_err(t, sw, 1);
    g_assert(!ring_enable(t, sw, MRPSIM_PORT_BASE(0) + MRPSIM_PORT_RXQ,
                          mem, 0));
    expect_ring_err(t, sw, 0);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_CTRL), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_CTRL), ==, MRPSIM_Q_CTRL_EN);

    /* a good one starts at zero */
    g_assert(ring_enable(t, sw, txq, mem, 16));
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_HEAD), ==, 0);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_TAIL), ==, 0);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_BASE_LO), ==, (uint32_t)mem);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_SIZE), ==, 16);

    /* TAIL out of range: INDEX error, ignored */
    wr(sw, txq + MRPSIM_Q_TAIL, 16);
    expect_err(sw, MRPSIM_ERR_INDEX, 1);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_INFO) >>
                    MRPSIM_ERR_INFO_INDEX_SHIFT, ==, 16);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_TAIL), ==, 0);
    expect_ev(t, sw, MRPSIM_EV_ERROR, 1, MRPSIM_EV_NONE, MRPSIM_ERR_INDEX |
              1 << MRPSIM_ERR_INFO_PORT_SHIFT |
              16 << MRPSIM_ERR_INFO_INDEX_SHIFT);

    /* disable and re-enable */
    wr(sw, txq + MRPSIM_Q_CTRL, 0);
    g_assert_cmphex(rd(sw, txq + MRPSIM_Q_CTRL), ==, 0);
    g_assert(ring_enable(t, sw, txq, mem, 4));
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    shutdown_ctx(t);
}

#define TWO_SWITCHES \
    "-netdev hubport,id=a0,hubid=1 -netdev hubport,id=b0,hubid=1 " \
    "-netdev hubport,id=a1,hubid=2 -netdev hubport,id=b1,hubid=2 " \
    "-device mrpsim,id=sw0,addr=4,netdev0=a0,netdev1=a1 " \
    "-device mrpsim,id=sw1,addr=5,netdev0=b0,netdev1=b1"

static void test_cable(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE], g[BUF_SIZE];
    uint16_t status;
    uint32_t meta;
    int n;

    port_rings(t, a, 0, BUF_SIZE);
    port_rings(t, b, 0, BUF_SIZE);
    wr(a, MRPSIM_REG_IRQ_MASK_CLR, 0xffffffff);
    wr(b, MRPSIM_REG_IRQ_MASK_CLR, 0xffffffff);

    /* sw0 port 0 -> cable -> sw1 port 0 */
    data_frame(f, 100, 1);
    tx(t, a, 0, f, 100);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_TXQ + MRPSIM_Q_HEAD), ==, 1);
    n = rx(t, b, 0, g, &status, &meta);
    g_assert_cmpint(n, ==, 100);
    g_assert(!memcmp(f, g, 100));
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE);
    g_assert_cmphex(meta, ==, 0xff);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
    g_assert(msix_fired(t, a, MRPSIM_VEC_PORT(0)));
    g_assert(msix_fired(t, b, MRPSIM_VEC_PORT(0)));
    g_assert(!msix_fired(t, b, MRPSIM_VEC_PORT(1)));
    g_assert(!msix_fired(t, b, MRPSIM_VEC_EVENT));

    /* and back, with a maximum-length frame */
    data_frame(f, MRPSIM_MAX_FRAME_LEN, 7);
    tx(t, b, 0, f, MRPSIM_MAX_FRAME_LEN);
    n = rx(t, a, 0, g, &status, NULL);
    g_assert_cmpint(n, ==, MRPSIM_MAX_FRAME_LEN);
    g_assert(!memcmp(f, g, n));

    /* counters: frames and bytes both ways, 64-bit reads */
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_FRAMES), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_BYTES), ==, 100);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_RX_FRAMES), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_RX_BYTES), ==,
                     MRPSIM_MAX_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_TX_FRAMES), ==, 1);
    g_assert_cmpuint(qpci_io_readq(b->dev, b->bar, MRPSIM_PORT_BASE(0) +
                                   MRPSIM_PORT_CNT(MRPSIM_CNT_RX_BYTES)),
                     ==, 100);

    /* no RX buffer: counted, not queued */
    pwr(b, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    port_rings(t, a, 1, BUF_SIZE);
    tx(t, a, 1, f, 64);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_RX_DROP_NOBUF), ==, 1);
    /* a buffer too small for the frame: RX_ERR, the buffer stays */
    port_rings(t, b, 1, 64);
    tx(t, a, 1, f, 65);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_RX_ERR), ==, 1);
    g_assert_cmphex(prd(b, 1, MRPSIM_PORT_RXQ + MRPSIM_Q_HEAD), ==, 0);
    tx(t, a, 1, f, 64);
    g_assert_cmpint(rx(t, b, 1, g, NULL, NULL), ==, 64);
    shutdown_ctx(t);
}

static void test_link(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[64];

    evq_setup(t, a, EVQ_SIZE);
    evq_setup(t, b, EVQ_SIZE);
    port_rings(t, a, 0, BUF_SIZE);
    wr(a, MRPSIM_REG_IRQ_MASK_CLR, 1);

    set_link(t, "a0", false);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==, 0);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    expect_no_ev(t, a);
    g_assert(msix_fired(t, a, MRPSIM_VEC_EVENT));
    /* the far end is not told */
    expect_no_ev(t, b);
    g_assert_cmphex(prd(b, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);

    /* a frame on a link-down port completes and is counted as dropped */
    tx(t, a, 0, f, data_frame(f, 64, 0));
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_DROP_LINK), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_FRAMES), ==, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 0);

    set_link(t, "a0", true);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);
    tx(t, a, 0, f, 64);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 1);

    /* set_link on the switch's own port name works the same way */
    set_link(t, "sw1.p1", false);
    expect_ev(t, b, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 0);
    shutdown_ctx(t);
}

/*
 * A port powers its PHY down while disabled: on a cable of two hubports
 * the port at the other end loses its link, and gets it back when the
 * port is enabled again, by the driver or by a reset.  A hub of three
 * ports is no cable: its ports keep their backends' link.
 */
static void test_link_partner(void)
{
    Ctx *t = boot(TWO_SWITCHES " -netdev hubport,id=h0,hubid=3 "
                  "-netdev hubport,id=h1,hubid=3 "
                  "-netdev hubport,id=h2,hubid=3 "
                  "-device mrpsim,id=sw2,addr=6,netdev0=h0,netdev1=h2 "
                  "-device mrpsim,id=sw3,addr=7,netdev0=h1", 4);
    Sw *a = &t->sw[0], *b = &t->sw[1], *c = &t->sw[2], *d = &t->sw[3];

    evq_setup(t, a, EVQ_SIZE);
    evq_setup(t, b, EVQ_SIZE);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);

    pwr(b, 0, MRPSIM_PORT_CTRL, 0);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    expect_no_ev(t, a);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==, 0);
    /* the disabled port's own link follows its partner, which is on */
    expect_no_ev(t, b);
    g_assert_cmphex(prd(b, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    /* the other cable does not move; a state change alone is no event */
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    pwr(b, 0, MRPSIM_PORT_CTRL,
        MRPSIM_PSTATE_DISABLED << MRPSIM_PORT_CTRL_STATE_SHIFT);
    expect_no_ev(t, a);

    pwr(b, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);

    /* a reset enables the ports again */
    pwr(b, 0, MRPSIM_PORT_CTRL, 0);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    wr(b, MRPSIM_REG_CTRL, MRPSIM_CTRL_RESET);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);
    expect_no_ev(t, a);

    /* the backend's link still counts: both must be up */
    set_link(t, "a0", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    pwr(b, 0, MRPSIM_PORT_CTRL, 0);
    pwr(b, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    expect_no_ev(t, a);
    set_link(t, "a0", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);

    /* three ports on one hub: no link partner */
    pwr(d, 0, MRPSIM_PORT_CTRL, 0);
    g_assert_cmphex(prd(c, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    shutdown_ctx(t);
}

/*
 * Two ports of one switch on one backend: device_add fails with an error
 * instead of aborting QEMU, and the backend stays free for a switch that
 * is added right.
 */
static void test_netdev_shared(void)
{
    Ctx *t = boot("-netdev hubport,id=n0,hubid=1 "
                  "-netdev hubport,id=n1,hubid=1", 0);
    QDict *resp;
    const char *desc;

    resp = qtest_qmp(t->qts, "{'execute': 'device_add', 'arguments':"
                     " {'driver': 'mrpsim', 'id': 'sw0', 'addr': '4',"
                     " 'ports': 4, 'netdev1': 'n1', 'netdev3': 'n1'}}");
    g_assert(qdict_haskey(resp, "error"));
    desc = qdict_get_str(qdict_get_qdict(resp, "error"), "desc");
    g_assert(strstr(desc, "netdev1 and netdev3"));
    qobject_unref(resp);

    qtest_qmp_device_add(t->qts, "mrpsim", "sw0",
                         "{'addr': '4', 'netdev0': 'n0', 'netdev1': 'n1'}");
    sw_init(t, 0, 4);
    /* the cable n0 - n1 loops back: both ports have their link */
    g_assert_cmphex(prd(&t->sw[0], 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    g_assert_cmphex(prd(&t->sw[0], 1, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    shutdown_ctx(t);
}

static void test_bad_desc(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint32_t txq = MRPSIM_PORT_TXQ;
    uint8_t f[64];
    uint32_t i;

    evq_setup(t, a, EVQ_SIZE);
    port_rings(t, a, 0, BUF_SIZE);
    port_rings(t, b, 0, BUF_SIZE);
    data_frame(f, 64, 0);

    /* bad TX lengths: DONE | ERR, LEN error with the descriptor index */
    tx(t, a, 0, f, 64);
    i = tx_post(t, a, 0, f, 13, 0);
    g_assert_cmphex(read_desc(t, &a->tx[0], i).status, ==,
                    MRPSIM_DESC_DONE | MRPSIM_DESC_ERR);
    g_assert_cmphex(rd(a, MRPSIM_REG_ERR_INFO), ==,
                    MRPSIM_ERR_LEN | 1 << MRPSIM_ERR_INFO_INDEX_SHIFT);
    expect_err(a, MRPSIM_ERR_LEN, 0);
    expect_ev(t, a, MRPSIM_EV_ERROR, 0, MRPSIM_EV_NONE,
              MRPSIM_ERR_LEN | 1 << MRPSIM_ERR_INFO_INDEX_SHIFT);
    i = tx_post(t, a, 0, f, MRPSIM_MAX_FRAME_LEN + 1, 0);
    g_assert_cmphex(read_desc(t, &a->tx[0], i).status, ==,
                    MRPSIM_DESC_DONE | MRPSIM_DESC_ERR);
    expect_err(a, MRPSIM_ERR_LEN, 0);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_ERR), ==, 2);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 1);

    /* unmapped buffer: DMA error, ring halted, descriptor not completed */
    i = tx_post(t, a, 0, f, 64, 1ULL << 46);
    g_assert_cmphex(read_desc(t, &a->tx[0], i).status, ==, 0);
    g_assert_cmphex(prd(a, 0, txq + MRPSIM_Q_CTRL), ==,
                    MRPSIM_Q_CTRL_EN | MRPSIM_Q_CTRL_HALTED);
    g_assert_cmphex(prd(a, 0, txq + MRPSIM_Q_HEAD), ==, i);
    g_assert_cmphex(rd(a, MRPSIM_REG_ERR_INFO) >>
                    MRPSIM_ERR_INFO_INDEX_SHIFT, ==, i);
    expect_err(a, MRPSIM_ERR_DMA, 0);
    /* a halted ring does nothing more */
    tx_post(t, a, 0, f, 64, 0);
    g_assert_cmphex(prd(a, 0, txq + MRPSIM_Q_HEAD), ==, i);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 1);
    /* disable, re-enable: running again */
    pwr(a, 0, txq + MRPSIM_Q_CTRL, 0);
    g_assert_cmphex(prd(a, 0, txq + MRPSIM_Q_CTRL), ==, 0);
    g_assert(ring_enable(t, a, MRPSIM_PORT_BASE(0) + txq, a->tx[0].base,
                         RING_SIZE));
    a->tx[0].next = 0;
    tx(t, a, 0, f, 64);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 2);

    /* ring base in unmapped memory: the descriptor read fails */
    g_assert(ring_enable(t, a, MRPSIM_PORT_BASE(1) + txq, 1ULL << 46, 4));
    pwr(a, 1, txq + MRPSIM_Q_TAIL, 1);
    g_assert_cmphex(prd(a, 1, txq + MRPSIM_Q_CTRL), ==,
                    MRPSIM_Q_CTRL_EN | MRPSIM_Q_CTRL_HALTED);
    expect_err(a, MRPSIM_ERR_DMA, 1);

    /* a buffer inside the device's own BAR: refused, not re-entered */
    i = tx_post(t, a, 0, f, 64, a->bar.addr);
    g_assert_cmphex(prd(a, 0, txq + MRPSIM_Q_CTRL), ==,
                    MRPSIM_Q_CTRL_EN | MRPSIM_Q_CTRL_HALTED);
    expect_err(a, MRPSIM_ERR_DMA, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 2);

    /* RX buffer below 64 bytes: completed with ERR, LEN error */
    port_rings(t, a, 1, 32);
    port_rings(t, b, 1, BUF_SIZE);
    tx(t, b, 1, f, 64);
    g_assert_cmphex(read_desc(t, &a->rx[1], 0).status, ==,
                    MRPSIM_DESC_DONE | MRPSIM_DESC_ERR);
    expect_err(a, MRPSIM_ERR_LEN, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_ERR), ==, 1);

    /* RX buffer in unmapped memory: DMA error, RX ring halted */
    write_desc(t, &a->rx[1], 1, 1ULL << 46, BUF_SIZE);
    tx(t, b, 1, f, 64);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_RXQ + MRPSIM_Q_CTRL), ==,
                    MRPSIM_Q_CTRL_EN | MRPSIM_Q_CTRL_HALTED);
    expect_err(a, MRPSIM_ERR_DMA, 1);
    tx(t, b, 1, f, 64);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_DROP_NOBUF), ==, 1);
    shutdown_ctx(t);
}

static void test_irq(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    unsigned int v = MRPSIM_VEC_PORT(0);
    uint8_t f[64], g[BUF_SIZE];

    port_rings(t, a, 0, BUF_SIZE);
    port_rings(t, b, 0, BUF_SIZE);
    data_frame(f, 64, 0);

    /* masked at power-on: work is pending, nothing fires */
    tx(t, a, 0, f, 64);
    g_assert_cmphex(rd(b, MRPSIM_REG_IRQ_PENDING), ==, BIT(v));
    g_assert(!msix_fired(t, b, v));
    /* unmasking fires at once and auto-masks */
    wr(b, MRPSIM_REG_IRQ_MASK_CLR, BIT(v));
    g_assert(msix_fired(t, b, v));
    g_assert_cmphex(rd(b, MRPSIM_REG_IRQ_PENDING), ==, 0);
    g_assert_cmphex(rd(b, MRPSIM_REG_IRQ_MASK) & BIT(v), ==, BIT(v));
    /* more work while masked: pending again, no message */
    tx(t, a, 0, f, 64);
    g_assert(!msix_fired(t, b, v));
    g_assert_cmphex(rd(b, MRPSIM_REG_IRQ_PENDING), ==, BIT(v));
    /* drain, unmask: fires again since work arrived meanwhile */
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, 64);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, 64);
    wr(b, MRPSIM_REG_IRQ_MASK_CLR, BIT(v));
    g_assert(msix_fired(t, b, v));
    /* unmask with nothing pending: no message until new work */
    wr(b, MRPSIM_REG_IRQ_MASK_CLR, BIT(v));
    g_assert(!msix_fired(t, b, v));
    tx(t, a, 0, f, 64);
    g_assert(msix_fired(t, b, v));
    /* MASK_SET masks; only existing vectors can be masked */
    wr(b, MRPSIM_REG_IRQ_MASK_SET, 0xffffffff);
    g_assert_cmphex(rd(b, MRPSIM_REG_IRQ_MASK), ==, 0x7);
    tx(t, a, 0, f, 64);
    g_assert(!msix_fired(t, b, v));
    shutdown_ctx(t);
}

static void check_power_on(Ctx *t, Sw *sw)
{
    int p;
    int c;

    g_assert_cmphex(rd(sw, MRPSIM_REG_CTRL), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_INFO), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_IRQ_PENDING), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_IRQ_MASK), ==, 0x7);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_CTRL), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_BASE_LO), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_HEAD), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_DROPS), ==, 0);
    g_assert_cmpuint(rd(sw, MRPSIM_REG_FDB_COUNT), ==, 0);
    g_assert_cmpuint(rd(sw, MRPSIM_REG_FDB_AGEING), ==,
                     MRPSIM_FDB_AGEING_DEFAULT);
    g_assert_cmphex(rd(sw, MRPSIM_REG_FDB_ENTRY), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_FDB_MAC_LO), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_FDB_INDEX), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_FDB_CMD), ==, MRPSIM_FDB_OK);
    for (p = 0; p < 2; p++) {
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_TXQ + MRPSIM_Q_CTRL), ==, 0);
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_RXQ + MRPSIM_Q_CTRL), ==, 0);
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_TXQ + MRPSIM_Q_HEAD), ==, 0);
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_RXQ + MRPSIM_Q_TAIL), ==, 0);
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_CTRL), ==,
                        MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_FLOOD_ALL);
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_FWD_MASK), ==, 0);
        g_assert_cmpuint(prd(sw, p, MRPSIM_PORT_FLOOD_LIMIT), ==,
                         MRPSIM_FLOOD_LIMIT_DEFAULT);
        g_assert_cmphex(prd(sw, p, MRPSIM_PORT_MAC_HI), ==,
                        (0x40 + p) << 8);
        for (c = 0; c < MRPSIM_PORT_NUM_COUNTERS; c++) {
            g_assert_cmpuint(cnt(sw, p, c), ==, 0);
        }
    }
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_ROLE), ==, 0);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_PORTS), ==, 0xffff);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_PRIO), ==, 0x8000);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_DOMAIN(3)), ==, 0xffffffff);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_TEST_INTERVAL), ==, 1000);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_TEST_MAX_MISS), ==, 3);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_TEST_PERIOD), ==, 0);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_TEST_CTRL), ==, 0);
    g_assert_cmphex(mstatus(sw, 0), ==, 0);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_SEQ_ID), ==, 0);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_ASSIST), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_TOPO_INTERVAL), ==, 10000);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_TOPO_REPEAT), ==, 3);
}

/* Make @sw ring instance 0 an MRM on ports 0 and 1, test running. */
static void start_mrm(Sw *sw, uint32_t role, uint32_t iv, uint32_t max_miss)
{
    mwr(sw, 0, MRPSIM_MRP_ROLE, role);
    mwr(sw, 0, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(sw, 0, MRPSIM_MRP_SA_LO, ldl_le_p(sa0));
    mwr(sw, 0, MRPSIM_MRP_SA_HI, lduw_le_p(sa0 + 4));
    mwr(sw, 0, MRPSIM_MRP_TEST_INTERVAL, iv);
    mwr(sw, 0, MRPSIM_MRP_TEST_MAX_MISS, max_miss);
    /* commissioned as a closed ring (test_report_open) */
    mwr(sw, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    mwr(sw, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    g_assert_cmphex(mstatus(sw, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
}

static void test_reset(void)
{
    Ctx *t = boot("-netdev hubport,id=a0,hubid=1 "
                  "-netdev hubport,id=b0,hubid=1 "
                  "-device mrpsim,addr=4,netdev0=a0,mac=02:00:00:00:00:40 "
                  "-device mrpsim,addr=5,netdev0=b0", 2);
    Sw *sw = &t->sw[0], *b = &t->sw[1];
    uint8_t f[64];

    check_power_on(t, sw);
    /* dirty everything */
    evq_setup(t, sw, EVQ_SIZE);
    port_rings(t, sw, 0, BUF_SIZE);
    port_rings(t, sw, 1, BUF_SIZE);
    tx(t, sw, 0, f, data_frame(f, 64, 0));
    wr(sw, MRPSIM_REG_IRQ_MASK_CLR, 0x1);
    pwr(sw, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    pwr(sw, 0, MRPSIM_PORT_MAC_HI, 0x1234);
    pwr(sw, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PORT_CTRL_LEARN);
    pwr(sw, 0, MRPSIM_PORT_FWD_MASK, 0x3);
    wr(sw, MRPSIM_REG_FDB_AGEING, 1000);
    g_assert_cmpuint(fdb_cmd(sw, MRPSIM_FDB_CMD_ADD, host[1],
                             1 | MRPSIM_FDB_ENTRY_STATIC), ==,
                     MRPSIM_FDB_OK);
    port_rings(t, b, 0, BUF_SIZE);
    tx(t, b, 0, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpuint(rd(sw, MRPSIM_REG_FDB_COUNT), ==, 2);
    start_mrm(sw, MRPSIM_ROLE_MRM, IV_US, 3);
    wr(sw, MRPSIM_PORT_BASE(0) + MRPSIM_PORT_TXQ + MRPSIM_Q_TAIL, 99);
    mwr(sw, 0, MRPSIM_MRP_PRIO, 0x1000);
    mwr(sw, 0, MRPSIM_MRP_DOMAIN(3), 0);
    qtest_clock_step(t->qts, IV_US * 1000);
    /* port 1 has no cable: only port 0 sends, seq 1 and 2 */
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_SEQ_ID), ==, 2);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 3);

    wr(sw, MRPSIM_REG_CTRL, MRPSIM_CTRL_RESET);
    check_power_on(t, sw);
    g_assert_cmpuint(fdb_cmd(sw, MRPSIM_FDB_CMD_DEL, host[1], 0), ==,
                     MRPSIM_FDB_NOT_FOUND);
    wr(sw, MRPSIM_REG_FDB_CMD, 0);
    /* the test timer is stopped: no more frames on the wire */
    qtest_clock_step(t->qts, 10 * IV_US * 1000);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 3);
    g_assert_cmphex(prd(sw, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);

    /* the same through a system reset (qdev reset) */
    start_mrm(sw, MRPSIM_ROLE_MRM, IV_US, 3);
    evq_setup(t, sw, EVQ_SIZE);
    qobject_unref(qtest_qmp(t->qts, "{'execute': 'system_reset'}"));
    qtest_qmp_eventwait(t->qts, "RESET");
    /* the PCI reset cleared the BARs: map the functions again */
    g_free(t->sw[0].dev);
    g_free(t->sw[1].dev);
    sw_init(t, 0, 4);
    sw_init(t, 1, 5);
    check_power_on(t, sw);
    qtest_clock_step(t->qts, 10 * IV_US * 1000);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 0);
    shutdown_ctx(t);
}

static void check_test_frame(const uint8_t *g, int n, const uint8_t *src,
                             uint16_t role, uint16_t seq, uint32_t ms,
                             bool mra)
{
    g_assert_cmpint(n, ==, mra ? 70 : MRP_FRAME_LEN);
    g_assert(!memcmp(g, test_dmac, 6));
    g_assert(!memcmp(g + 6, src, 6));
    g_assert_cmphex(lduw_be_p(g + 12), ==, 0x88e3);
    g_assert_cmphex(lduw_be_p(g + 14), ==, 1);                 /* version */
    g_assert_cmphex(g[16], ==, 0x02);                          /* Test */
    g_assert_cmphex(g[17], ==, 18);
    g_assert_cmphex(lduw_be_p(g + 18), ==, 0x9000);            /* prio */
    g_assert(!memcmp(g + 20, sa0, 6));
    g_assert_cmphex(lduw_be_p(g + 26), ==, role);
    g_assert_cmphex(lduw_be_p(g + 28), ==, 1);                 /* closed */
    g_assert_cmphex(lduw_be_p(g + 30), ==, 5);                 /* transit. */
    g_assert_cmphex(ldl_be_p(g + 32), ==, ms);                 /* ts */
    g_assert_cmphex(g[36], ==, 0x01);                          /* Common */
    g_assert_cmphex(g[37], ==, 18);
    g_assert_cmphex(lduw_be_p(g + 38), ==, seq);
    g_assert_cmphex(g[40], ==, 0x11);                          /* domain */
    g_assert_cmphex(g[55], ==, 0xff);
    if (mra) {
        static const uint8_t opt[12] = { 0x7f, 10, 0, 0, 0, 0, 0, 0,
                                         0x03, 0, 0, 0 };

        g_assert(!memcmp(g + 56, opt, sizeof(opt)));
        g_assert_cmphex(g[68], ==, 0x00);                      /* End */
        g_assert_cmphex(g[69], ==, 0);
    } else {
        g_assert_cmphex(g[56], ==, 0x00);                      /* End */
        g_assert_cmphex(g[57], ==, 0);
        g_assert_cmphex(g[58] | g[59], ==, 0);                 /* pad */
    }
}

static void do_test_mrm_frames(uint32_t role)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    const uint32_t iv = 500;
    uint8_t g[BUF_SIZE], mac0[6], mac1[6];
    uint64_t t0;
    uint16_t status;
    uint32_t meta;
    int n, k;

    port_rings(t, b, 0, BUF_SIZE);
    port_rings(t, b, 1, BUF_SIZE);
    stl_le_p(mac0, prd(a, 0, MRPSIM_PORT_MAC_LO));
    stw_le_p(mac0 + 4, prd(a, 0, MRPSIM_PORT_MAC_HI));
    stl_le_p(mac1, prd(a, 1, MRPSIM_PORT_MAC_LO));
    stw_le_p(mac1 + 4, prd(a, 1, MRPSIM_PORT_MAC_HI));
    mwr(a, 0, MRPSIM_MRP_PRIO, 0x9000);
    mwr(a, 0, MRPSIM_MRP_TRANSITIONS, 4);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_TRANSITIONS), ==, 5);
    mwr(a, 0, MRPSIM_MRP_DOMAIN(0), 0x11);
    /* start at 3 ms into virtual time so that timestamps are not 0 */
    qtest_clock_step(t->qts, 3000000 - qtest_clock_step(t->qts, 0));
    t0 = 3000000;
    start_mrm(a, role, iv, 3);

    /* the first frames leave at once, then one pair every interval */
    for (k = 0; k < 8; k++) {
        uint32_t ms = (t0 + k * iv * 1000) / 1000000;

        n = rx(t, b, 0, g, &status, &meta);
        check_test_frame(g, n, mac0, 0, 2 * k + 1, ms,
                         role == MRPSIM_ROLE_MRA);
        g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
        g_assert_cmphex(meta, ==, 0xff);
        n = rx(t, b, 1, g, NULL, NULL);
        check_test_frame(g, n, mac1, 1, 2 * k + 2, ms,
                         role == MRPSIM_ROLE_MRA);
        g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
        g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_SEQ_ID), ==, 2 * k + 2);
        /* half an interval: nothing; the other half: the next pair */
        qtest_clock_step(t->qts, iv * 500);
        g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
        qtest_clock_step(t->qts, iv * 500);
    }
    /* no drift: 100 intervals in one step give exactly 100 more pairs */
    qtest_clock_step(t->qts, 99 * iv * 1000);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 9 + 99);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_TEST_TX), ==, 9 + 99);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_TX_FRAMES), ==, 9 + 99);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_SEQ_ID), ==, 2 * (9 + 99));

    /* interval down to 100 us, not below */
    mwr(a, 0, MRPSIM_MRP_TEST_INTERVAL, 99);
    expect_err(a, MRPSIM_ERR_REG, 0xff);
    mwr(a, 0, MRPSIM_MRP_TEST_INTERVAL, 100);
    /* a rewrite of RUN sends nothing at once: the next tick is 100 us on */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 108);
    qtest_clock_step(t->qts, 1000 * 100 * 10);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 108 + 10);

    /* a link-down ring port gets no frames, the other one does */
    set_link(t, "a1", false);
    qtest_clock_step(t->qts, 1000 * 100);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 119);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_RX_FRAMES), ==, 118);

    /* RUN = 0 stops the generator */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    g_assert_cmphex(mstatus(a, 0), ==, 0);
    qtest_clock_step(t->qts, 10 * iv * 1000);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 119);
    shutdown_ctx(t);
}

static void test_mrm_frames(void)
{
    do_test_mrm_frames(MRPSIM_ROLE_MRM);
}

static void test_mra_frames(void)
{
    do_test_mrm_frames(MRPSIM_ROLE_MRA);
}

/* One interval for a ring of sw0 (MRM) and sw1 (MRC) via the BH. */
static void ring_step(Ctx *t, uint64_t *rx_own, bool closed)
{
    qtest_clock_step(t->qts, IV_US * 1000);
    if (closed) {
        *rx_own += 1;
        wait_cnt(&t->sw[0], 0, MRPSIM_CNT_MRP_TEST_RX, *rx_own);
        wait_cnt(&t->sw[0], 1, MRPSIM_CNT_MRP_TEST_RX, *rx_own);
    }
}

/*
 * A ring of two switches: sw1 is an MRC on its two ports (sw0 p0 - sw1 p0
 * ... sw1 p1 - sw0 p1), sw0 an MRM testing every IV_US with max_miss 3.
 * Returns once sw0's first own frames came back on both ports.
 */
static Ctx *mrm_mrc_ring(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];

    evq_setup(t, a, EVQ_SIZE);
    two_port_rings(t, a, b);
    mwr(b, 1, MRPSIM_MRP_PORTS, 1 | 0 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 1, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    wait_cnt(a, 0, MRPSIM_CNT_MRP_TEST_RX, 1);
    wait_cnt(a, 1, MRPSIM_CNT_MRP_TEST_RX, 1);
    return t;
}

static void test_mrm_loss(void)
{
    Ctx *t = mrm_mrc_ring();
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t g[BUF_SIZE];
    uint64_t own = 1;
    int k;

    /* closed ring: own frames come back, nothing is lost or missed */
    for (k = 0; k < 10; k++) {
        ring_step(t, &own, true);
    }
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TEST_MISSED), ==, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, own);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_MRP_FWD), ==, own);
    expect_no_ev(t, a);
    /* neither the MRM's nor the MRC's CPU saw a test frame */
    g_assert_cmpint(rx(t, a, 0, g, NULL, NULL), ==, -1);
    g_assert_cmpint(rx(t, a, 1, g, NULL, NULL), ==, -1);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
    g_assert_cmpint(rx(t, b, 1, g, NULL, NULL), ==, -1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_DROP_NOBUF), ==, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, 0);

    /* cut the sw0 p1 - sw1 p1 cable at both ends */
    set_link(t, "a1", false);
    set_link(t, "b1", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 0);
    /* loss between max_miss and max_miss + 1 intervals: the 4th tick */
    for (k = 0; k < 3; k++) {
        ring_step(t, &own, false);
        expect_no_ev(t, a);
    }
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    ring_step(t, &own, false);
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 0, 0, 0);
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 1, 0, 1);
    expect_no_ev(t, a);
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING | MRPSIM_MRP_STATUS_P_LOST |
                    MRPSIM_MRP_STATUS_S_LOST);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_LOSS), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TEST_MISSED), ==, 2);
    /* no repeated loss events while it stays open */
    ring_step(t, &own, false);
    expect_no_ev(t, a);
    wait_cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK, 5);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TEST_MISSED), ==, 3);

    /* mend it: regained on both ports at the next tick */
    set_link(t, "a1", true);
    set_link(t, "b1", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 1);
    ring_step(t, &own, true);
    expect_ev(t, a, MRPSIM_EV_MRP_REGAIN, 1, 0, 1);
    expect_ev(t, a, MRPSIM_EV_MRP_REGAIN, 0, 0, 0);
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_REGAIN), ==, 1);
    ring_step(t, &own, true);
    expect_no_ev(t, a);
    shutdown_ctx(t);
}

static void test_mrc_fwd(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE], g[BUF_SIZE];
    static const struct {
        uint8_t tlv;
        uint8_t dmac;       /* last byte of 01:15:4e:00:00:xx */
    } trapped[] = {
        { 0x03, 0x02 },     /* TopologyChange */
        { 0x04, 0x02 },     /* LinkDown */
        { 0x05, 0x02 },     /* LinkUp */
        { 0x7f, 0x01 },     /* Option: TestMgrNAck, TestPropagate */
        { 0x06, 0x03 },     /* InTest */
    };
    uint16_t status;
    uint32_t meta;
    unsigned int i;

    two_port_rings(t, a, b);
    mwr(b, 1, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 1, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    /* the MRC's ports are blocking: MRP frames still pass */
    pwr(b, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);

    /* MRP_Test from sw0's CPU: through sw1 unchanged, not to sw1's CPU */
    mrp_test_frame(f, sa0, 77);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    wait_cnt(a, 1, MRPSIM_CNT_RX_FRAMES, 1);
    g_assert_cmpint(rx(t, a, 1, g, &status, &meta), ==, MRP_FRAME_LEN);
    g_assert(!memcmp(f, g, MRP_FRAME_LEN));
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
    g_assert_cmpint(rx(t, b, 1, g, NULL, NULL), ==, -1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, 1);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_FRAMES), ==, 1);

    /* and the other way round */
    tx(t, a, 1, f, MRP_FRAME_LEN);
    wait_cnt(a, 0, MRPSIM_CNT_RX_FRAMES, 1);
    g_assert_cmpint(rx(t, a, 0, g, NULL, NULL), ==, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_MRP_FWD), ==, 1);

    /*
     * sw1's own MRP_Test (sent while it was a manager) came back round:
     * terminated, not forwarded a second time.
     */
    mwr(b, 1, MRPSIM_MRP_SA_LO, ldl_le_p(sa0));
    mwr(b, 1, MRPSIM_MRP_SA_HI, lduw_le_p(sa0 + 4));
    tx(t, a, 0, f, MRP_FRAME_LEN);
    wait_cnt(b, 0, MRPSIM_CNT_MRP_TEST_RX, 1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 1);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
    mwr(b, 1, MRPSIM_MRP_SA_LO, 0);
    mwr(b, 1, MRPSIM_MRP_SA_HI, 0);

    /*
     * Every other MRP frame goes to sw1's CPU only, for the bridge to
     * forward: TopologyChange, LinkDown, LinkUp (control, :02), an
     * Option frame (TestMgrNAck, :01) and InTest (:03).
     */
    for (i = 0; i < ARRAY_SIZE(trapped); i++) {
        if (trapped[i].tlv == 0x06) {
            mrp_in_test_frame(f, 7, sa0, 0);
        } else {
            mrp_ctrl_frame(f, trapped[i].tlv);
            f[5] = trapped[i].dmac;
        }
        tx(t, a, 0, f, MRP_FRAME_LEN);
        g_assert_cmpint(rx(t, b, 0, g, &status, &meta), ==, MRP_FRAME_LEN);
        g_assert(!memcmp(f, g, MRP_FRAME_LEN));
        g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
        g_assert_cmphex(meta, ==, 1);
        g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, i + 1);
    }
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, 1);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_FRAMES), ==, 1);
    /* nothing came out of sw1's other port: sw0 saw only the Test */
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 1);

    /* data frames do not cross the blocked port, either way */
    tx(t, a, 1, f, data_frame(f, 64, 3));
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_RX_DROP_BLOCKED), ==, 1);
    g_assert_cmpint(rx(t, b, 1, g, NULL, NULL), ==, -1);
    tx(t, b, 1, f, 64);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_BLOCKED), ==, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 1);
    /* an MRP frame from the CPU passes the blocked port */
    tx(t, b, 1, f, mrp_test_frame(f, sa0, 1));
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 2);
    /* link-local frames (LLDP) pass the blocked port, either way... */
    tx(t, a, 1, f, lldp_frame(f, 0x0e));
    g_assert_cmpint(rx(t, b, 1, g, &status, NULL), ==, 64);
    g_assert(!memcmp(f, g, 64));
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE);
    tx(t, b, 1, f, 64);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 3);
    /* ...but not other multicast near their range */
    tx(t, a, 1, f, lldp_frame(f, 0x10));
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_RX_DROP_BLOCKED), ==, 2);
    tx(t, b, 1, f, 64);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_BLOCKED), ==, 2);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 3);
    /* forwarding state: data passes again */
    pwr(b, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    tx(t, b, 1, f, data_frame(f, 64, 3));
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 4);
    /* port in disabled state: nothing passes */
    pwr(b, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_DISABLED << MRPSIM_PORT_CTRL_STATE_SHIFT);
    tx(t, a, 0, f, 64);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_DROP_DISABLED), ==, 1);
    /* disabled port (EN = 0): its PHY is off, the far end has no link */
    pwr(b, 0, MRPSIM_PORT_CTRL, 0);
    tx(t, a, 0, f, 64);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_DROP_LINK), ==, 1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_DROP_DISABLED), ==, 1);
    shutdown_ctx(t);
}

/*
 * While RING_STATE is open, a manager's first own test frame on each ring
 * port that was not lost also goes to the CPU: the software may have
 * opened the ring with no loss of the engine's (a test that ended while
 * the ring was open and started afresh, an MRP_LinkChange), and must hear
 * that it is closed.  With RING_STATE closed nothing goes up; a fresh test
 * on a ring still open reports the loss as usual.
 */
static void test_report_open(void)
{
    Ctx *t = mrm_mrc_ring();
    Sw *a = &t->sw[0];
    uint8_t g[BUF_SIZE];
    uint64_t own = 1;
    uint32_t meta;
    int k;

    /* cut: loss on both ports, the manager opens the ring */
    set_link(t, "a1", false);
    set_link(t, "b1", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 0);
    for (k = 0; k < 4; k++) {
        ring_step(t, &own, false);
    }
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 0, 0, 0);
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 1, 0, 1);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);

    /*
     * a fresh test on the ring still open: the loss comes again, max_miss
     * intervals after the start (its first tick is at once)
     */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    for (k = 0; k < 2; k++) {
        ring_step(t, &own, false);
        expect_no_ev(t, a);
    }
    ring_step(t, &own, false);
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 0, 0, 0);
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 1, 0, 1);

    /* the test ends; the cable is mended meanwhile */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    g_assert_cmphex(mstatus(a, 0), ==, 0);
    set_link(t, "a1", true);
    set_link(t, "b1", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 1);

    /*
     * started again, ring state open: no loss to end, no regain, but the
     * first own frame on each port goes to the CPU, once
     */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    own++;
    wait_cnt(a, 0, MRPSIM_CNT_MRP_TEST_RX, own);
    wait_cnt(a, 1, MRPSIM_CNT_MRP_TEST_RX, own);
    expect_no_ev(t, a);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TRAP), ==, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_TRAP), ==, 1);
    g_assert_cmpint(rx(t, a, 0, g, NULL, &meta), >, 0);
    g_assert(!memcmp(g + 6 + 6 + 2 + 2 + 4, sa0, 6));
    g_assert_cmpint(rx(t, a, 1, g, NULL, NULL), >, 0);
    ring_step(t, &own, true);
    expect_no_ev(t, a);
    g_assert_cmpint(rx(t, a, 0, g, NULL, NULL), ==, -1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_TRAP), ==, 1);

    /* the software closes the ring: nothing goes up */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    own++;
    wait_cnt(a, 0, MRPSIM_CNT_MRP_TEST_RX, own);
    ring_step(t, &own, true);
    expect_no_ev(t, a);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TRAP), ==, 1);

    /* opened with no loss (an MRP_LinkChange): the next own frames go up */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);
    ring_step(t, &own, true);
    ring_step(t, &own, true);
    expect_no_ev(t, a);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TRAP), ==, 2);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_TRAP), ==, 2);
    shutdown_ctx(t);
}

/*
 * An MRA in monitor mode acts as a client: a better manager's MRP_Test
 * frames cross it in hardware and keep its monitor quiet, on either port;
 * every other MRP frame goes to its CPU only, as on an MRC.
 */
static void test_mra_monitor(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    static const uint8_t sa1[6] = { 0x02, 0, 0, 0, 0xbb, 1 };
    uint8_t f[BUF_SIZE], g[BUF_SIZE];
    uint16_t status;
    int k;

    evq_setup(t, b, EVQ_SIZE);
    two_port_rings(t, a, b);
    mwr(b, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRA);
    mwr(b, 0, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 0, MRPSIM_MRP_PRIO, 0xa000);
    mwr(b, 0, MRPSIM_MRP_SA_LO, ldl_le_p(sa1));
    mwr(b, 0, MRPSIM_MRP_SA_HI, lduw_le_p(sa1 + 4));
    mwr(b, 0, MRPSIM_MRP_TEST_INTERVAL, IV_US);
    mwr(b, 0, MRPSIM_MRP_TEST_MAX_MISS, 3);
    mwr(b, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN |
        MRPSIM_TEST_CTRL_MONITOR);
    g_assert_cmphex(rd(b, MRPSIM_REG_ERR_STATUS), ==, 0);

    /*
     * A better manager's test frames on both ring ports every interval:
     * each crosses to the other port, and no loss is seen.
     */
    for (k = 0; k < 5; k++) {
        tx(t, a, 0, f, mrp_test_frame(f, sa0, 2 * k));
        wait_cnt(a, 1, MRPSIM_CNT_RX_FRAMES, k + 1);
        g_assert_cmpint(rx(t, a, 1, g, NULL, NULL), ==, MRP_FRAME_LEN);
        g_assert(!memcmp(f, g, MRP_FRAME_LEN));
        tx(t, a, 1, f, mrp_test_frame(f, sa0, 2 * k + 1));
        wait_cnt(a, 0, MRPSIM_CNT_RX_FRAMES, k + 1);
        g_assert_cmpint(rx(t, a, 0, g, NULL, NULL), ==, MRP_FRAME_LEN);
        qtest_clock_step(t->qts, IV_US * 1000);
    }
    /*
     * The ring is cut next to the MRA: the manager's frames arrive on
     * port 0 only.  They still prove the manager alive, for both ports.
     */
    for (k = 5; k < 10; k++) {
        tx(t, a, 0, f, mrp_test_frame(f, sa0, 2 * k));
        wait_cnt(a, 1, MRPSIM_CNT_RX_FRAMES, k + 1);
        g_assert_cmpint(rx(t, a, 1, g, NULL, NULL), ==, MRP_FRAME_LEN);
        qtest_clock_step(t->qts, IV_US * 1000);
    }
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, 10);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_MRP_FWD), ==, 5);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TEST_TX), ==, 0);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
    expect_no_ev(t, b);

    /* a TopologyChange and an Option frame: to the CPU, not forwarded */
    mrp_ctrl_frame(f, 0x03);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpint(rx(t, b, 0, g, &status, NULL), ==, MRP_FRAME_LEN);
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
    mrp_ctrl_frame(f, 0x7f);
    f[5] = 0x01;
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpint(rx(t, b, 0, g, &status, NULL), ==, MRP_FRAME_LEN);
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, 2);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_FRAMES), ==, 10);

    /*
     * The manager went quiet after its last frames, one tick ago: loss
     * on both ports at the 4th tick after them.
     */
    for (k = 0; k < 2; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
    }
    expect_no_ev(t, b);
    qtest_clock_step(t->qts, IV_US * 1000);
    expect_ev(t, b, MRPSIM_EV_MRP_LOSS, 0, 0, 0);
    expect_ev(t, b, MRPSIM_EV_MRP_LOSS, 1, 0, 1);
    /* one frame back on port 1: the manager is back, on both ports */
    tx(t, a, 1, f, mrp_test_frame(f, sa0, 100));
    wait_cnt(b, 1, MRPSIM_CNT_MRP_REGAIN, 1);
    expect_ev(t, b, MRPSIM_EV_MRP_REGAIN, 1, 0, 1);
    expect_ev(t, b, MRPSIM_EV_MRP_REGAIN, 0, 0, 0);
    expect_no_ev(t, b);
    shutdown_ctx(t);
}

/*
 * Two MRCs and no MRM: a test frame circulates for ever.  A switch
 * forwards at once, but at most a burst of frames per main loop turn
 * before its bottom half: QEMU keeps answering (cut-through forwarding
 * without the burst limit hung here) and a cut stops the frame.
 */
static void test_mrc_ring_no_recursion(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE];
    uint64_t n, m;
    int i;

    port_rings(t, a, 0, BUF_SIZE);
    mwr(a, 0, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(a, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    mwr(b, 1, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 1, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    tx(t, a, 0, f, mrp_test_frame(f, sa0, 1));
    for (i = 0; i < 10000 && cnt(a, 1, MRPSIM_CNT_MRP_FWD) < 200; i++) {
        g_usleep(100);
    }
    n = cnt(a, 1, MRPSIM_CNT_MRP_FWD);
    g_assert_cmpuint(n, >=, 200);
    g_assert_cmphex(rd(a, MRPSIM_REG_ID), ==, MRPSIM_ID);
    /* cut the ring: the frame dies, the counters stop */
    set_link(t, "a1", false);
    g_usleep(10000);
    n = cnt(a, 1, MRPSIM_CNT_MRP_FWD);
    m = cnt(b, 0, MRPSIM_CNT_MRP_FWD);
    g_usleep(10000);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_FWD), ==, n);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, m);
    /* one frame, never duplicated: each switch saw it once per lap */
    g_assert_cmpuint(m - n, <=, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_FWD_DROP), ==, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD_DROP), ==, 0);
    shutdown_ctx(t);
}

static void test_malformed(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE], g[BUF_SIZE];
    static const uint8_t other[6] = { 0x02, 0, 0, 0, 0xbb, 1 };
    uint16_t status;
    uint32_t meta;

    port_rings(t, a, 0, BUF_SIZE);
    port_rings(t, b, 0, BUF_SIZE);
    /* sw1 ring instance 0 is an MRM (no test running) on ports 0, 1 */
    mwr(b, 0, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRM);
    mwr(b, 0, MRPSIM_MRP_SA_LO, ldl_le_p(sa0));
    mwr(b, 0, MRPSIM_MRP_SA_HI, lduw_le_p(sa0 + 4));

    /* too short for version and a TLV header */
    mrp_test_frame(f, other, 1);
    tx(t, a, 0, f, 17);
    /* bad version */
    mrp_test_frame(f, other, 1);
    f[15] = 2;
    tx(t, a, 0, f, MRP_FRAME_LEN);
    /* TLV running past the end */
    mrp_test_frame(f, other, 1);
    f[37] = 200;
    tx(t, a, 0, f, MRP_FRAME_LEN);
    /* Test TLV too short for its fields, at the very end of the frame */
    mrp_test_frame(f, other, 1);
    f[17] = 4;
    tx(t, a, 0, f, 22);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_MALFORMED), ==, 4);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);

    /* a good test frame from another manager goes to the CPU */
    mrp_test_frame(f, other, 2);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpint(rx(t, b, 0, g, &status, &meta), ==, MRP_FRAME_LEN);
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
    g_assert_cmphex(meta, ==, 0);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, 1);
    /* our own one is terminated */
    mrp_test_frame(f, sa0, 3);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpint(rx(t, b, 0, g, NULL, NULL), ==, -1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TEST_RX), ==, 1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_MALFORMED), ==, 4);
    shutdown_ctx(t);
}

static void test_mrp_regs(void)
{
    Ctx *t = boot("-device mrpsim,addr=4,ports=3", 1);
    Sw *sw = &t->sw[0];

    evq_setup(t, sw, EVQ_SIZE);
    mwr(sw, 0, MRPSIM_MRP_ROLE, 4);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_INFO) >> 16, ==,
                    MRPSIM_MRP_BASE(0) + MRPSIM_MRP_ROLE);
    expect_ev(t, sw, MRPSIM_EV_ERROR, 0xff, MRPSIM_EV_NONE,
              MRPSIM_ERR_REG | 0xff << 8 | MRPSIM_MRP_BASE(0) << 16);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_ROLE), ==, 0);
    /* port out of range, primary == secondary */
    mwr(sw, 0, MRPSIM_MRP_PORTS, 0x0300);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_PORTS, 0x0101);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_PORTS), ==, 0xffff);
    mwr(sw, 0, MRPSIM_MRP_PORTS, 0xff01);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_PORTS), ==, 0xff01);
    /* a port already used by another instance */
    mwr(sw, 1, MRPSIM_MRP_PORTS, 0x0102);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 1, MRPSIM_MRP_PORTS, 0x0200);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    /* RUN needs a managing role */
    mwr(sw, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    mwr(sw, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    g_assert_cmphex(mstatus(sw, 0), ==, 0);
    /* ring state: a change counts a transition, a bad value does not */
    mwr(sw, 0, MRPSIM_MRP_RING_STATE, 1);
    mwr(sw, 0, MRPSIM_MRP_RING_STATE, 1);
    mwr(sw, 0, MRPSIM_MRP_RING_STATE, 2);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_TRANSITIONS), ==, 1);
    mwr(sw, 0, MRPSIM_MRP_RING_STATE, 0);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_TRANSITIONS), ==, 2);
    /* PRIO, SA, DOMAIN read back */
    mwr(sw, 0, MRPSIM_MRP_PRIO, 0x1234a000);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_PRIO), ==, 0xa000);
    mwr(sw, 0, MRPSIM_MRP_SA_HI, 0xffff0605);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_SA_HI), ==, 0x0605);
    mwr(sw, 0, MRPSIM_MRP_DOMAIN(2), 0x01020304);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_DOMAIN(2)), ==, 0x01020304);
    /* invalid port states (5 to 7): the whole write is ignored */
    pwr(sw, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        5 << MRPSIM_PORT_CTRL_STATE_SHIFT);
    expect_err(sw, MRPSIM_ERR_REG, 0);
    pwr(sw, 0, MRPSIM_PORT_CTRL, 0xffffffff);
    expect_err(sw, MRPSIM_ERR_REG, 0);
    g_assert_cmphex(prd(sw, 0, MRPSIM_PORT_CTRL), ==,
                    MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_FLOOD_ALL);
    /* the others are kept, undefined bits read 0 */
    pwr(sw, 0, MRPSIM_PORT_CTRL, 0xffffff00 | MRPSIM_PORT_CTRL_LEARN |
        MRPSIM_PSTATE_LEARNING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    g_assert_cmphex(prd(sw, 0, MRPSIM_PORT_CTRL), ==, MRPSIM_PORT_CTRL_LEARN |
                    MRPSIM_PSTATE_LEARNING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    shutdown_ctx(t);
}

/* mra=off: no CAP.MRA, and ROLE MRA is a bad value; the rest works. */
static void test_no_mra(void)
{
    Ctx *t = boot("-device mrpsim,addr=4,mra=off", 1);
    Sw *sw = &t->sw[0];
    uint32_t cap = rd(sw, MRPSIM_REG_CAP);

    g_assert_true(cap & MRPSIM_CAP_MRP);
    g_assert_false(cap & MRPSIM_CAP_MRA);
    evq_setup(t, sw, EVQ_SIZE);
    mwr(sw, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRA);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    expect_ev(t, sw, MRPSIM_EV_ERROR, 0xff, MRPSIM_EV_NONE,
              MRPSIM_ERR_REG | 0xff << 8 | MRPSIM_MRP_BASE(0) << 16);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_ROLE), ==, MRPSIM_ROLE_DISABLED);
    mwr(sw, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRM);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_ROLE), ==, MRPSIM_ROLE_MRM);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    shutdown_ctx(t);
}

/*
 * A test started afresh has a new generation in STATUS[15:8], and its
 * MRP events carry it: a driver can tell a stopped test's late events
 * from the next test's.  Rewriting RUN of a running test keeps it, the
 * counter wraps, and a reset clears it.
 */
static void expect_losses(Ctx *t, Sw *sw, uint32_t gen)
{
    Ev ev;
    int w;

    qtest_clock_step(t->qts, 4 * IV_US * 1000);
    for (w = 0; w < 2; w++) {
        g_assert(ev_next(t, sw, &ev));
        g_assert_cmpuint(ev.type, ==, MRPSIM_EV_MRP_LOSS);
        g_assert_cmphex(ev.data, ==, w | gen << MRPSIM_EV_MRP_GEN_SHIFT);
    }
    expect_no_ev(t, sw);
}

static void test_generation(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0];
    int k;

    evq_setup(t, a, EVQ_SIZE);
    g_assert_cmpuint(mgen(a, 0), ==, 0);
    /* b is no MRC: a's test frames never come back */
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    g_assert_cmpuint(mgen(a, 0), ==, 1);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    g_assert_cmpuint(mgen(a, 0), ==, 1);
    expect_losses(t, a, 1);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    g_assert_cmpuint(mgen(a, 0), ==, 1);
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    g_assert_cmpuint(mgen(a, 0), ==, 2);
    expect_losses(t, a, 2);
    for (k = 0; k < 254; k++) {
        mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
        mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    }
    g_assert_cmpuint(mgen(a, 0), ==, 0);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING);
    wr(a, MRPSIM_REG_CTRL, MRPSIM_CTRL_RESET);
    g_assert_cmphex(mrd(a, 0, MRPSIM_MRP_STATUS), ==, 0);
    shutdown_ctx(t);
}

/*
 * Rewriting RUN of a running test ticks nothing at once: ten rewrites in
 * 2.5 intervals count the misses of the 3 ticks in that time, not one per
 * rewrite (which made 3 misses by the second rewrite and a loss at the
 * third).  The misses still add up at the tick rate.
 */
static void test_rewrite_counts_no_miss(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0];
    int k;

    evq_setup(t, a, EVQ_SIZE);
    /* b is no MRC: a's test frames never come back */
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    for (k = 0; k < 10; k++) {
        qtest_clock_step(t->qts, IV_US * 1000 / 4);
        mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN);
    }
    expect_no_ev(t, a);
    expect_losses(t, a, 1);
    shutdown_ctx(t);
}

/*
 * An MRA manager that gives way sets MONITOR on its running test: that is
 * a new test, not a restart.  The misses it counted of its own frames must
 * not become a loss of the better manager it now watches, which would
 * make it take over again at once.
 */
static void test_monitor_switch_is_new_test(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0];

    evq_setup(t, a, EVQ_SIZE);
    /* b is no MRC: a's frames never come back; ticks at 0, 1 and 2 ms */
    start_mrm(a, MRPSIM_ROLE_MRA, IV_US, 3);
    g_assert_cmpuint(mgen(a, 0), ==, 1);
    qtest_clock_step(t->qts, 2 * IV_US * 1000 + IV_US * 1000 / 2);
    expect_no_ev(t, a);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN |
        MRPSIM_TEST_CTRL_MONITOR);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING);
    g_assert_cmpuint(mgen(a, 0), ==, 2);
    /* the generator's loss was due at 3 ms: none */
    qtest_clock_step(t->qts, IV_US * 1000);
    expect_no_ev(t, a);
    /* no manager shows up: the monitor's own loss, of the new test */
    expect_losses(t, a, 2);
    shutdown_ctx(t);
}

/*
 * The manager's software closes the ring: a generating test checks it
 * afresh, as a new generation with no port lost and no miss counted, so
 * that the closed ring breaking again raises MRP_LOSS again.  Closing an
 * already closed ring, a monitor's ring, or a ring with no test running
 * changes nothing.
 */
static void test_close_is_new_generation(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0];

    evq_setup(t, a, EVQ_SIZE);
    /* no test running: nothing to check afresh */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);
    g_assert_cmpuint(mgen(a, 0), ==, 0);
    /* b is no MRC: a's test frames never come back; commissioned closed */
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    g_assert_cmpuint(mgen(a, 0), ==, 1);
    expect_losses(t, a, 1);
    /* the software opens it, and 2.5 intervals later closes it */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);
    g_assert_cmpuint(mgen(a, 0), ==, 1);
    qtest_clock_step(t->qts, 2 * IV_US * 1000 + IV_US * 1000 / 2);
    /* closed: no event, no port lost, misses from 0 */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    g_assert_cmpuint(mgen(a, 0), ==, 2);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING);
    qtest_clock_step(t->qts, IV_US * 1000);
    expect_no_ev(t, a);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING);
    /* the closed ring is still broken: lost again, in the new generation */
    expect_losses(t, a, 2);
    /* closed again: nothing changes */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    g_assert_cmpuint(mgen(a, 0), ==, 2);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING |
                    MRPSIM_MRP_STATUS_P_LOST | MRPSIM_MRP_STATUS_S_LOST);
    /* opened (no change either) and closed: a new generation again */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);
    g_assert_cmpuint(mgen(a, 0), ==, 2);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    g_assert_cmpuint(mgen(a, 0), ==, 3);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING);
    expect_losses(t, a, 3);
    /* a monitor watches the manager, not its own ring state */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    start_mrm(a, MRPSIM_ROLE_MRA, IV_US, 3);
    g_assert_cmpuint(mgen(a, 0), ==, 4);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, MRPSIM_TEST_CTRL_RUN |
        MRPSIM_TEST_CTRL_MONITOR);
    g_assert_cmpuint(mgen(a, 0), ==, 5);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);
    expect_losses(t, a, 5);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    g_assert_cmpuint(mgen(a, 0), ==, 5);
    g_assert_cmphex(mstatus(a, 0), ==, MRPSIM_MRP_STATUS_RUNNING |
                    MRPSIM_MRP_STATUS_P_LOST | MRPSIM_MRP_STATUS_S_LOST);
    g_assert_cmphex(rd(a, MRPSIM_REG_ERR_STATUS), ==, 0);
    shutdown_ctx(t);
}

static void test_period(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    Ev ev;

    evq_setup(t, a, EVQ_SIZE);
    mwr(a, 0, MRPSIM_MRP_TEST_PERIOD, 3500);
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 100);
    qtest_clock_step(t->qts, 3499000);
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    expect_no_ev(t, a);
    qtest_clock_step(t->qts, 1000);
    g_assert(ev_next(t, a, &ev));
    g_assert_cmpuint(ev.type, ==, MRPSIM_EV_TEST_DONE);
    g_assert_cmpuint(ev.ring, ==, 0);
    g_assert_cmphex(ev.data, ==, 1 << MRPSIM_EV_MRP_GEN_SHIFT);
    g_assert_cmphex(mstatus(a, 0), ==, 0);
    g_assert_cmphex(mrd(a, 0, MRPSIM_MRP_TEST_CTRL), ==, 0);
    /* 4 ticks: 0, 1, 2, 3 ms */
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 4);
    qtest_clock_step(t->qts, 10 * IV_US * 1000);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 4);
    shutdown_ctx(t);
}

static void test_evq_full(void)
{
    Ctx *t = boot("-netdev hubport,id=a0,hubid=1 "
                  "-device mrpsim,addr=4,netdev0=a0", 1);
    Sw *sw = &t->sw[0];

    /* two entries: one usable */
    evq_setup(t, sw, 2);
    set_link(t, "a0", false);
    set_link(t, "a0", true);
    g_assert_cmpuint(rd(sw, MRPSIM_REG_EVQ_DROPS), ==, 1);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==,
                    MRPSIM_ERR_BIT(MRPSIM_ERR_EVQ_FULL));
    expect_ev(t, sw, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    expect_no_ev(t, sw);
    set_link(t, "a0", false);
    expect_ev(t, sw, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    /* event queue in unmapped memory: DMA error, the queue halts */
    wr(sw, MRPSIM_REG_EVQ_CTRL, 0);
    g_assert(ring_enable(t, sw, MRPSIM_REG_EVQ_BASE_LO, 1ULL << 46, 4));
    set_link(t, "a0", true);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_CTRL), ==,
                    MRPSIM_Q_CTRL_EN | MRPSIM_Q_CTRL_HALTED);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS) &
                    MRPSIM_ERR_BIT(MRPSIM_ERR_DMA), !=, 0);
    shutdown_ctx(t);
}

/* Move @sw's event queue to @base, 4 entries, and clear the errors. */
static void evq_at(Ctx *t, Sw *sw, uint64_t base)
{
    wr(sw, MRPSIM_REG_EVQ_CTRL, 0);
    g_assert(ring_enable(t, sw, MRPSIM_REG_EVQ_BASE_LO, base, 4));
    wr(sw, MRPSIM_REG_ERR_STATUS, 0xffffffff);
}

/*
 * The queue at @sw's own registers or MSI-X table took no event: it
 * halted, and said so on vector 0 when @fired (the first halt after the
 * vector was unmasked).  The vector is unmasked again.
 */
static void expect_evq_refused(Ctx *t, Sw *sw, uint32_t drops, bool fired)
{
    uint32_t v;

    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_CTRL), ==,
                    MRPSIM_Q_CTRL_EN | MRPSIM_Q_CTRL_HALTED);
    g_assert_cmphex(rd(sw, MRPSIM_REG_EVQ_HEAD), ==, 0);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==,
                    MRPSIM_ERR_BIT(MRPSIM_ERR_DMA));
    g_assert_cmpuint(rd(sw, MRPSIM_REG_EVQ_DROPS), ==, drops);
    /* not reset, the MSI-X table not rewritten */
    g_assert_cmphex(prd(sw, 0, MRPSIM_PORT_TXQ + MRPSIM_Q_CTRL), ==,
                    MRPSIM_Q_CTRL_EN);
    g_assert_cmphex(rd(sw, MRPSIM_REG_IRQ_MASK), ==, fired ? 0x7 : 0x6);
    g_assert(msix_fired(t, sw, MRPSIM_VEC_EVENT) == fired);
    wr(sw, MRPSIM_REG_IRQ_MASK_CLR, 1);
    for (v = 0; v < MRPSIM_NUM_VECS(sw->nports); v++) {
        uint64_t off = sw->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        g_assert_cmphex(qpci_io_readl(sw->dev, sw->dev->msix_table_bar,
                                      off + PCI_MSIX_ENTRY_LOWER_ADDR), ==,
                        (uint32_t)sw->msix_addr[v]);
        g_assert_cmphex(qpci_io_readl(sw->dev, sw->dev->msix_table_bar,
                                      off + PCI_MSIX_ENTRY_DATA), ==,
                        0x1000 + v);
        g_assert_cmphex(qpci_io_readl(sw->dev, sw->dev->msix_table_bar,
                                      off + PCI_MSIX_ENTRY_VECTOR_CTRL), ==,
                        0);
    }
}

/*
 * An event queue pointed at the switch's own BAR0 or MSI-X table, for
 * events from set_link and from the MRP test timer.  The event's
 * timestamp is past 2^32 ns: its high word, 1, lands on CTRL (RESET) in
 * BAR0 and on the vector control word (masked) in the MSI-X table.  The
 * write must be refused, the event counted as lost, the device untouched.
 */
static void test_evq_self_dma(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0];
    uint64_t regs = a->bar.addr;
    uint64_t msix = a->dev->msix_table_bar.addr + a->dev->msix_table_off;
    uint8_t f[64];
    int k;

    port_rings(t, a, 0, BUF_SIZE);
    wr(a, MRPSIM_REG_IRQ_MASK_CLR, 1);
    qtest_clock_step(t->qts, (1ULL << 32) + 1000);

    /* set_link */
    evq_at(t, a, regs);
    set_link(t, "a0", false);
    expect_evq_refused(t, a, 1, true);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==, 0);
    evq_at(t, a, msix);
    set_link(t, "a0", true);
    expect_evq_refused(t, a, 2, true);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    g_assert(!msix_fired(t, a, MRPSIM_VEC_EVENT));

    /* the test timer: no MRC, the ring is open, both ports lost */
    evq_at(t, a, regs);
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    wr(a, MRPSIM_REG_ERR_STATUS, 0xffffffff);
    for (k = 0; k < 4; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
    }
    expect_evq_refused(t, a, 4, true);
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING | MRPSIM_MRP_STATUS_P_LOST |
                    MRPSIM_MRP_STATUS_S_LOST);
    evq_at(t, a, msix);
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    wr(a, MRPSIM_REG_ERR_STATUS, 0xffffffff);
    for (k = 0; k < 4; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
    }
    expect_evq_refused(t, a, 6, true);
    g_assert(!msix_fired(t, a, MRPSIM_VEC_EVENT));

    /* in guest memory, the queue and the device work on */
    mwr(a, 0, MRPSIM_MRP_TEST_CTRL, 0);
    wr(a, MRPSIM_REG_EVQ_CTRL, 0);
    evq_setup(t, a, EVQ_SIZE);
    set_link(t, "a0", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    expect_no_ev(t, a);
    g_assert(msix_fired(t, a, MRPSIM_VEC_EVENT));
    set_link(t, "a0", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);
    tx(t, a, 0, f, data_frame(f, 64, 0));
    g_assert_cmpuint(rd(a, MRPSIM_REG_EVQ_DROPS), ==, 6);
    shutdown_ctx(t);
}

/*
 * Migrate a running ring at virtual time 0 (the qtest clock is not
 * migrated, so both sides agree on it only there): the MRM's test goes on
 * at the destination with its counters, sequence ids and event queue.
 */
static void test_migrate(void)
{
    g_autofree char *uri = g_strdup_printf("unix:%s/mrpsim-mig-%d.sock",
                                           g_get_tmp_dir(), getpid());
    Ctx *src = boot(TWO_SWITCHES, 2);
    Ctx *dst = g_new0(Ctx, 1);
    Sw *a = &src->sw[0], *b = &src->sw[1];
    uint8_t f[64];
    uint64_t own = 1;
    int i, k;

    evq_setup(src, a, EVQ_SIZE);
    port_rings(src, a, 0, BUF_SIZE);
    port_rings(src, b, 0, BUF_SIZE);
    tx(src, a, 0, f, data_frame(f, 64, 9));
    mwr(b, 1, MRPSIM_MRP_PORTS, 1 | 0 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 1, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    start_mrm(a, MRPSIM_ROLE_MRM, IV_US, 3);
    wait_cnt(a, 0, MRPSIM_CNT_MRP_TEST_RX, own);
    wait_cnt(a, 1, MRPSIM_CNT_MRP_TEST_RX, own);
    /* the FDB: a static entry, one learned, forwarding masks */
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[3],
                             1 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    pwr(b, 1, MRPSIM_PORT_CTRL, L2_CTRL);
    pwr(b, 1, MRPSIM_PORT_FWD_MASK, 0x3);
    wr(b, MRPSIM_REG_FDB_AGEING, 100);
    port_rings(src, a, 1, BUF_SIZE);
    tx(src, a, 1, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 1);

    dst->qs = qtest_pc_boot("-nodefaults " TWO_SWITCHES " -incoming %s",
                            uri);
    dst->qts = dst->qs->qts;
    /* no self-announce RARPs from the ports on real-time timers */
    qobject_unref(qtest_qmp(dst->qts, "{'execute': 'migrate-set-parameters',"
                            " 'arguments': {'announce-rounds': 0}}"));
    migrate(src->qs, dst->qs, uri);
    for (i = 0; i < 2; i++) {
        dst->sw[i] = src->sw[i];
        sw_init(dst, i, 4 + i);
    }
    shutdown_ctx(src);
    a = &dst->sw[0];
    b = &dst->sw[1];

    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_FRAMES), ==, 2);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 2);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 1);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_DEL, host[3], 0), ==,
                     MRPSIM_FDB_OK);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 1);
    g_assert_cmphex(prd(b, 1, MRPSIM_PORT_FWD_MASK), ==, 0x3);
    g_assert_cmphex(prd(b, 1, MRPSIM_PORT_CTRL), ==, L2_CTRL);
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_SEQ_ID), ==, 2);
    g_assert_cmphex(mrd(b, 1, MRPSIM_MRP_ROLE), ==, MRPSIM_ROLE_MRC);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_TXQ + MRPSIM_Q_HEAD), ==, 1);
    for (k = 0; k < 5; k++) {
        ring_step(dst, &own, true);
    }
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_SEQ_ID), ==, 12);
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    expect_no_ev(dst, a);
    /* rings and the event queue work on */
    tx(dst, a, 0, f, data_frame(f, 64, 10));
    g_assert_cmpint(rx(dst, b, 0, f, NULL, NULL), ==, 64);
    g_assert_cmpint(rx(dst, b, 0, f, NULL, NULL), ==, 64);
    set_link(dst, "a0", false);
    expect_ev(dst, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    /* the learned entry ages on at the destination */
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 1);
    qtest_clock_step(dst->qts, 120 * MS);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 0);
    shutdown_ctx(dst);
}

/* ---- L2 forwarding ---- */

/* sw0's three ports cabled to sw1's, whose CPU plays three hosts. */
#define L2_SWITCHES \
    "-netdev hubport,id=a0,hubid=1 -netdev hubport,id=b0,hubid=1 " \
    "-netdev hubport,id=a1,hubid=2 -netdev hubport,id=b1,hubid=2 " \
    "-netdev hubport,id=a2,hubid=3 -netdev hubport,id=b2,hubid=3 " \
    "-device mrpsim,id=sw0,addr=4,ports=3,netdev0=a0,netdev1=a1," \
    "netdev2=a2 " \
    "-device mrpsim,id=sw1,addr=5,ports=3,netdev0=b0,netdev1=b1,netdev2=b2"

static void l2_setup(Ctx *t, Sw *a, Sw *h)
{
    int p;

    for (p = 0; p < 3; p++) {
        port_rings(t, a, p, BUF_SIZE);
        port_rings(t, h, p, BUF_SIZE);
        pwr(a, p, MRPSIM_PORT_CTRL, L2_CTRL);
        pwr(a, p, MRPSIM_PORT_FWD_MASK, 0xff);
        g_assert_cmphex(prd(a, p, MRPSIM_PORT_FWD_MASK), ==, 0x7);
    }
    evq_setup(t, a, EVQ_SIZE);
}

/* What reached hosts 0, 1, 2 since the last call, as a 3-digit number. */
static int hosts_rx(Ctx *t, Sw *h)
{
    return rx_count(t, h, 0, MRPSIM_DESC_DONE) * 100 +
           rx_count(t, h, 1, MRPSIM_DESC_DONE) * 10 +
           rx_count(t, h, 2, MRPSIM_DESC_DONE);
}

static void test_l2_forward(void)
{
    Ctx *t = boot(L2_SWITCHES, 2);
    Sw *a = &t->sw[0], *h = &t->sw[1];
    const uint16_t fwd = MRPSIM_DESC_DONE | MRPSIM_DESC_FWD;
    uint8_t f[BUF_SIZE], mac[6];
    uint32_t idx;

    l2_setup(t, a, h);

    /* a broadcast: its source learned, flooded, and to the CPU with FWD */
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    idx = expect_fdb_ev(t, a, 0, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmphex(fdb_read(a, idx, mac), ==, 0 | MRPSIM_FDB_ENTRY_VALID);
    g_assert(!memcmp(mac, host[0], 6));
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 1);
    g_assert_cmpint(hosts_rx(t, h), ==, 11);
    g_assert_cmpint(rx_count(t, a, 0, fwd), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FLOOD), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_LEARNED), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_RX_CPU), ==, 1);

    /* known unicast goes to its port only, not to the CPU */
    tx(t, h, 1, f, host_frame(f, 64, host[1], host[0]));
    expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(hosts_rx(t, h), ==, 100);
    g_assert_cmpint(rx_count(t, a, 1, 0), ==, 0);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_L2_FWD), ==, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_CPU), ==, 0);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_TX_FRAMES), ==, 1);

    /* unknown unicast floods; a destination on the ingress port drops */
    tx(t, h, 1, f, host_frame(f, 64, host[1], host[3]));
    g_assert_cmpint(hosts_rx(t, h), ==, 101);
    g_assert_cmpint(rx_count(t, a, 1, fwd), ==, 1);
    tx(t, h, 0, f, host_frame(f, 64, host[0], host[0]));
    g_assert_cmpint(hosts_rx(t, h), ==, 0);
    g_assert_cmpint(rx_count(t, a, 0, 0), ==, 0);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_DROP), ==, 1);

    /* link-local and MRP frames: to the CPU only, never forwarded */
    tx(t, h, 0, f, lldp_frame(f, 0x0e));
    expect_fdb_ev(t, a, 0, MRPSIM_FDB_EV_LEARNED);      /* sa0 */
    g_assert_cmpint(rx_count(t, a, 0, MRPSIM_DESC_DONE), ==, 1);
    tx(t, h, 0, f, mrp_ctrl_frame(f, 0x03));
    g_assert_cmpint(rx_count(t, a, 0, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP),
                    ==, 1);
    tx(t, h, 0, f, mrp_test_frame(f, host[2], 1));
    g_assert_cmpint(rx_count(t, a, 0, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP),
                    ==, 1);
    g_assert_cmpint(hosts_rx(t, h), ==, 0);

    /* flood flags are egress flags, one per kind of destination */
    pwr(a, 2, MRPSIM_PORT_CTRL, L2_CTRL & ~MRPSIM_PORT_CTRL_FLOOD_UC);
    tx(t, h, 0, f, host_frame(f, 64, host[0], host[4]));
    g_assert_cmpint(hosts_rx(t, h), ==, 10);
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 11);
    pwr(a, 2, MRPSIM_PORT_CTRL, L2_CTRL & ~MRPSIM_PORT_CTRL_FLOOD_MC);
    tx(t, h, 0, f, host_frame(f, 64, host[0], mcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 10);
    pwr(a, 2, MRPSIM_PORT_CTRL, L2_CTRL & ~MRPSIM_PORT_CTRL_FLOOD_BC);
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 10);
    g_assert_cmpint(rx_count(t, a, 0, fwd), ==, 4);
    pwr(a, 2, MRPSIM_PORT_CTRL, L2_CTRL);

    /* a blocking port: nothing to it, nothing from it, no learning */
    pwr(a, 1, MRPSIM_PORT_CTRL, L2_CTRL |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    tx(t, h, 0, f, host_frame(f, 64, host[0], host[1]));
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_DROP), ==, 2);
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 1);
    tx(t, h, 1, f, host_frame(f, 64, host[2], bcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 0);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_DROP_BLOCKED), ==, 1);
    /* listening: the same */
    pwr(a, 1, MRPSIM_PORT_CTRL, L2_CTRL |
        MRPSIM_PSTATE_LISTENING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    tx(t, h, 1, f, host_frame(f, 64, host[2], bcast));
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_DROP_BLOCKED), ==, 2);
    /* learning: learns, forwards nothing */
    pwr(a, 1, MRPSIM_PORT_CTRL, L2_CTRL |
        MRPSIM_PSTATE_LEARNING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    tx(t, h, 1, f, host_frame(f, 64, host[4], host[0]));
    expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(hosts_rx(t, h), ==, 0);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_RX_DROP_BLOCKED), ==, 3);
    g_assert_cmpint(rx_count(t, a, 0, fwd), ==, 1);
    g_assert_cmpint(rx_count(t, a, 1, 0), ==, 0);
    expect_no_ev(t, a);

    /* two bridges: ports 0 and 1, and port 2 alone */
    pwr(a, 1, MRPSIM_PORT_CTRL, L2_CTRL);
    pwr(a, 0, MRPSIM_PORT_FWD_MASK, 0x3);
    pwr(a, 1, MRPSIM_PORT_FWD_MASK, 0x3);
    pwr(a, 2, MRPSIM_PORT_FWD_MASK, 0);
    tx(t, h, 2, f, host_frame(f, 64, host[2], bcast));
    expect_fdb_ev(t, a, 2, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(hosts_rx(t, h), ==, 0);
    g_assert_cmpint(rx_count(t, a, 2, MRPSIM_DESC_DONE), ==, 1);
    /* host 2 is known, on a port of the other bridge: unknown here */
    tx(t, h, 0, f, host_frame(f, 64, host[0], host[2]));
    g_assert_cmpint(hosts_rx(t, h), ==, 10);
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 10);
    g_assert_cmpint(rx_count(t, a, 0, fwd), ==, 2);
    g_assert_cmpuint(cnt(a, 2, MRPSIM_CNT_TX_FRAMES), ==, 4);

    /* a station that moves */
    tx(t, h, 1, f, host_frame(f, 64, host[0], bcast));
    g_assert_cmpuint(expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_MOVED), ==, idx);
    g_assert_cmphex(fdb_read(a, idx, mac), ==, 1 | MRPSIM_FDB_ENTRY_VALID);
    g_assert_cmpint(hosts_rx(t, h), ==, 100);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 5);
    expect_no_ev(t, a);
    shutdown_ctx(t);
}

/* @n broadcasts from host 0, all at one instant of the virtual clock. */
static void bcast_burst(Ctx *t, Sw *h, int n)
{
    uint8_t f[64];
    int i;

    for (i = 0; i < n; i++) {
        tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    }
}

static void test_l2_storm_control(void)
{
    Ctx *t = boot(L2_SWITCHES, 2);
    Sw *a = &t->sw[0], *h = &t->sw[1];
    uint8_t f[64];
    int i;

    l2_setup(t, a, h);
    /* 1000 floods/s: a burst of 20 (a fiftieth of a second), then 1/ms */
    pwr(a, 0, MRPSIM_PORT_FLOOD_LIMIT, 1000);
    bcast_burst(t, h, 30);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FLOOD), ==, 20);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_STORM_DROP), ==, 10);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_TX_FRAMES), ==, 20);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_RX_CPU), ==, 20);
    qtest_clock_step(t->qts, 5 * MS);
    bcast_burst(t, h, 10);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FLOOD), ==, 25);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_STORM_DROP), ==, 15);
    /* known unicast is not flooding: never limited */
    tx(t, h, 1, f, host_frame(f, 64, host[1], bcast));
    for (i = 0; i < 30; i++) {
        tx(t, h, 0, f, host_frame(f, 64, host[0], host[1]));
    }
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FWD), ==, 30);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_STORM_DROP), ==, 15);
    /* a full bucket again after a while, never more */
    qtest_clock_step(t->qts, 1000 * MS);
    bcast_burst(t, h, 21);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FLOOD), ==, 45);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_STORM_DROP), ==, 16);
    /* 0: no limit; a value out of range is refused */
    pwr(a, 0, MRPSIM_PORT_FLOOD_LIMIT, 0);
    bcast_burst(t, h, 40);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FLOOD), ==, 85);
    pwr(a, 0, MRPSIM_PORT_FLOOD_LIMIT, MRPSIM_FLOOD_LIMIT_MAX + 1);
    expect_err(a, MRPSIM_ERR_REG, 0);
    g_assert_cmpuint(prd(a, 0, MRPSIM_PORT_FLOOD_LIMIT), ==, 0);
    shutdown_ctx(t);
}

static void test_l2_fdb(void)
{
    Ctx *t = boot(L2_SWITCHES, 2);
    Sw *a = &t->sw[0], *h = &t->sw[1];
    uint8_t f[BUF_SIZE], mac[6], cand[6] = { 0x02, 0x00, 0x00, 0x01 };
    const uint8_t zero[6] = { 0 };
    unsigned int i, n, members[MRPSIM_FDB_ENTRIES / MRPSIM_FDB_WAYS];
    int full = -1;
    Ev ev;

    l2_setup(t, a, h);

    /* commands and their status */
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[3],
                             2 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    g_assert_cmphex(fdb_read(a, rd(a, MRPSIM_REG_FDB_INDEX), mac), ==,
                    2 | MRPSIM_FDB_ENTRY_VALID | MRPSIM_FDB_ENTRY_STATIC);
    g_assert(!memcmp(mac, host[3], 6));
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, mcast,
                             2 | MRPSIM_FDB_ENTRY_STATIC), ==,
                     MRPSIM_FDB_INVAL);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, zero,
                             2 | MRPSIM_FDB_ENTRY_STATIC), ==,
                     MRPSIM_FDB_INVAL);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[2],
                             3 | MRPSIM_FDB_ENTRY_STATIC), ==,
                     MRPSIM_FDB_INVAL);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[2], 0), ==,
                     MRPSIM_FDB_INVAL);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[2],
                             MRPSIM_FDB_ENTRY_STATIC | 0x800), ==,
                     MRPSIM_FDB_INVAL);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_DEL, host[2], 0), ==,
                     MRPSIM_FDB_NOT_FOUND);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_FLUSH, host[2], 7), ==,
                     MRPSIM_FDB_INVAL);
    g_assert_cmpuint(fdb_cmd(a, 9, host[2], 0), ==, MRPSIM_FDB_INVAL);
    wr(a, MRPSIM_REG_FDB_INDEX, MRPSIM_FDB_ENTRIES);
    wr(a, MRPSIM_REG_FDB_CMD, MRPSIM_FDB_CMD_READ);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_CMD), ==, MRPSIM_FDB_INVAL);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 1);

    /* a static entry forwards, and its address never moves */
    tx(t, h, 0, f, host_frame(f, 64, host[0], host[3]));
    expect_fdb_ev(t, a, 0, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(hosts_rx(t, h), ==, 1);
    tx(t, h, 1, f, host_frame(f, 64, host[3], bcast));
    g_assert_cmpint(hosts_rx(t, h), ==, 101);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[3],
                             2 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    expect_no_ev(t, a);

    /* a CPU entry traps its frames, without FWD */
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[4],
                             MRPSIM_FDB_ENTRY_CPU), ==, MRPSIM_FDB_OK);
    g_assert_cmphex(fdb_read(a, rd(a, MRPSIM_REG_FDB_INDEX), mac), ==,
                    0xff | MRPSIM_FDB_ENTRY_VALID | MRPSIM_FDB_ENTRY_STATIC |
                    MRPSIM_FDB_ENTRY_CPU);
    tx(t, h, 0, f, host_frame(f, 64, host[0], host[4]));
    g_assert_cmpint(hosts_rx(t, h), ==, 0);
    g_assert_cmpint(rx_count(t, a, 0, MRPSIM_DESC_DONE), ==, 1);

    /* flush: one port's learned entries, all learned, then all */
    tx(t, h, 1, f, host_frame(f, 64, host[1], bcast));
    expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 4);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_FLUSH, zero, 0), ==,
                     MRPSIM_FDB_OK);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 3);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_FLUSH, zero, 2), ==,
                     MRPSIM_FDB_OK);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 3);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_FLUSH, zero, 0xff), ==,
                     MRPSIM_FDB_OK);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 2);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_FLUSH, zero,
                             0xff | MRPSIM_FDB_ENTRY_STATIC), ==,
                     MRPSIM_FDB_OK);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 0);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_DEL, host[3], 0), ==,
                     MRPSIM_FDB_NOT_FOUND);
    expect_no_ev(t, a);

    /* fill one bucket, found from the slots the device picks */
    memset(members, 0, sizeof(members));
    for (i = 0; full < 0; i++) {
        stw_be_p(cand + 4, i);
        g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, cand,
                                 MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
        n = rd(a, MRPSIM_REG_FDB_INDEX) / MRPSIM_FDB_WAYS;
        if (++members[n] == MRPSIM_FDB_WAYS) {
            full = n;
        }
    }
    for (n = i, i = 0; i < n; i++) {
        stw_be_p(cand + 4, i);
        g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, cand,
                                 MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
        if (rd(a, MRPSIM_REG_FDB_INDEX) / MRPSIM_FDB_WAYS != full) {
            g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_DEL, cand, 0), ==,
                             MRPSIM_FDB_OK);
        }
    }
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, MRPSIM_FDB_WAYS);
    /* the next address of that bucket finds no room */
    for (;; i++) {
        stw_be_p(cand + 4, i);
        if (fdb_cmd(a, MRPSIM_FDB_CMD_ADD, cand, MRPSIM_FDB_ENTRY_STATIC) ==
            MRPSIM_FDB_FULL) {
            break;
        }
        g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_DEL, cand, 0), ==,
                         MRPSIM_FDB_OK);
    }
    tx(t, h, 1, f, host_frame(f, 64, cand, bcast));
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_L2_LEARN_FULL), ==, 1);
    expect_no_ev(t, a);
    memcpy(mac, cand, 6);
    stw_be_p(cand + 4, 0);
    for (i = 0; fdb_cmd(a, MRPSIM_FDB_CMD_DEL, cand, 0) != MRPSIM_FDB_OK;
         i++) {
        stw_be_p(cand + 4, i + 1);
    }
    tx(t, h, 1, f, host_frame(f, 64, mac, bcast));
    expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, MRPSIM_FDB_WAYS);
    g_assert_cmpint(hosts_rx(t, h), ==, 303);

    /* an ageing time below the minimum: REG error, value kept */
    wr(a, MRPSIM_REG_ERR_STATUS, 0xffffffff);
    wr(a, MRPSIM_REG_FDB_AGEING, MRPSIM_FDB_AGEING_MIN - 1);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_AGEING), ==,
                     MRPSIM_FDB_AGEING_DEFAULT);
    expect_err(a, MRPSIM_ERR_REG, 0xff);
    g_assert(ev_next(t, a, &ev));
    g_assert_cmpuint(ev.type, ==, MRPSIM_EV_ERROR);
    expect_no_ev(t, a);
    shutdown_ctx(t);
}

static void test_l2_ageing(void)
{
    Ctx *t = boot(L2_SWITCHES, 2);
    Sw *a = &t->sw[0], *h = &t->sw[1];
    uint8_t f[BUF_SIZE], mac[6];
    uint32_t i0, i1, i2;

    l2_setup(t, a, h);
    wr(a, MRPSIM_REG_FDB_AGEING, 100);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[3],
                             2 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    i0 = expect_fdb_ev(t, a, 0, MRPSIM_FDB_EV_LEARNED);
    tx(t, h, 1, f, host_frame(f, 64, host[1], bcast));
    i1 = expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_LEARNED);

    /* host 0 is heard again at 50 ms; host 1 is not */
    qtest_clock_step(t->qts, 50 * MS);
    tx(t, h, 0, f, host_frame(f, 64, host[0], bcast));
    qtest_clock_step(t->qts, 75 * MS);
    g_assert_cmpuint(expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_AGED), ==, i1);
    g_assert_cmphex(fdb_read(a, i1, mac), ==, 0xff);
    g_assert_cmphex(fdb_read(a, i0, mac), ==, 0 | MRPSIM_FDB_ENTRY_VALID);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 2);
    expect_no_ev(t, a);
    /* then host 0, heard last at 50 ms: gone between 150 and 162.5 ms */
    qtest_clock_step(t->qts, 20 * MS);
    expect_no_ev(t, a);
    qtest_clock_step(t->qts, 20 * MS);
    g_assert_cmpuint(expect_fdb_ev(t, a, 0, MRPSIM_FDB_EV_AGED), ==, i0);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 1);
    /* an unknown destination again: flooded */
    g_assert_cmpint(hosts_rx(t, h), ==, 123);
    tx(t, h, 1, f, host_frame(f, 64, host[1], host[0]));
    expect_fdb_ev(t, a, 1, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(hosts_rx(t, h), ==, 101);

    /* AGEING 0: learned entries stay */
    wr(a, MRPSIM_REG_FDB_AGEING, 0);
    tx(t, h, 2, f, host_frame(f, 64, host[2], bcast));
    i2 = expect_fdb_ev(t, a, 2, MRPSIM_FDB_EV_LEARNED);
    qtest_clock_step(t->qts, 10000 * MS);
    expect_no_ev(t, a);
    g_assert_cmphex(fdb_read(a, i2, mac), ==, 2 | MRPSIM_FDB_ENTRY_VALID);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 3);
    shutdown_ctx(t);
}

/* ---- Recovery assist ---- */

/* The next TopologyChange on @port of @sw's CPU: its interval, ms. */
static int topo_rx(Ctx *t, Sw *sw, int port, const uint8_t *src)
{
    uint8_t g[BUF_SIZE];
    uint16_t status;
    int n = rx(t, sw, port, g, &status, NULL);

    if (n < 0) {
        return -1;
    }
    g_assert_cmpint(n, ==, MRP_FRAME_LEN);
    g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
    g_assert(!memcmp(g, ctrl_dmac, 6));
    g_assert(!memcmp(g + 6, src, 6));
    g_assert_cmphex(g[16], ==, 0x03);
    g_assert_cmphex(g[17], ==, 10);
    g_assert_cmphex(lduw_be_p(g + 18), ==, 0x8000);
    g_assert(!memcmp(g + 20, sa0, 6));
    g_assert_cmphex(g[28], ==, 0x01);
    g_assert_cmphex(g[29], ==, 18);
    return lduw_be_p(g + 26);
}

/* Cut the cable of @a's port 1 and let the manager miss its test frames. */
static void cut_and_wait(Ctx *t, Sw *a)
{
    int k;

    set_link(t, "a1", false);
    set_link(t, "b1", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 0);
    for (k = 0; k < 5; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
    }
}

static void test_assist_open(void)
{
    Ctx *t = mrm_mrc_ring();
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE], src[6];
    uint64_t own = 1;
    uint32_t tr, gen;
    Ev ev;
    int k;

    /* closed, secondary blocked, one learned and one static entry */
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    tr = mrd(a, 0, MRPSIM_MRP_TRANSITIONS);
    gen = mgen(a, 0);
    pwr(a, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_LEARN);
    pwr(a, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_LEARN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    mwr(a, 0, MRPSIM_MRP_TOPO_INTERVAL, 500);
    mwr(a, 0, MRPSIM_MRP_ASSIST, MRPSIM_ASSIST_OPEN);
    tx(t, b, 0, f, host_frame(f, 64, host[0], bcast));
    expect_fdb_ev(t, a, 0, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[3],
                             1 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    g_assert_cmpint(rx(t, a, 0, f, NULL, NULL), ==, 64);
    for (k = 0; k < 3; k++) {
        ring_step(t, &own, true);
    }
    expect_no_ev(t, a);
    g_assert_cmpint(rx(t, b, 0, f, NULL, NULL), ==, -1);

    /* the cut: at the loss the engine opens the ring on its own */
    set_link(t, "a1", false);
    set_link(t, "b1", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 0);
    for (k = 0; k < 4; k++) {
        ring_step(t, &own, false);
    }
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 0, 0, 0);
    expect_ev(t, a, MRPSIM_EV_MRP_ASSIST, MRPSIM_EV_NONE, 0,
              MRPSIM_EV_ASSIST_OPENED | MRPSIM_EV_ASSIST_FLUSHED |
              gen << MRPSIM_EV_MRP_GEN_SHIFT);
    expect_ev(t, a, MRPSIM_EV_MRP_LOSS, 1, 0, 1);
    expect_no_ev(t, a);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_RING_STATE), ==,
                     MRPSIM_RSTATE_OPEN);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_TRANSITIONS), ==, tr + 1);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_CTRL), ==,
                    MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_LEARN);
    g_assert_cmpuint(rd(a, MRPSIM_REG_FDB_COUNT), ==, 1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_L2_FLUSHED), ==, 1);

    /*
     * TopologyChange frames TOPO_INTERVAL apart, announcing a flush in
     * 3, 2, 1, 0 intervals (1500, 1000, 500, 0 us: 1, 1, 0, 0 ms), out of
     * the port that is up, the first at the tick that lost the ring.
     */
    stl_le_p(src, prd(a, 0, MRPSIM_PORT_MAC_LO));
    stw_le_p(src + 4, prd(a, 0, MRPSIM_PORT_MAC_HI));
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, 1);
    qtest_clock_step(t->qts, 500 * 1000);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, 1);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, -1);
    qtest_clock_step(t->qts, 500 * 1000);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, 0);
    qtest_clock_step(t->qts, 500 * 1000);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, 0);
    qtest_clock_step(t->qts, 5000 * 1000);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, -1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TOPO_TX), ==, 4);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_TOPO_TX), ==, 0);

    /* software closes the ring; the next loss opens it again */
    set_link(t, "a1", true);
    set_link(t, "b1", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 1);
    pwr(a, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    while (ev_next(t, a, &ev)) {
        g_assert_cmpuint(ev.type, ==, MRPSIM_EV_MRP_REGAIN);
    }
    mwr(a, 0, MRPSIM_MRP_TOPO_REPEAT, 0);
    cut_and_wait(t, a);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_RING_STATE), ==,
                     MRPSIM_RSTATE_OPEN);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_TRANSITIONS), ==, tr + 3);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_CTRL), ==, MRPSIM_PORT_CTRL_EN);
    /* TOPO_REPEAT 0: one frame, "flush now" */
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, 0);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, -1);

    /*
     * Software swapped the ports' roles without telling the engine (a
     * manager does when its primary's link goes down, and Linux's bridge
     * cannot pass a swap on): closed with the primary blocking.  The
     * loss opens the port that blocks.
     */
    while (ev_next(t, a, &ev)) {
        /* the loss and the assist's report of the open above */
    }
    set_link(t, "a1", true);
    set_link(t, "b1", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 1);
    pwr(a, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    pwr(a, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    while (ev_next(t, a, &ev)) {
        g_assert_cmpuint(ev.type, ==, MRPSIM_EV_MRP_REGAIN);
    }
    cut_and_wait(t, a);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_RING_STATE), ==,
                     MRPSIM_RSTATE_OPEN);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_TRANSITIONS), ==, tr + 5);
    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_CTRL), ==, MRPSIM_PORT_CTRL_EN);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_CTRL), ==, MRPSIM_PORT_CTRL_EN);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, 0);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, -1);

    /* without ASSIST the engine only reports */
    mwr(a, 0, MRPSIM_MRP_ASSIST, 0);
    pwr(a, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    mwr(a, 0, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_CLOSED);
    for (k = 0; k < 5; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
    }
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_RING_STATE), ==,
                     MRPSIM_RSTATE_CLOSED);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_CTRL), ==, MRPSIM_PORT_CTRL_EN |
                    MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    g_assert_cmpint(topo_rx(t, b, 0, src), ==, -1);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_TOPO_TX), ==, 6);
    shutdown_ctx(t);
}

static void test_assist_flush(void)
{
    Ctx *t = boot(TWO_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE];
    Ev ev;

    evq_setup(t, b, EVQ_SIZE);
    two_port_rings(t, a, b);
    mwr(b, 1, MRPSIM_MRP_PORTS, 1 | 0 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(b, 1, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    mwr(b, 1, MRPSIM_MRP_ASSIST, MRPSIM_ASSIST_FLUSH);
    pwr(b, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_LEARN);
    pwr(b, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN | MRPSIM_PORT_CTRL_LEARN);
    g_assert_cmpuint(fdb_cmd(b, MRPSIM_FDB_CMD_ADD, host[3],
                             0 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    tx(t, a, 0, f, host_frame(f, 64, host[0], bcast));
    tx(t, a, 1, f, host_frame(f, 64, host[1], bcast));
    expect_fdb_ev(t, b, 0, MRPSIM_FDB_EV_LEARNED);
    expect_fdb_ev(t, b, 1, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 3);
    g_assert_cmpint(rx_count(t, b, 0, MRPSIM_DESC_DONE), ==, 1);
    g_assert_cmpint(rx_count(t, b, 1, MRPSIM_DESC_DONE), ==, 1);

    /* a TopologyChange asking for a flush in 5 ms: to the CPU, flush later */
    tx(t, a, 0, f, mrp_topo_frame(f, 5));
    g_assert_cmpint(topo_rx(t, b, 0, sa0), ==, 5);
    qtest_clock_step(t->qts, 4900 * 1000);
    expect_no_ev(t, b);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 3);
    /* the next of the series sets the time anew */
    tx(t, a, 1, f, mrp_topo_frame(f, 2));
    g_assert_cmpint(topo_rx(t, b, 1, sa0), ==, 2);
    qtest_clock_step(t->qts, 1900 * 1000);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 3);
    qtest_clock_step(t->qts, 100 * 1000);
    expect_ev(t, b, MRPSIM_EV_MRP_ASSIST, MRPSIM_EV_NONE, 1,
              MRPSIM_EV_ASSIST_FLUSHED);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_L2_FLUSHED), ==, 1);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_L2_FLUSHED), ==, 1);
    expect_no_ev(t, b);

    /* interval 0: at once */
    tx(t, a, 0, f, host_frame(f, 64, host[0], bcast));
    expect_fdb_ev(t, b, 0, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(rx_count(t, b, 0, MRPSIM_DESC_DONE), ==, 1);
    tx(t, a, 0, f, mrp_topo_frame(f, 0));
    expect_ev(t, b, MRPSIM_EV_MRP_ASSIST, MRPSIM_EV_NONE, 1,
              MRPSIM_EV_ASSIST_FLUSHED);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 1);
    g_assert_cmpint(topo_rx(t, b, 0, sa0), ==, 0);

    /* ASSIST.FLUSH off, or a bad value: nothing */
    mwr(b, 1, MRPSIM_MRP_ASSIST, 0x4);
    expect_err(b, MRPSIM_ERR_REG, 0xff);
    g_assert(ev_next(t, b, &ev) && ev.type == MRPSIM_EV_ERROR);
    mwr(b, 1, MRPSIM_MRP_ASSIST, 0);
    tx(t, a, 0, f, host_frame(f, 64, host[0], bcast));
    expect_fdb_ev(t, b, 0, MRPSIM_FDB_EV_LEARNED);
    g_assert_cmpint(rx_count(t, b, 0, MRPSIM_DESC_DONE), ==, 1);
    tx(t, a, 0, f, mrp_topo_frame(f, 0));
    qtest_clock_step(t->qts, 10 * MS);
    g_assert_cmpuint(rd(b, MRPSIM_REG_FDB_COUNT), ==, 2);
    expect_no_ev(t, b);
    g_assert_cmpint(topo_rx(t, b, 0, sa0), ==, 0);
    shutdown_ctx(t);
}

/* A QEMU to migrate into, with the switches of @args. */
static Ctx *boot_incoming(const char *args, const char *incoming)
{
    Ctx *t = g_new0(Ctx, 1);

    t->qs = qtest_pc_boot("-nodefaults %s -incoming %s", args, incoming);
    t->qts = t->qs->qts;
    /* no self-announce RARPs from the ports on real-time timers */
    qobject_unref(qtest_qmp(t->qts, "{'execute': 'migrate-set-parameters',"
                            " 'arguments': {'announce-rounds': 0}}"));
    return t;
}

/* Take over @src's switches in @dst after a migration; frees @src. */
static void take_over(Ctx *src, Ctx *dst, int nsw)
{
    int i;

    for (i = 0; i < nsw; i++) {
        dst->sw[i] = src->sw[i];
        sw_init(dst, i, 4 + i);
    }
    shutdown_ctx(src);
}

/*
 * A port's link is what the guest saw, across a migration, and what the
 * destination's backends and link partners say once the VM runs there,
 * with a LINK event where the two differ.
 */
/* ---- Interconnection ---- */

/*
 * Two 3-port switches: ring port 0 and I-port 2 of each cabled to the
 * other's (a0 - b0, a2 - b2); port 1 has no cable.  sw0 runs a MIM,
 * sw1 a MIC, each with a client's ring role on ports 0 and 1.
 */
#define IN_SWITCHES \
    "-netdev hubport,id=a0,hubid=1 -netdev hubport,id=b0,hubid=1 " \
    "-netdev hubport,id=a2,hubid=3 -netdev hubport,id=b2,hubid=3 " \
    "-device mrpsim,id=sw0,addr=4,ports=3,netdev0=a0,netdev2=a2 " \
    "-device mrpsim,id=sw1,addr=5,ports=3,netdev0=b0,netdev2=b2"

#define IN_ID           0x0123

static void in_setup(Sw *sw, uint32_t in_role)
{
    mwr(sw, 0, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(sw, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    mwr(sw, 0, MRPSIM_MRP_SA_LO, ldl_le_p(sa0));
    mwr(sw, 0, MRPSIM_MRP_SA_HI, lduw_le_p(sa0 + 4));
    mwr(sw, 0, MRPSIM_MRP_IN_ROLE, in_role);
    mwr(sw, 0, MRPSIM_MRP_IN_PORT, 2);
    mwr(sw, 0, MRPSIM_MRP_IN_ID, IN_ID);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
}

static uint32_t in_status(Sw *sw)
{
    return mrd(sw, 0, MRPSIM_MRP_IN_STATUS) & ~MRPSIM_MRP_STATUS_GEN_MASK;
}

static uint32_t in_gen(Sw *sw)
{
    return (mrd(sw, 0, MRPSIM_MRP_IN_STATUS) & MRPSIM_MRP_STATUS_GEN_MASK) >>
           MRPSIM_MRP_STATUS_GEN_SHIFT;
}

static void expect_in_ev(Ctx *t, Sw *sw, uint8_t type, uint8_t port,
                         uint32_t role)
{
    Ev ev;

    g_assert(ev_next(t, sw, &ev));
    g_assert_cmpuint(ev.type, ==, type);
    g_assert_cmpuint(ev.port, ==, port);
    g_assert_cmpuint(ev.ring, ==, 0);
    g_assert_cmphex(ev.data, ==, role | in_gen(sw) << MRPSIM_EV_MRP_GEN_SHIFT);
}

static void test_in_regs(void)
{
    Ctx *t = boot("-device mrpsim,addr=4,ports=4,rings=2", 1);
    Sw *sw = &t->sw[0];

    /* power-on values */
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_ROLE), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_PORT), ==, MRPSIM_MRP_PORT_NONE);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_STATE), ==,
                     MRPSIM_IN_STATE_OPEN);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_INTERVAL), ==, 1000);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_MAX_MISS), ==, 3);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_CTRL), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_STATUS), ==, 0);

    /* bad values: refused with ERR_REG, the register keeps its value */
    mwr(sw, 0, MRPSIM_MRP_IN_ROLE, 3);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_STATE, 2);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_INTERVAL, MRPSIM_TEST_INTERVAL_MIN - 1);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_CTRL, 2);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_PORT, 4);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_ROLE), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_INTERVAL), ==, 1000);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_PORT), ==, MRPSIM_MRP_PORT_NONE);

    /*
     * An I-port is no ring port, of this instance or another, and no
     * other instance's I-port; a ring port is no I-port.
     */
    mwr(sw, 0, MRPSIM_MRP_PORTS, 0 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    mwr(sw, 0, MRPSIM_MRP_IN_PORT, 1);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 1, MRPSIM_MRP_IN_PORT, 0);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_PORT, 2);
    mwr(sw, 1, MRPSIM_MRP_IN_PORT, 2);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 1, MRPSIM_MRP_PORTS, 2 | 3 << MRPSIM_MRP_PORTS_S_SHIFT);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_PORTS, 2 | 1 << MRPSIM_MRP_PORTS_S_SHIFT);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_PORT), ==, 2);

    /* the InTest runs only on a MIM with an I-port */
    mwr(sw, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_ROLE, MRPSIM_ROLE_MRC);
    mwr(sw, 0, MRPSIM_MRP_IN_ROLE, MRPSIM_IN_ROLE_MIM);
    mwr(sw, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN | 2);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN);
    g_assert_cmphex(rd(sw, MRPSIM_REG_ERR_STATUS), ==, 0);
    g_assert_cmphex(in_status(sw), ==, MRPSIM_IN_STATUS_RUNNING);
    g_assert_cmpuint(in_gen(sw), ==, 1);
    /* ...whose I-port cannot go while it runs */
    mwr(sw, 0, MRPSIM_MRP_IN_PORT, MRPSIM_MRP_PORT_NONE);
    expect_err(sw, MRPSIM_ERR_REG, 0xff);
    mwr(sw, 0, MRPSIM_MRP_IN_PORT, 3);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_PORT), ==, 3);

    /* IN_STATE counts its transitions; writing the same is none */
    mwr(sw, 0, MRPSIM_MRP_IN_STATE, MRPSIM_IN_STATE_CLOSED);
    mwr(sw, 0, MRPSIM_MRP_IN_STATE, MRPSIM_IN_STATE_CLOSED);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_TRANSITIONS), ==, 1);
    /* closing checks afresh: a new generation */
    g_assert_cmpuint(in_gen(sw), ==, 2);

    /* no MIM, no test */
    mwr(sw, 0, MRPSIM_MRP_IN_ROLE, MRPSIM_IN_ROLE_MIC);
    g_assert_cmphex(in_status(sw), ==, 0);
    g_assert_cmphex(mrd(sw, 0, MRPSIM_MRP_IN_TEST_CTRL), ==, 0);

    /* reset: power-on values again */
    mwr(sw, 0, MRPSIM_MRP_IN_CTRL, MRPSIM_IN_CTRL_FWD);
    wr(sw, MRPSIM_REG_CTRL, MRPSIM_CTRL_RESET);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_ROLE), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_PORT), ==, MRPSIM_MRP_PORT_NONE);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_ID), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_TRANSITIONS), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_CTRL), ==, 0);
    g_assert_cmpuint(mrd(sw, 0, MRPSIM_MRP_IN_STATUS), ==, 0);
    shutdown_ctx(t);
}

/*
 * A MIM's InTest frames: their layout, on all three ports; back through
 * the MIC on the other side, terminated by the MIM and never seen by a
 * CPU; the I-link cut is a loss after IN_MAX_MISS intervals, mended a
 * regain; while IN_STATE is open the first own frame is reported once.
 */
static void test_in_mim(void)
{
    Ctx *t = boot(IN_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t g[BUF_SIZE];
    uint16_t status;
    uint32_t meta;
    int k, p;

    evq_setup(t, a, EVQ_SIZE);
    for (p = 0; p < 3; p++) {
        port_rings(t, a, p, BUF_SIZE);
        port_rings(t, b, p, BUF_SIZE);
    }
    in_setup(a, MRPSIM_IN_ROLE_MIM);
    in_setup(b, MRPSIM_IN_ROLE_MIC);
    mwr(a, 0, MRPSIM_MRP_DOMAIN(0), 0x11);
    mwr(a, 0, MRPSIM_MRP_IN_STATE, MRPSIM_IN_STATE_CLOSED);
    mwr(a, 0, MRPSIM_MRP_IN_INTERVAL, IV_US);
    mwr(a, 0, MRPSIM_MRP_IN_MAX_MISS, 3);

    /* without IN_CTRL.FWD the MIC's CPU gets them: look at them there */
    mwr(a, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN);
    g_assert_cmpuint(cnt(a, 0, MRPSIM_CNT_MRP_IN_TEST_TX), ==, 1);
    g_assert_cmpuint(cnt(a, 1, MRPSIM_CNT_MRP_IN_TEST_TX), ==, 0);
    g_assert_cmpuint(cnt(a, 2, MRPSIM_CNT_MRP_IN_TEST_TX), ==, 1);
    for (p = 0; p <= 2; p += 2) {
        g_assert_cmpint(rx(t, b, p, g, &status, &meta), ==, MRP_FRAME_LEN);
        g_assert_cmphex(status, ==, MRPSIM_DESC_DONE | MRPSIM_DESC_MRP);
        g_assert_cmphex(meta, ==, 0);
        g_assert(!memcmp(g, in_dmac, 6));
        g_assert_cmphex(lduw_be_p(g + 12), ==, 0x88e3);
        g_assert_cmphex(g[16], ==, 0x06);                   /* InTest */
        g_assert_cmphex(g[17], ==, 18);
        g_assert_cmphex(lduw_be_p(g + 18), ==, IN_ID);
        g_assert(!memcmp(g + 20, sa0, 6));
        g_assert_cmphex(lduw_be_p(g + 26), ==, p);          /* port role */
        g_assert_cmphex(lduw_be_p(g + 28), ==, MRPSIM_IN_STATE_CLOSED);
        g_assert_cmphex(lduw_be_p(g + 30), ==, 1);          /* transitions */
        g_assert_cmphex(g[36], ==, 0x01);                   /* Common */
        g_assert_cmphex(g[37], ==, 18);
        g_assert_cmphex(lduw_be_p(g + 38), ==, p ? 2 : 1);  /* sequence */
        g_assert_cmphex(g[40], ==, 0x11);                   /* domain */
        g_assert_cmphex(g[56], ==, 0x00);                   /* End */
    }
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, 1);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_MRP_TRAP), ==, 1);

    /*
     * With FWD the MIC passes them on to its other ports: p0's to p2 and
     * p1 (no cable), p2's to p0 and p1; each comes back to the MIM once.
     */
    mwr(b, 0, MRPSIM_MRP_IN_CTRL, MRPSIM_IN_CTRL_FWD);
    for (k = 1; k <= 5; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
        wait_cnt(a, 0, MRPSIM_CNT_MRP_IN_TEST_RX, k);
        wait_cnt(a, 2, MRPSIM_CNT_MRP_IN_TEST_RX, k);
    }
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, 5);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_MRP_FWD), ==, 5);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 10);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_TRAP), ==, 1);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_MRP_TRAP), ==, 1);
    for (p = 0; p < 3; p++) {
        g_assert_cmpint(rx(t, a, p, g, NULL, NULL), ==, -1);
        g_assert_cmpint(rx(t, b, p, g, NULL, NULL), ==, -1);
    }
    g_assert_cmphex(in_status(a), ==, MRPSIM_IN_STATUS_RUNNING);
    expect_no_ev(t, a);

    /* cut the interconnection: lost at the 4th tick, reported once */
    set_link(t, "a2", false);
    set_link(t, "b2", false);
    expect_ev(t, a, MRPSIM_EV_LINK, 2, MRPSIM_EV_NONE, 0);
    for (k = 0; k < 3; k++) {
        qtest_clock_step(t->qts, IV_US * 1000);
        expect_no_ev(t, a);
    }
    qtest_clock_step(t->qts, IV_US * 1000);
    expect_in_ev(t, a, MRPSIM_EV_IN_LOSS, 2, 2);
    g_assert_cmphex(in_status(a), ==,
                    MRPSIM_IN_STATUS_RUNNING | MRPSIM_IN_STATUS_LOST);
    g_assert_cmpuint(cnt(a, 2, MRPSIM_CNT_MRP_IN_LOSS), ==, 1);
    qtest_clock_step(t->qts, 3 * IV_US * 1000);
    expect_no_ev(t, a);

    /* mend it: back on the I-port (p0's frame through the MIC) */
    set_link(t, "a2", true);
    set_link(t, "b2", true);
    expect_ev(t, a, MRPSIM_EV_LINK, 2, MRPSIM_EV_NONE, 1);
    qtest_clock_step(t->qts, IV_US * 1000);
    wait_cnt(a, 0, MRPSIM_CNT_MRP_IN_TEST_RX, 6);
    expect_in_ev(t, a, MRPSIM_EV_IN_REGAIN, 2, 2);
    expect_no_ev(t, a);
    g_assert_cmphex(in_status(a), ==, MRPSIM_IN_STATUS_RUNNING);
    g_assert_cmpuint(cnt(a, 2, MRPSIM_CNT_MRP_IN_REGAIN), ==, 1);

    /*
     * The software opens the interconnection with no loss of the
     * engine's: the next own frame is reported, once.
     */
    mwr(a, 0, MRPSIM_MRP_IN_STATE, MRPSIM_IN_STATE_OPEN);
    qtest_clock_step(t->qts, IV_US * 1000);
    wait_cnt(a, 0, MRPSIM_CNT_MRP_IN_TEST_RX, 7);
    expect_in_ev(t, a, MRPSIM_EV_IN_REGAIN, 2, 2);
    qtest_clock_step(t->qts, IV_US * 1000);
    expect_no_ev(t, a);
    g_assert_cmpuint(cnt(a, 2, MRPSIM_CNT_MRP_IN_REGAIN), ==, 1);
    shutdown_ctx(t);
}

/*
 * Another interconnection's InTest, with IN_CTRL.FWD: a MIM passes it
 * between its ring ports only and drops it on its I-port; a MIC passes it
 * to all its other ports, but not on from a blocked ring port nor out of
 * a blocked one; a node with no interconnection role between its ring
 * ports.  None reaches a CPU.
 */
static void test_in_fwd(void)
{
    Ctx *t = boot(IN_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];
    uint8_t f[BUF_SIZE], g[BUF_SIZE];
    int p;

    for (p = 0; p < 3; p++) {
        port_rings(t, a, p, BUF_SIZE);
        port_rings(t, b, p, BUF_SIZE);
    }
    in_setup(b, MRPSIM_IN_ROLE_MIC);
    mwr(b, 0, MRPSIM_MRP_IN_CTRL, MRPSIM_IN_CTRL_FWD);
    mrp_in_test_frame(f, IN_ID + 1, sa0, 0);

    /* MIC, from ring port 0: to p2 (back to sw0's CPU) and p1 (no link) */
    tx(t, a, 0, f, MRP_FRAME_LEN);
    wait_cnt(a, 2, MRPSIM_CNT_RX_FRAMES, 1);
    g_assert_cmpint(rx(t, a, 2, g, NULL, NULL), ==, MRP_FRAME_LEN);
    g_assert(!memcmp(f, g, MRP_FRAME_LEN));
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 1);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_FWD), ==, 1);
    /* from the I-port: to both ring ports */
    tx(t, a, 2, f, MRP_FRAME_LEN);
    wait_cnt(a, 0, MRPSIM_CNT_RX_FRAMES, 1);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 2);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_MRP_FWD), ==, 1);
    g_assert_cmpint(rx(t, a, 0, g, NULL, NULL), ==, MRP_FRAME_LEN);
    /* a blocked I-port passes none out */
    pwr(b, 2, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 3);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_TX_FRAMES), ==, 1);
    pwr(b, 2, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    /* a blocked ring port passes none on */
    pwr(b, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN |
        MRPSIM_PSTATE_BLOCKING << MRPSIM_PORT_CTRL_STATE_SHIFT);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 3);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 3);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_TX_FRAMES), ==, 1);
    pwr(b, 0, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);

    /* MIM: from a ring port only to the other; on the I-port dropped */
    mwr(b, 0, MRPSIM_MRP_IN_ROLE, MRPSIM_IN_ROLE_MIM);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 4);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_TX_FRAMES), ==, 1);
    tx(t, a, 2, f, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_RX_FRAMES), ==, 2);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 4);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_TX_FRAMES), ==, 1);

    /*
     * No interconnection role: between the ring ports; the I-port is an
     * ordinary port again, whose MRP frames go to the CPU.
     */
    mwr(b, 0, MRPSIM_MRP_IN_ROLE, MRPSIM_IN_ROLE_DISABLED);
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 5);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_TX_FRAMES), ==, 1);
    tx(t, a, 2, f, MRP_FRAME_LEN);
    g_assert_cmpint(rx(t, b, 2, g, NULL, NULL), ==, MRP_FRAME_LEN);

    /* a short InTest TLV is malformed */
    f[17] = 12;
    tx(t, a, 0, f, MRP_FRAME_LEN);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_MRP_MALFORMED), ==, 1);
    g_assert_cmpuint(cnt(b, 1, MRPSIM_CNT_TX_DROP_LINK), ==, 5);

    for (p = 0; p < 3; p++) {
        g_assert_cmpint(rx(t, a, p, g, NULL, NULL), ==, -1);
        g_assert_cmpint(rx(t, b, p, g, NULL, NULL), ==, -1);
    }
    shutdown_ctx(t);
}

/* IN_PERIOD ends the InTest with IN_TEST_DONE; a role change stops it. */
static void test_in_period(void)
{
    Ctx *t = boot(IN_SWITCHES, 2);
    Sw *a = &t->sw[0], *b = &t->sw[1];

    evq_setup(t, a, EVQ_SIZE);
    in_setup(a, MRPSIM_IN_ROLE_MIM);
    mwr(a, 0, MRPSIM_MRP_IN_PERIOD, 3500);
    mwr(a, 0, MRPSIM_MRP_IN_MAX_MISS, 100);
    mwr(a, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN);
    qtest_clock_step(t->qts, 3499000);
    expect_no_ev(t, a);
    qtest_clock_step(t->qts, 1000);
    expect_in_ev(t, a, MRPSIM_EV_IN_TEST_DONE, MRPSIM_EV_NONE, 0);
    g_assert_cmphex(in_status(a), ==, 0);
    g_assert_cmphex(mrd(a, 0, MRPSIM_MRP_IN_TEST_CTRL), ==, 0);
    /* 4 ticks (0 to 3 ms) on p0 and p2 */
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 4);
    g_assert_cmpuint(cnt(b, 2, MRPSIM_CNT_RX_FRAMES), ==, 4);

    mwr(a, 0, MRPSIM_MRP_IN_PERIOD, 0);
    mwr(a, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 5);
    mwr(a, 0, MRPSIM_MRP_IN_ROLE, MRPSIM_IN_ROLE_MIC);
    g_assert_cmphex(in_status(a), ==, 0);
    qtest_clock_step(t->qts, 10 * IV_US * 1000);
    g_assert_cmpuint(cnt(b, 0, MRPSIM_CNT_RX_FRAMES), ==, 5);
    expect_no_ev(t, a);
    shutdown_ctx(t);
}

/* A running MIM migrates: its registers, generation and timer go along. */
static void test_in_migrate(void)
{
    g_autofree char *uri = g_strdup_printf("unix:%s/mrpsim-mig-in-%d.sock",
                                           g_get_tmp_dir(), getpid());
    Ctx *src = boot(IN_SWITCHES, 2);
    Ctx *dst = g_new0(Ctx, 1);
    Sw *a = &src->sw[0], *b = &src->sw[1];
    int i;

    evq_setup(src, a, EVQ_SIZE);
    in_setup(a, MRPSIM_IN_ROLE_MIM);
    in_setup(b, MRPSIM_IN_ROLE_MIC);
    mwr(b, 0, MRPSIM_MRP_IN_CTRL, MRPSIM_IN_CTRL_FWD);
    mwr(a, 0, MRPSIM_MRP_IN_STATE, MRPSIM_IN_STATE_CLOSED);
    mwr(a, 0, MRPSIM_MRP_IN_INTERVAL, IV_US);
    mwr(a, 0, MRPSIM_MRP_IN_TEST_CTRL, MRPSIM_IN_TEST_CTRL_RUN);
    wait_cnt(a, 2, MRPSIM_CNT_MRP_IN_TEST_RX, 1);
    g_assert_cmpuint(in_gen(a), ==, 1);

    dst->qs = qtest_pc_boot("-nodefaults " IN_SWITCHES " -incoming %s", uri);
    dst->qts = dst->qs->qts;
    qobject_unref(qtest_qmp(dst->qts, "{'execute': 'migrate-set-parameters',"
                            " 'arguments': {'announce-rounds': 0}}"));
    migrate(src->qs, dst->qs, uri);
    for (i = 0; i < 2; i++) {
        dst->sw[i] = src->sw[i];
        sw_init(dst, i, 4 + i);
    }
    shutdown_ctx(src);
    a = &dst->sw[0];
    b = &dst->sw[1];

    g_assert_cmphex(in_status(a), ==, MRPSIM_IN_STATUS_RUNNING);
    g_assert_cmpuint(in_gen(a), ==, 1);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_IN_ID), ==, IN_ID);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_IN_PORT), ==, 2);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_IN_TRANSITIONS), ==, 1);
    g_assert_cmphex(mrd(b, 0, MRPSIM_MRP_IN_CTRL), ==, MRPSIM_IN_CTRL_FWD);
    qtest_clock_step(dst->qts, IV_US * 1000);
    wait_cnt(a, 2, MRPSIM_CNT_MRP_IN_TEST_RX, 2);
    expect_no_ev(dst, a);
    set_link(dst, "a2", false);
    expect_ev(dst, a, MRPSIM_EV_LINK, 2, MRPSIM_EV_NONE, 0);
    set_link(dst, "a0", false);
    expect_ev(dst, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    qtest_clock_step(dst->qts, 4 * IV_US * 1000);
    expect_in_ev(dst, a, MRPSIM_EV_IN_LOSS, 2, 2);
    shutdown_ctx(dst);
}

static void test_migrate_link(void)
{
    g_autofree char *uri = g_strdup_printf("unix:%s/mrpsim-mig-%d.sock",
                                           g_get_tmp_dir(), getpid());
    Ctx *src = boot(TWO_SWITCHES, 2);
    Ctx *dst;
    Sw *a = &src->sw[0], *b = &src->sw[1];

    evq_setup(src, a, EVQ_SIZE);
    evq_setup(src, b, EVQ_SIZE);
    /* backend down; partner disabled; the NIC itself down */
    set_link(src, "a0", false);
    expect_ev(src, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);
    pwr(a, 1, MRPSIM_PORT_CTRL, 0);
    expect_ev(src, b, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 0);
    set_link(src, "sw1.p0", false);
    expect_ev(src, b, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 0);

    /*
     * QEMU migrates no link state of its own: the destination's
     * management sets a0 down again, but not sw1.p0
     */
    dst = boot_incoming(TWO_SWITCHES, uri);
    set_link(dst, "a0", false);
    migrate(src->qs, dst->qs, uri);
    take_over(src, dst, 2);
    a = &dst->sw[0];
    b = &dst->sw[1];

    g_assert_cmphex(prd(a, 0, MRPSIM_PORT_STATUS), ==, 0);
    g_assert_cmphex(prd(a, 1, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    g_assert_cmphex(prd(b, 1, MRPSIM_PORT_STATUS), ==, 0);
    expect_no_ev(dst, a);
    /* up here, down there: the guest is told */
    g_assert_cmphex(prd(b, 0, MRPSIM_PORT_STATUS), ==,
                    MRPSIM_PORT_STATUS_LINK);
    expect_ev(dst, b, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);
    expect_no_ev(dst, b);

    /* and the links go on moving */
    set_link(dst, "a0", true);
    expect_ev(dst, a, MRPSIM_EV_LINK, 0, MRPSIM_EV_NONE, 1);
    pwr(a, 1, MRPSIM_PORT_CTRL, MRPSIM_PORT_CTRL_EN);
    expect_ev(dst, b, MRPSIM_EV_LINK, 1, MRPSIM_EV_NONE, 1);
    shutdown_ctx(dst);
}

/* Save @t's state to a file; returns its contents, @path its name. */
static char *migrate_to_file(Ctx *t, char **path, gsize *len)
{
    g_autofree char *uri = NULL;
    QDict *rsp;
    char *buf;
    const char *st = "active";
    int i;

    *path = g_strdup_printf("%s/mrpsim-mig-%d.bin", g_get_tmp_dir(),
                            getpid());
    uri = g_strdup_printf("exec:cat > %s", *path);
    rsp = qtest_qmp(t->qts, "{'execute': 'migrate', 'arguments':"
                    " {'uri': %s}}", uri);
    g_assert(!qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    for (i = 0; i < 2000 && strcmp(st, "completed"); i++) {
        g_usleep(5000);
        rsp = qtest_qmp(t->qts, "{'execute': 'query-migrate'}");
        st = qdict_get_str(qdict_get_qdict(rsp, "return"), "status");
        g_assert(strcmp(st, "failed"));
        st = strcmp(st, "completed") ? "active" : "completed";
        qobject_unref(rsp);
    }
    g_assert_cmpstr(st, ==, "completed");
    g_assert(g_file_get_contents(*path, &buf, len, NULL));
    return buf;
}

#define MIG_IV_US       0x00c0ffee
#define MIG_MAX_MISS    0x0badcafe
#define MIG_PERIOD_US   0x0fabcdef

/*
 * The offset of switch 0's ring instance 0 in a migration stream: its
 * TEST_INTERVAL, TEST_MAX_MISS and TEST_PERIOD, big-endian, start it;
 * then come TEST_CTRL, STATUS, SEQ_ID (16 bits), the timer, the deadline
 * and the end of the period (64 bits each).
 */
static gsize find_ring0(const char *buf, gsize len)
{
    uint8_t pat[12];
    const char *p;

    stl_be_p(pat, MIG_IV_US);
    stl_be_p(pat + 4, MIG_MAX_MISS);
    stl_be_p(pat + 8, MIG_PERIOD_US);
    p = memmem(buf, len, pat, sizeof(pat));
    g_assert(p);
    g_assert(!memmem(p + 1, len - (p + 1 - buf), pat, sizeof(pat)));
    return p - buf;
}

/* The FDB entry of @mac in a migration stream: MAC, port, flags, seen. */
static gsize find_fdb_entry(char *buf, gsize len, const uint8_t *mac)
{
    char *p = memmem(buf, len, mac, 6);

    g_assert(p);
    g_assert_cmpuint((uint8_t)p[7], ==,
                     (MRPSIM_FDB_ENTRY_VALID | MRPSIM_FDB_ENTRY_STATIC) >> 8);
    return p - buf;
}

#define RING0_DEADLINE  30
#define RING0_END       38

/* A destination loading @buf (written to @path) refuses it: QEMU exits. */
static void expect_refused(const char *path, const char *buf, gsize len,
                           const char *incoming)
{
    Ctx *dst;
    QDict *rsp;
    int i;

    g_assert(g_file_set_contents(path, buf, len, NULL));
    dst = boot_incoming(TWO_SWITCHES, "defer");
    qtest_set_expected_status(dst->qts, EXIT_FAILURE);
    rsp = qtest_qmp(dst->qts, "{'execute': 'migrate-incoming',"
                    " 'arguments': {'uri': %s}}", incoming);
    qobject_unref(rsp);
    for (i = 0; i < 1000 && qtest_probe_child(dst->qts); i++) {
        g_usleep(10000);
    }
    g_assert(!qtest_probe_child(dst->qts));
    shutdown_ctx(dst);
}

/*
 * The destination checks what it loads: a running test's deadline and
 * end are taken within sane bounds of its own clock, and a value no
 * register write could give fails the migration (QEMU exits).
 */
static void test_migrate_bad_stream(void)
{
    Ctx *src = boot(TWO_SWITCHES, 2);
    Ctx *dst;
    Sw *a = &src->sw[0];
    g_autofree char *path = NULL;
    g_autofree char *buf = NULL;
    g_autofree char *incoming = NULL;
    QDict *rsp;
    gsize len, off, fdb_off;

    mwr(a, 0, MRPSIM_MRP_TEST_PERIOD, MIG_PERIOD_US);
    start_mrm(a, MRPSIM_ROLE_MRM, MIG_IV_US, MIG_MAX_MISS);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_SEQ_ID), ==, 2);
    g_assert_cmpuint(fdb_cmd(a, MRPSIM_FDB_CMD_ADD, host[3],
                             1 | MRPSIM_FDB_ENTRY_STATIC), ==, MRPSIM_FDB_OK);
    buf = migrate_to_file(src, &path, &len);
    off = find_ring0(buf, len);
    incoming = g_strdup_printf("exec:cat %s", path);

    /* the deadline at the end of time: the test goes on all the same */
    stq_be_p(buf + off + RING0_DEADLINE, INT64_MAX);
    stq_be_p(buf + off + RING0_END, INT64_MAX);
    g_assert(g_file_set_contents(path, buf, len, NULL));
    dst = boot_incoming(TWO_SWITCHES, "defer");
    rsp = qtest_qmp(dst->qts, "{'execute': 'migrate-incoming',"
                    " 'arguments': {'uri': %s}}", incoming);
    g_assert(!qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    qtest_qmp_eventwait(dst->qts, "RESUME");
    take_over(src, dst, 2);
    a = &dst->sw[0];
    g_assert_cmphex(mstatus(a, 0), ==,
                    MRPSIM_MRP_STATUS_RUNNING);
    qtest_clock_step(dst->qts, (int64_t)MIG_IV_US * 1000);
    g_assert_cmpuint(mrd(a, 0, MRPSIM_MRP_SEQ_ID), ==, 4);
    shutdown_ctx(dst);

    /* an FDB entry on a port the switch does not have: refused */
    fdb_off = find_fdb_entry(buf, len, host[3]);
    buf[fdb_off + 6] = 2;
    expect_refused(path, buf, len, incoming);
    buf[fdb_off + 6] = 1;

    /* TEST_INTERVAL below 100 us: refused */
    stl_be_p(buf + off, MRPSIM_TEST_INTERVAL_MIN - 1);
    expect_refused(path, buf, len, incoming);
    unlink(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/mrpsim/ident", test_ident);
    qtest_add_func("/mrpsim/ring-setup", test_ring_setup);
    qtest_add_func("/mrpsim/cable", test_cable);
    qtest_add_func("/mrpsim/link", test_link);
    qtest_add_func("/mrpsim/link-partner", test_link_partner);
    qtest_add_func("/mrpsim/netdev-shared", test_netdev_shared);
    qtest_add_func("/mrpsim/bad-desc", test_bad_desc);
    qtest_add_func("/mrpsim/irq", test_irq);
    qtest_add_func("/mrpsim/reset", test_reset);
    qtest_add_func("/mrpsim/mrp-regs", test_mrp_regs);
    qtest_add_func("/mrpsim/no-mra", test_no_mra);
    qtest_add_func("/mrpsim/mrm-frames", test_mrm_frames);
    qtest_add_func("/mrpsim/mra-frames", test_mra_frames);
    qtest_add_func("/mrpsim/mrm-loss-regain", test_mrm_loss);
    qtest_add_func("/mrpsim/report-open", test_report_open);
    qtest_add_func("/mrpsim/mrc-forward-blocking", test_mrc_fwd);
    qtest_add_func("/mrpsim/mra-monitor", test_mra_monitor);
    qtest_add_func("/mrpsim/mrc-ring-no-recursion",
                   test_mrc_ring_no_recursion);
    qtest_add_func("/mrpsim/malformed", test_malformed);
    qtest_add_func("/mrpsim/test-period", test_period);
    qtest_add_func("/mrpsim/test-generation", test_generation);
    qtest_add_func("/mrpsim/test-rewrite-counts-no-miss",
                   test_rewrite_counts_no_miss);
    qtest_add_func("/mrpsim/monitor-switch-is-new-test",
                   test_monitor_switch_is_new_test);
    qtest_add_func("/mrpsim/close-is-new-generation",
                   test_close_is_new_generation);
    qtest_add_func("/mrpsim/evq-full", test_evq_full);
    qtest_add_func("/mrpsim/evq-self-dma", test_evq_self_dma);
    qtest_add_func("/mrpsim/l2-forward", test_l2_forward);
    qtest_add_func("/mrpsim/l2-fdb", test_l2_fdb);
    qtest_add_func("/mrpsim/l2-storm-control", test_l2_storm_control);
    qtest_add_func("/mrpsim/l2-ageing", test_l2_ageing);
    qtest_add_func("/mrpsim/assist-open", test_assist_open);
    qtest_add_func("/mrpsim/assist-flush", test_assist_flush);
    qtest_add_func("/mrpsim/in-regs", test_in_regs);
    qtest_add_func("/mrpsim/in-mim", test_in_mim);
    qtest_add_func("/mrpsim/in-fwd", test_in_fwd);
    qtest_add_func("/mrpsim/in-period", test_in_period);
    qtest_add_func("/mrpsim/in-migrate", test_in_migrate);
    qtest_add_func("/mrpsim/migrate", test_migrate);
    qtest_add_func("/mrpsim/migrate-link", test_migrate_link);
    qtest_add_func("/mrpsim/migrate-bad-stream", test_migrate_bad_stream);

    return g_test_run();
}
