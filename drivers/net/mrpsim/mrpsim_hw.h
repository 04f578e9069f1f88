/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mrpsim programming model: registers, descriptors and events.
 *
 * This header is the single source of truth for the layout shared by the
 * QEMU device (qemu-dev/) and the Linux driver (drivers/net/mrpsim/).  It
 * holds only constants and fixed-layout structures so that it compiles in
 * both worlds.  The semantics are described in docs/specs/mrpsim.rst; keep
 * the two in step.
 *
 * All registers are 32 bits wide and little-endian.  Counters are 64 bits
 * wide; a 32-bit read of the low half latches the high half, which is then
 * returned by the next read of the high half (lo_hi_readq() order).
 */
#ifndef MRPSIM_HW_H
#define MRPSIM_HW_H

#ifdef __KERNEL__
#include <linux/types.h>
#define MRPSIM_U8 __u8
#define MRPSIM_LE16 __le16
#define MRPSIM_LE32 __le32
#define MRPSIM_LE64 __le64
#else
#include <stdint.h>
#define MRPSIM_U8 uint8_t
#define MRPSIM_LE16 uint16_t
#define MRPSIM_LE32 uint32_t
#define MRPSIM_LE64 uint64_t
#endif

/* PCI identity: 1af4:10f0 is QEMU's range for unregistered experiments. */
#define MRPSIM_PCI_VENDOR_ID		0x1af4
#define MRPSIM_PCI_DEVICE_ID		0x10f0
#define MRPSIM_PCI_REVISION		0x01
#define MRPSIM_PCI_CLASS		0x0200	/* Ethernet controller */

#define MRPSIM_BAR_REGS			0	/* registers, MRPSIM_BAR_SIZE */
#define MRPSIM_BAR_MSIX			1	/* MSI-X table and PBA */
#define MRPSIM_BAR_SIZE			0x8000

#define MRPSIM_MAX_PORTS		8
#define MRPSIM_MIN_PORTS		2
#define MRPSIM_MAX_RINGS		4	/* MRP ring instances */
#define MRPSIM_MAX_FRAME_LEN		2048	/* largest frame on a port */
#define MRPSIM_MIN_FRAME_LEN		14	/* an Ethernet header */

/* Ring sizes are powers of two in [MRPSIM_RING_MIN, MRPSIM_RING_MAX]. */
#define MRPSIM_RING_MIN			2
#define MRPSIM_RING_MAX			4096
#define MRPSIM_RING_ALIGN		16	/* base address alignment */

/* MSI-X vectors: 0 for events, 1 + port for that port's RX and TX. */
#define MRPSIM_VEC_EVENT		0
#define MRPSIM_VEC_PORT(p)		(1 + (p))
#define MRPSIM_NUM_VECS(nports)		(1 + (nports))

/* ---- Global registers ---- */
#define MRPSIM_REG_ID			0x0000	/* RO, MRPSIM_ID */
#define MRPSIM_ID			0x4d525053	/* "MRPS" */
#define MRPSIM_REG_VERSION		0x0004	/* RO, major << 16 | minor */
#define MRPSIM_VERSION_MAJOR		1
#define MRPSIM_VERSION_MINOR		2	/* 1.1: L2, FDB; 1.2: MIM/MIC */
#define MRPSIM_VERSION_MAJOR_SHIFT	16
#define MRPSIM_VERSION_MINOR_MASK	0x0000ffff
#define MRPSIM_REG_CAP			0x0008	/* RO */
#define MRPSIM_CAP_PORTS_MASK		0x000000ff	/* number of ports */
#define MRPSIM_CAP_RINGS_SHIFT		8
#define MRPSIM_CAP_RINGS_MASK		0x00000f00	/* MRP instances */
#define MRPSIM_CAP_MRP			0x00010000	/* MRP engine present */
#define MRPSIM_CAP_MRA			0x00020000	/* test monitor mode */
#define MRPSIM_CAP_L2			0x00040000	/* FDB, L2 forwarding */
#define MRPSIM_CAP_ASSIST		0x00080000	/* MRP recovery assist */
#define MRPSIM_CAP_IN			0x00100000	/* MRP interconnection */
#define MRPSIM_REG_CTRL			0x000c	/* RW */
#define MRPSIM_CTRL_RESET		0x00000001	/* W: reset, self-clears */
#define MRPSIM_REG_ERR_STATUS		0x0010	/* RW1C, MRPSIM_ERR_* bits */
#define MRPSIM_REG_ERR_INFO		0x0014	/* RO, last error */
#define MRPSIM_ERR_INFO_CODE_MASK	0x000000ff	/* enum mrpsim_err */
#define MRPSIM_ERR_INFO_PORT_SHIFT	8
#define MRPSIM_ERR_INFO_PORT_MASK	0x0000ff00	/* 0xff: none */
#define MRPSIM_ERR_INFO_INDEX_SHIFT	16
#define MRPSIM_ERR_INFO_INDEX_MASK	0xffff0000	/* descriptor index */
#define MRPSIM_REG_IRQ_PENDING		0x0018	/* RO, bit per vector */
#define MRPSIM_REG_IRQ_MASK		0x001c	/* RO, bit per vector */
#define MRPSIM_REG_IRQ_MASK_SET		0x0020	/* WO, 1 masks */
#define MRPSIM_REG_IRQ_MASK_CLR		0x0024	/* WO, 1 unmasks */
#define MRPSIM_REG_CLOCK_LO		0x0028	/* RO, ns, latches HI */
#define MRPSIM_REG_CLOCK_HI		0x002c	/* RO */
#define MRPSIM_REG_MAC_LO		0x0030	/* RO, base MAC bytes 0-3 */
#define MRPSIM_REG_MAC_HI		0x0034	/* RO, base MAC bytes 4-5 */

/* Event queue: device writes entries, driver consumes them. */
#define MRPSIM_REG_EVQ_BASE_LO		0x0040
#define MRPSIM_REG_EVQ_BASE_HI		0x0044
#define MRPSIM_REG_EVQ_SIZE		0x0048	/* entries */
#define MRPSIM_REG_EVQ_HEAD		0x004c	/* RO, next entry written */
#define MRPSIM_REG_EVQ_TAIL		0x0050	/* RW, next entry consumed */
#define MRPSIM_REG_EVQ_CTRL		0x0054	/* RW, MRPSIM_Q_CTRL_* */
#define MRPSIM_REG_EVQ_DROPS		0x0058	/* RO, events lost (enabled) */

/* FDB: one table of MAC addresses for the whole switch (no VLANs). */
#define MRPSIM_REG_FDB_SIZE		0x0080	/* RO, entries */
#define MRPSIM_REG_FDB_COUNT		0x0084	/* RO, entries in use */
#define MRPSIM_REG_FDB_AGEING		0x0088	/* RW, ms; 0: never age */
#define MRPSIM_REG_FDB_MAC_LO		0x008c	/* RW, MAC bytes 0-3 */
#define MRPSIM_REG_FDB_MAC_HI		0x0090	/* RW, MAC bytes 4-5 */
#define MRPSIM_REG_FDB_ENTRY		0x0094	/* RW, MRPSIM_FDB_ENTRY_* */
#define MRPSIM_REG_FDB_INDEX		0x0098	/* RW, entry index */
#define MRPSIM_REG_FDB_CMD		0x009c	/* W: command; R: its status */

#define MRPSIM_FDB_ENTRY_PORT_MASK	0x000000ff	/* port; CPU: 0xff */
#define MRPSIM_FDB_ENTRY_VALID		0x00000100	/* READ: slot in use */
#define MRPSIM_FDB_ENTRY_STATIC		0x00000200	/* added, never ages */
#define MRPSIM_FDB_ENTRY_CPU		0x00000400	/* to the CPU only */

enum mrpsim_fdb_cmd {
	MRPSIM_FDB_CMD_ADD	= 1,	/* MAC, ENTRY -> INDEX */
	MRPSIM_FDB_CMD_DEL	= 2,	/* MAC */
	MRPSIM_FDB_CMD_READ	= 3,	/* INDEX -> MAC, ENTRY */
	MRPSIM_FDB_CMD_FLUSH	= 4,	/* ENTRY: port (0xff all), STATIC */
};

enum mrpsim_fdb_status {
	MRPSIM_FDB_OK		= 0,
	MRPSIM_FDB_NOT_FOUND	= 1,	/* DEL: no such MAC */
	MRPSIM_FDB_FULL		= 2,	/* ADD: no free slot for the MAC */
	MRPSIM_FDB_INVAL	= 3,	/* bad command, MAC, port or index */
};

#define MRPSIM_FDB_ENTRIES		1024
#define MRPSIM_FDB_WAYS			4	/* entries per hash bucket */
#define MRPSIM_FDB_AGEING_DEFAULT	300000	/* ms, power-on */
#define MRPSIM_FDB_AGEING_MIN		10	/* ms, other than 0 */

/* Errors, in ERR_INFO's code field; ERR_STATUS has BIT(code). */
enum mrpsim_err {
	MRPSIM_ERR_NONE		= 0,
	MRPSIM_ERR_DMA		= 1,	/* descriptor or buffer DMA failed */
	MRPSIM_ERR_RING		= 2,	/* bad ring base or size on enable */
	MRPSIM_ERR_INDEX	= 3,	/* tail written out of range */
	MRPSIM_ERR_LEN		= 4,	/* bad TX length or RX buffer size */
	MRPSIM_ERR_EVQ_FULL	= 5,	/* an event was dropped */
	MRPSIM_ERR_REG		= 6,	/* bad value written to a register */
};

#define MRPSIM_ERR_BIT(code)		(1u << (code))

/* ---- Per-port registers ---- */
#define MRPSIM_PORT_STRIDE		0x400
#define MRPSIM_PORT_BASE(p)		(0x1000 + (p) * MRPSIM_PORT_STRIDE)

/* One queue register block; TX at +0x00, RX at +0x20 in a port block. */
#define MRPSIM_PORT_TXQ			0x000
#define MRPSIM_PORT_RXQ			0x020
#define MRPSIM_Q_BASE_LO		0x00
#define MRPSIM_Q_BASE_HI		0x04
#define MRPSIM_Q_SIZE			0x08	/* entries */
#define MRPSIM_Q_HEAD			0x0c	/* RO, device index */
#define MRPSIM_Q_TAIL			0x10	/* RW, driver index */
#define MRPSIM_Q_CTRL			0x14
#define MRPSIM_Q_CTRL_EN		0x00000001	/* RW: enabled */
#define MRPSIM_Q_CTRL_HALTED		0x00000002	/* RO: stopped, error */

#define MRPSIM_PORT_CTRL		0x040
#define MRPSIM_PORT_CTRL_EN		0x00000001	/* port enabled */
#define MRPSIM_PORT_CTRL_STATE_SHIFT	1
#define MRPSIM_PORT_CTRL_STATE_MASK	0x0000000e	/* MRPSIM_PSTATE_* */
#define MRPSIM_PSTATE_FORWARDING	0	/* power-on value */
#define MRPSIM_PSTATE_BLOCKING		1	/* MRP, link-local pass */
#define MRPSIM_PSTATE_DISABLED		2	/* nothing passes */
#define MRPSIM_PSTATE_LISTENING		3	/* as blocking */
#define MRPSIM_PSTATE_LEARNING		4	/* as blocking, learns */
#define MRPSIM_PORT_CTRL_LEARN		0x00000010	/* learn sources */
#define MRPSIM_PORT_CTRL_FLOOD_UC	0x00000020	/* egress: unknown UC */
#define MRPSIM_PORT_CTRL_FLOOD_MC	0x00000040	/* egress: multicast */
#define MRPSIM_PORT_CTRL_FLOOD_BC	0x00000080	/* egress: broadcast */
#define MRPSIM_PORT_CTRL_FLOOD_ALL	0x000000e0
#define MRPSIM_PORT_STATUS		0x044	/* RO */
#define MRPSIM_PORT_STATUS_LINK		0x00000001
#define MRPSIM_PORT_MAC_LO		0x048	/* RW, port MAC bytes 0-3 */
#define MRPSIM_PORT_MAC_HI		0x04c	/* RW, port MAC bytes 4-5 */
#define MRPSIM_PORT_FWD_MASK		0x050	/* RW, bit q: may forward to q */
#define MRPSIM_PORT_FLOOD_LIMIT		0x054	/* RW, flooded frames/s, 0: any */
#define MRPSIM_FLOOD_LIMIT_DEFAULT	2000	/* power-on */
#define MRPSIM_FLOOD_LIMIT_MAX		1000000

/* Per-port 64-bit counters at MRPSIM_PORT_BASE(p) + MRPSIM_PORT_CNT(i),
 * in register order; MRPSIM_PORT_COUNTER_NAMES gives their ethtool names.
 */
#define MRPSIM_PORT_CNT_BASE		0x100
#define MRPSIM_PORT_CNT(i)		(MRPSIM_PORT_CNT_BASE + (i) * 8)

enum mrpsim_port_counter {
	MRPSIM_CNT_RX_FRAMES,
	MRPSIM_CNT_RX_BYTES,
	MRPSIM_CNT_TX_FRAMES,
	MRPSIM_CNT_TX_BYTES,
	MRPSIM_CNT_RX_DROP_NOBUF,
	MRPSIM_CNT_RX_DROP_BLOCKED,
	MRPSIM_CNT_RX_DROP_DISABLED,
	MRPSIM_CNT_RX_ERR,
	MRPSIM_CNT_TX_DROP_BLOCKED,
	MRPSIM_CNT_TX_DROP_LINK,
	MRPSIM_CNT_TX_ERR,
	MRPSIM_CNT_MRP_TEST_TX,
	MRPSIM_CNT_MRP_TEST_RX,
	MRPSIM_CNT_MRP_TEST_MISSED,
	MRPSIM_CNT_MRP_LOSS,
	MRPSIM_CNT_MRP_REGAIN,
	MRPSIM_CNT_MRP_TRAP,
	MRPSIM_CNT_MRP_FWD,
	MRPSIM_CNT_MRP_MALFORMED,
	MRPSIM_CNT_MRP_FWD_DROP,
	MRPSIM_CNT_MRP_TICK_LATE,
	MRPSIM_CNT_RX_CPU,		/* frames for this port's RX ring */
	MRPSIM_CNT_L2_FWD,		/* received, forwarded to one port */
	MRPSIM_CNT_L2_FLOOD,		/* received, flooded */
	MRPSIM_CNT_L2_DROP,		/* received, filtered by the FDB */
	MRPSIM_CNT_L2_LEARNED,		/* addresses learned or moved here */
	MRPSIM_CNT_L2_LEARN_FULL,	/* not learned: bucket full */
	MRPSIM_CNT_L2_QUEUE_DROP,	/* not forwarded: queue full */
	MRPSIM_CNT_MRP_TOPO_TX,		/* TopologyChange sent by the assist */
	MRPSIM_CNT_L2_FLUSHED,		/* learned entries the assist flushed */
	MRPSIM_CNT_L2_STORM_DROP,	/* not flooded: over FLOOD_LIMIT */
	MRPSIM_CNT_MRP_IN_TEST_TX,	/* MRP_InTest the engine sent */
	MRPSIM_CNT_MRP_IN_TEST_RX,	/* own MRP_InTest back (MIM) */
	MRPSIM_CNT_MRP_IN_LOSS,		/* interconnection lost (I-port) */
	MRPSIM_CNT_MRP_IN_REGAIN,	/* own MRP_InTest back after a loss */
	MRPSIM_PORT_NUM_COUNTERS
};

/* ethtool strings, indexed by enum mrpsim_port_counter */
#define MRPSIM_PORT_COUNTER_NAMES {					\
	[MRPSIM_CNT_RX_FRAMES]		= "hw_rx_frames",		\
	[MRPSIM_CNT_RX_BYTES]		= "hw_rx_bytes",		\
	[MRPSIM_CNT_TX_FRAMES]		= "hw_tx_frames",		\
	[MRPSIM_CNT_TX_BYTES]		= "hw_tx_bytes",		\
	[MRPSIM_CNT_RX_DROP_NOBUF]	= "hw_rx_drop_nobuf",		\
	[MRPSIM_CNT_RX_DROP_BLOCKED]	= "hw_rx_drop_blocked",		\
	[MRPSIM_CNT_RX_DROP_DISABLED]	= "hw_rx_drop_disabled",	\
	[MRPSIM_CNT_RX_ERR]		= "hw_rx_err",			\
	[MRPSIM_CNT_TX_DROP_BLOCKED]	= "hw_tx_drop_blocked",		\
	[MRPSIM_CNT_TX_DROP_LINK]	= "hw_tx_drop_link",		\
	[MRPSIM_CNT_TX_ERR]		= "hw_tx_err",			\
	[MRPSIM_CNT_MRP_TEST_TX]	= "hw_mrp_test_tx",		\
	[MRPSIM_CNT_MRP_TEST_RX]	= "hw_mrp_test_rx",		\
	[MRPSIM_CNT_MRP_TEST_MISSED]	= "hw_mrp_test_missed",		\
	[MRPSIM_CNT_MRP_LOSS]		= "hw_mrp_loss",		\
	[MRPSIM_CNT_MRP_REGAIN]		= "hw_mrp_regain",		\
	[MRPSIM_CNT_MRP_TRAP]		= "hw_mrp_trap",		\
	[MRPSIM_CNT_MRP_FWD]		= "hw_mrp_fwd",			\
	[MRPSIM_CNT_MRP_MALFORMED]	= "hw_mrp_malformed",		\
	[MRPSIM_CNT_MRP_FWD_DROP]	= "hw_mrp_fwd_drop",		\
	[MRPSIM_CNT_MRP_TICK_LATE]	= "hw_mrp_tick_late",		\
	[MRPSIM_CNT_RX_CPU]		= "hw_rx_cpu",			\
	[MRPSIM_CNT_L2_FWD]		= "hw_l2_fwd",			\
	[MRPSIM_CNT_L2_FLOOD]		= "hw_l2_flood",		\
	[MRPSIM_CNT_L2_DROP]		= "hw_l2_drop",			\
	[MRPSIM_CNT_L2_LEARNED]		= "hw_l2_learned",		\
	[MRPSIM_CNT_L2_LEARN_FULL]	= "hw_l2_learn_full",		\
	[MRPSIM_CNT_L2_QUEUE_DROP]	= "hw_l2_queue_drop",		\
	[MRPSIM_CNT_MRP_TOPO_TX]	= "hw_mrp_topo_tx",		\
	[MRPSIM_CNT_L2_FLUSHED]		= "hw_l2_flushed",		\
	[MRPSIM_CNT_L2_STORM_DROP]	= "hw_l2_storm_drop",		\
	[MRPSIM_CNT_MRP_IN_TEST_TX]	= "hw_mrp_in_test_tx",		\
	[MRPSIM_CNT_MRP_IN_TEST_RX]	= "hw_mrp_in_test_rx",		\
	[MRPSIM_CNT_MRP_IN_LOSS]	= "hw_mrp_in_loss",		\
	[MRPSIM_CNT_MRP_IN_REGAIN]	= "hw_mrp_in_regain",		\
}

/* ---- MRP engine, one block per ring instance ---- */
#define MRPSIM_MRP_BASE(r)		(0x4000 + (r) * 0x100)
#define MRPSIM_MRP_ROLE			0x00	/* RW, MRPSIM_ROLE_* */
#define MRPSIM_ROLE_DISABLED		0
#define MRPSIM_ROLE_MRC			1
#define MRPSIM_ROLE_MRM			2
#define MRPSIM_ROLE_MRA			3
#define MRPSIM_MRP_RING_ID		0x04	/* RW */
#define MRPSIM_MRP_PORTS		0x08	/* RW */
#define MRPSIM_MRP_PORTS_P_MASK		0x000000ff	/* primary port */
#define MRPSIM_MRP_PORTS_S_SHIFT	8
#define MRPSIM_MRP_PORTS_S_MASK		0x0000ff00	/* secondary port */
#define MRPSIM_MRP_PORT_NONE		0xff
#define MRPSIM_MRP_PRIO			0x0c	/* RW, 16 bits */
#define MRPSIM_MRP_RING_STATE		0x10	/* RW, MRPSIM_RSTATE_* */
#define MRPSIM_RSTATE_OPEN		0
#define MRPSIM_RSTATE_CLOSED		1
#define MRPSIM_MRP_TRANSITIONS		0x14	/* RW, 16 bits */
#define MRPSIM_MRP_SA_LO		0x18	/* RW, Test TLV SA bytes 0-3 */
#define MRPSIM_MRP_SA_HI		0x1c	/* RW, Test TLV SA bytes 4-5 */
#define MRPSIM_MRP_DOMAIN(i)		(0x20 + (i) * 4)	/* 4 words */
#define MRPSIM_MRP_TEST_INTERVAL	0x30	/* RW, us */
#define MRPSIM_MRP_TEST_MAX_MISS	0x34	/* RW */
#define MRPSIM_MRP_TEST_PERIOD		0x38	/* RW, us, 0: no end */
#define MRPSIM_MRP_TEST_CTRL		0x3c	/* RW */
#define MRPSIM_TEST_CTRL_RUN		0x00000001	/* generate/monitor */
#define MRPSIM_TEST_CTRL_MONITOR	0x00000002	/* MRA: check only */
#define MRPSIM_MRP_STATUS		0x40	/* RO */
#define MRPSIM_MRP_STATUS_RUNNING	0x00000001
#define MRPSIM_MRP_STATUS_P_LOST	0x00000002
#define MRPSIM_MRP_STATUS_S_LOST	0x00000004
#define MRPSIM_MRP_STATUS_GEN_MASK	0x0000ff00	/* test generation */
#define MRPSIM_MRP_STATUS_GEN_SHIFT	8
#define MRPSIM_MRP_SEQ_ID		0x44	/* RO, last sequence id */
#define MRPSIM_MRP_TOPO_INTERVAL	0x48	/* RW, us, TOPchgT; 0: now */
#define MRPSIM_MRP_TOPO_REPEAT		0x4c	/* RW, TOPNRmax */
#define MRPSIM_MRP_ASSIST		0x50	/* RW, MRPSIM_ASSIST_* */
#define MRPSIM_ASSIST_OPEN		0x00000001	/* manager: open on loss */
#define MRPSIM_ASSIST_FLUSH		0x00000002	/* client: flush on TC */
/* Interconnection (IEC 62439-2 Ed. 2, RC mode) of the ring instance */
#define MRPSIM_MRP_IN_ROLE		0x54	/* RW, MRPSIM_IN_ROLE_* */
#define MRPSIM_IN_ROLE_DISABLED		0
#define MRPSIM_IN_ROLE_MIC		1
#define MRPSIM_IN_ROLE_MIM		2
#define MRPSIM_MRP_IN_ID		0x58	/* RW, 16 bits */
#define MRPSIM_MRP_IN_PORT		0x5c	/* RW, I-port; PORT_NONE */
#define MRPSIM_MRP_IN_STATE		0x60	/* RW, MRPSIM_IN_STATE_* */
#define MRPSIM_IN_STATE_OPEN		0
#define MRPSIM_IN_STATE_CLOSED		1
#define MRPSIM_MRP_IN_TRANSITIONS	0x64	/* RW, 16 bits */
#define MRPSIM_MRP_IN_INTERVAL		0x68	/* RW, us */
#define MRPSIM_MRP_IN_MAX_MISS		0x6c	/* RW */
#define MRPSIM_MRP_IN_PERIOD		0x70	/* RW, us, 0: no end */
#define MRPSIM_MRP_IN_TEST_CTRL		0x74	/* RW */
#define MRPSIM_IN_TEST_CTRL_RUN		0x00000001	/* MIM: send, check */
#define MRPSIM_MRP_IN_STATUS		0x78	/* RO */
#define MRPSIM_IN_STATUS_RUNNING	0x00000001
#define MRPSIM_IN_STATUS_LOST		0x00000002
/* IN_STATUS [15:8]: the InTest's generation, as MRPSIM_MRP_STATUS_GEN */
#define MRPSIM_MRP_IN_CTRL		0x7c	/* RW */
#define MRPSIM_IN_CTRL_FWD		0x00000001	/* engine forwards InTest */

#define MRPSIM_TOPO_INTERVAL_MAX	1000000	/* us */
#define MRPSIM_TOPO_REPEAT_MAX		15

#define MRPSIM_TEST_INTERVAL_MIN	100	/* us */

/* ---- Descriptors (TX and RX rings), 16 bytes ---- */
struct mrpsim_desc {
	MRPSIM_LE64 addr;	/* buffer */
	MRPSIM_LE16 len;	/* TX: frame length; RX: buffer, then frame */
	MRPSIM_LE16 status;	/* written by the device, MRPSIM_DESC_* */
	MRPSIM_LE32 meta;	/* RX: MRPSIM_DESC_META_*; TX: 0 */
};

#define MRPSIM_DESC_SIZE		16
#define MRPSIM_DESC_DONE		0x0001	/* device is done with it */
#define MRPSIM_DESC_ERR			0x0002	/* TX not sent: bad length */
#define MRPSIM_DESC_FWD			0x0004	/* RX: hardware forwarded it */
#define MRPSIM_DESC_MRP			0x0008	/* RX: an MRP frame */
/* RX meta: ring instance that classified an MRP frame. */
#define MRPSIM_DESC_META_RING_MASK	0x000000ff	/* 0xff: none */

/* ---- Events, 16 bytes ---- */
struct mrpsim_event {
	MRPSIM_U8 type;		/* MRPSIM_EV_* */
	MRPSIM_U8 flags;	/* MRPSIM_EV_F_* */
	MRPSIM_U8 port;		/* port, or 0xff */
	MRPSIM_U8 ring;		/* MRP ring instance, or 0xff */
	MRPSIM_LE32 data;	/* type specific */
	MRPSIM_LE64 ts;		/* device clock (ns) when raised */
};

#define MRPSIM_EVENT_SIZE		16
#define MRPSIM_EV_F_VALID		0x01	/* set by device, cleared by driver */
#define MRPSIM_EV_NONE			0xff	/* port/ring not applicable */

enum mrpsim_event_type {
	MRPSIM_EV_LINK		= 1,	/* data: 1 link up, 0 link down */
	MRPSIM_EV_MRP_LOSS	= 2,	/* loss of continuity on port */
	MRPSIM_EV_MRP_REGAIN	= 3,	/* own test frames are back on port */
	MRPSIM_EV_ERROR		= 4,	/* data: MRPSIM_REG_ERR_INFO value */
	MRPSIM_EV_TEST_DONE	= 5,	/* test period ended for ring */
	MRPSIM_EV_FDB		= 6,	/* the hardware changed an entry */
	MRPSIM_EV_MRP_ASSIST	= 7,	/* the MRP engine acted on its own */
	MRPSIM_EV_IN_LOSS	= 8,	/* interconnection: InTest lost */
	MRPSIM_EV_IN_REGAIN	= 9,	/* own InTest back on port */
	MRPSIM_EV_IN_TEST_DONE	= 10,	/* InTest period ended */
};

/* MRP_LOSS, MRP_REGAIN, TEST_DONE: data [15:8] is the generation of the
 * test that raised the event (MRPSIM_MRP_STATUS_GEN when it was raised).
 * IN_LOSS, IN_REGAIN, IN_TEST_DONE: the same of the InTest (IN_STATUS);
 * data [7:0] is the port's role in the frame (0 primary, 1 secondary,
 * 2 interconnection).
 */
#define MRPSIM_EV_MRP_GEN_MASK		0x0000ff00
#define MRPSIM_EV_MRP_GEN_SHIFT		8

/* FDB: data [15:0] is the entry index, [19:16] why (MRPSIM_FDB_EV_*);
 * port is the entry's port (for AGED, the port it had).  The entry itself
 * is read with MRPSIM_FDB_CMD_READ: it may have changed again since.
 */
#define MRPSIM_EV_FDB_INDEX_MASK	0x0000ffff
#define MRPSIM_EV_FDB_WHY_SHIFT		16
#define MRPSIM_EV_FDB_WHY_MASK		0x000f0000
#define MRPSIM_FDB_EV_LEARNED		1	/* a new learned entry */
#define MRPSIM_FDB_EV_MOVED		2	/* learned on another port */
#define MRPSIM_FDB_EV_AGED		3	/* removed by ageing */

/* MRP_ASSIST: data bits, with [15:8] the test generation (managers). */
#define MRPSIM_EV_ASSIST_OPENED		0x00000001	/* ring opened */
#define MRPSIM_EV_ASSIST_FLUSHED	0x00000002	/* ring ports flushed */

#endif /* MRPSIM_HW_H */
