/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrpsim: switchdev driver for the mrpsim MRP offload switch.
 *
 * The device is a PCI Ethernet switch whose ports each have a TX and an RX
 * descriptor ring, an event queue shared by all ports, an FDB with L2
 * forwarding and an engine that runs the Media Redundancy Protocol (IEC
 * 62439-2) test frames.  On a device with L2 forwarding (CAP.L2), when the
 * devlink parameter l2_offload is set (off by default for now), the ports
 * of one switch in one bridge forward to each other in hardware: known
 * unicast stays in the switch, floods also reach the CPU marked as
 * forwarded, and the bridge forwards only to ports outside the switch
 * (mrpsim_fdb.c).  Without it, every frame reaches the CPU and the
 * bridge forwards it.  Of the MRP frames, the device forwards only
 * MRP_Test between the ring ports of a client, and never hands those to
 * the CPU; every other MRP frame (TopologyChange, LinkDown/LinkUp,
 * Option) goes to the CPU only, never into L2 forwarding, and the bridge
 * forwards it, so that each crosses every cable of the ring once (see
 * mrpsim_mrp.c).  The programming model lives in mrpsim_hw.h and
 * docs/specs/mrpsim.rst.
 */
#ifndef _MRPSIM_H
#define _MRPSIM_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/if_bridge.h>
#include <linux/io.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/devlink.h>
#include <net/switchdev.h>

#include "mrpsim_hw.h"

#define MRPSIM_TX_RING_SIZE	256
#define MRPSIM_RX_RING_SIZE	256
#define MRPSIM_EVQ_SIZE		256
/* Every RX buffer holds the largest frame a port can receive. */
#define MRPSIM_RX_BUF_LEN	MRPSIM_MAX_FRAME_LEN
/* Wake a stopped TX queue once this many descriptors are free again. */
#define MRPSIM_TX_WAKE_THRESH	(MRPSIM_TX_RING_SIZE / 4)
/* A port is in at most one ring, so this bounds the rings of a switch. */
#define MRPSIM_MAX_MRP		MRPSIM_MAX_PORTS
#define MRPSIM_NUM_ERR		(MRPSIM_ERR_REG + 1)

/* The devlink parameters' values at probe (mrpsim_devlink.c), on a device
 * that has what they turn on: rings in the MRP engine, L2 forwarding.
 */
#define MRPSIM_MRP_OFFLOAD_DEFAULT	true
#define MRPSIM_L2_OFFLOAD_DEFAULT	true

#define MRPSIM_VER_MAJOR(v)	((v) >> MRPSIM_VERSION_MAJOR_SHIFT)
#define MRPSIM_VER_MINOR(v)	((v) & MRPSIM_VERSION_MINOR_MASK)

/**
 * struct mrpsim_buf - a buffer attached to a descriptor
 * @skb: the frame (TX) or the receive buffer (RX)
 * @dma: DMA address of @skb->data
 * @len: mapped length
 */
struct mrpsim_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	unsigned int len;
};

/**
 * struct mrpsim_queue - a TX or RX descriptor ring
 * @desc: descriptors, DMA-coherent
 * @desc_dma: DMA address of @desc
 * @buf: per-descriptor buffers
 * @regs: queue register block (MRPSIM_Q_*)
 * @size: number of descriptors, a power of two
 * @head: free-running index of the next descriptor the driver reclaims
 * @tail: free-running index of the next descriptor the driver posts
 * @doorbell: @tail as last written to the TAIL register (TX)
 *
 * The device owns the descriptors from @head to @tail (excluded); the
 * register TAIL is @tail modulo @size.  At most @size - 1 are posted.
 * TX descriptors from @doorbell to @tail are posted but not yet signalled:
 * the stack announced more frames (xmit_more).
 */
struct mrpsim_queue {
	struct mrpsim_desc *desc;
	dma_addr_t desc_dma;
	struct mrpsim_buf *buf;
	void __iomem *regs;
	unsigned int size;
	unsigned int head;
	unsigned int tail;
	unsigned int doorbell;
};

/* Driver counters of a port updated by its NAPI poll routine only. */
struct mrpsim_napi_stats {
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_dropped;		/* no memory for a replacement buffer */
	u64 rx_errors;		/* descriptors the device got wrong */
	u64 rx_fwd_offload;	/* frames the device also forwarded */
	u64 rx_mrp;		/* MRP frames that reached the CPU */
	u64 rx_mrp_test;	/* MRP_Test frames that reached the CPU */
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_errors;		/* frames the device refused */
	struct u64_stats_sync syncp;
};

/* Driver counters of a port updated by ndo_start_xmit only. */
struct mrpsim_xmit_stats {
	u64 tx_dropped;
	u64 tx_ring_full;	/* queue stopped: no descriptor left */
	struct u64_stats_sync syncp;
};

/* Driver counters of a port for rare events. */
struct mrpsim_ev_stats {
	atomic64_t link_events;
	atomic64_t mrp_loss_events;
	atomic64_t mrp_regain_events;
	atomic64_t dev_errors;		/* device errors on this port */
	atomic64_t ring_restarts;
};

/* A snapshot of all driver counters of a port. */
struct mrpsim_drv_stats {
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_dropped;
	u64 rx_errors;
	u64 rx_fwd_offload;
	u64 rx_mrp;
	u64 rx_mrp_test;
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_errors;
	u64 tx_dropped;
	u64 tx_ring_full;
	u64 link_events;
	u64 mrp_loss_events;
	u64 mrp_regain_events;
	u64 dev_errors;
	u64 ring_restarts;
	u64 tx_pending;		/* posted, not completed yet (a gauge) */
	u64 tx_unsignalled;	/* posted, doorbell not rung (a gauge) */
};

struct mrpsim;

/* Bridge port flags the device offloads (PORT_CTRL LEARN and FLOOD_*). */
#define MRPSIM_BRPORT_FLAGS	(BR_LEARNING | BR_FLOOD | BR_MCAST_FLOOD | \
				 BR_BCAST_FLOOD)

/* Bits of mrpsim_port::mrp_state */
#define MRPSIM_PORT_MRP_LOST	0
#define MRPSIM_PORT_CARRIER_DEFERRED	1

/**
 * struct mrpsim_port - one switch port and its netdev
 * @sw: the switch
 * @netdev: the port's net_device
 * @regs: port register block
 * @index: port number on the switch
 * @irq: Linux IRQ of the port's MSI-X vector
 * @napi: RX and TX completion processing
 * @irq_jiffies: when the vector last fired, for the TX watchdog's report
 * @poll_jiffies: when @napi last polled, for the TX watchdog's report
 * @irq_cpu: the CPU the vector last fired on, which runs the poll
 * @txq: TX ring
 * @rxq: RX ring
 * @nstats: counters updated by NAPI
 * @xstats: counters updated by ndo_start_xmit
 * @estats: counters updated by event processing
 * @bridge: bridge the port is offloaded to, or NULL (RTNL to change it)
 * @stp_state: bridge port state (BR_STATE_*) (RTNL)
 * @brport_flags: the bridge port's MRPSIM_BRPORT_FLAGS (RTNL)
 * @ageing_ms: ageing time of the port's bridge, in ms, 0: never (RTNL)
 * @hw_up: the rings run and NAPI is enabled (RTNL)
 * @mrp: MRP ring the port belongs to, or NULL (RTNL and sw->mrp_lock)
 * @mrp_state: MRPSIM_PORT_MRP_LOST: the engine's last loss/regain event;
 *	MRPSIM_PORT_CARRIER_DEFERRED: a link-up waits for mrpsim_mrp_work()
 * @mrp_changes: loss/regain events not yet reported to the bridge
 * @mrp_hw: engine instance of the last loss/regain event
 * @mrp_gen: generation of the test whose event MRPSIM_PORT_MRP_LOST holds
 * @mrp_reported: loss of continuity last reported to the bridge
 *	(sw->mrp_lock)
 * @restart_work: restarts the rings after the device halted one
 * @dl_port: the port's devlink port
 * @irq_name: name of @irq
 */
struct mrpsim_port {
	struct mrpsim *sw;
	struct net_device *netdev;
	void __iomem *regs;
	unsigned int index;
	unsigned int irq;
	struct napi_struct napi;
	unsigned long irq_jiffies;
	unsigned long poll_jiffies;
	int irq_cpu;
	struct mrpsim_queue txq;
	struct mrpsim_queue rxq;
	struct mrpsim_napi_stats nstats;
	struct mrpsim_xmit_stats xstats;
	struct mrpsim_ev_stats estats;
	struct net_device *bridge;
	u8 stp_state;
	unsigned long brport_flags;
	unsigned int ageing_ms;
	bool hw_up;
	struct mrpsim_mrp *mrp;
	unsigned long mrp_state;
	atomic_t mrp_changes;
	u8 mrp_hw;
	u8 mrp_gen;
	bool mrp_reported;
	struct work_struct restart_work;
	struct devlink_port dl_port;
	char irq_name[32];
};

/**
 * struct mrpsim_mrp - an MRP ring instance of a bridge (RTNL and
 *	sw->mrp_lock to change it, either to read it)
 * @br: bridge owning the ring, NULL when the entry is free
 * @p_dev: primary ring port
 * @s_dev: secondary ring port
 * @ring_id: the bridge's ring id
 * @prio: MRM/MRA priority
 * @hw: engine instance, or -1 when the ring runs in software
 * @role: ring role requested by the bridge (BR_MRP_RING_ROLE_*)
 * @role_hw: the engine runs @role
 * @in_role: interconnection role of the ring (BR_MRP_IN_ROLE_*)
 * @in_hw: the engine runs @in_role (else the bridge does)
 * @in_test_hw: the engine generates and checks MRP_InTest frames (MIM)
 * @in_reported: loss of the interconnection last reported to the bridge
 * @in_gen: generation of the engine's current (or last) InTest, as @gen
 * @in_id: the interconnection's ID
 * @i_dev: the interconnection port, while @in_hw
 * @test_hw: the engine generates or monitors MRP_Test frames
 * @sw_closed: the software last wrote RING_STATE closed; a RING_STATE
 *	that reads open since is the recovery assist's doing
 * @gen: generation of the engine's current (or last) test; events of
 *	another generation are stale (read without RTNL by the event thread)
 *
 * A ring is added to the switch that owns at least one of its ports.
 * With the MRP engine in use both ports are on this switch and @hw names
 * the engine instance; otherwise the bridge runs the protocol and the
 * switch only traps MRP frames to the CPU.
 */
struct mrpsim_mrp {
	struct net_device *br;
	struct net_device *p_dev;
	struct net_device *s_dev;
	u32 ring_id;
	u16 prio;
	int hw;
	u8 role;
	bool role_hw;
	u8 in_role;
	bool in_hw;
	bool in_test_hw;
	bool in_reported;
	u8 in_gen;
	u16 in_id;
	struct net_device *i_dev;
	bool test_hw;
	bool sw_closed;
	u8 gen;
};

/**
 * struct mrpsim_fdb_shadow - a learned FDB entry as the bridge was told
 * @mac: the address
 * @port: the port it was reported on
 * @valid: the bridge has it as an entry the switch learned
 */
struct mrpsim_fdb_shadow {
	u8 mac[ETH_ALEN];
	u8 port;
	bool valid;
};

/**
 * struct mrpsim_fdb_note - a change of the switch's FDB for the bridge
 * @port: the port of the entry
 * @bridge: the port's bridge when the entry was read
 * @mac: its address
 * @event: SWITCHDEV_FDB_ADD_TO_BRIDGE or SWITCHDEV_FDB_DEL_TO_BRIDGE
 */
struct mrpsim_fdb_note {
	struct mrpsim_port *port;
	struct net_device *bridge;
	u8 mac[ETH_ALEN];
	unsigned long event;
};

/* Slots the FDB work reads at a time, and what they can tell the bridge:
 * a learned entry gone and another in its place.
 */
#define MRPSIM_FDB_BATCH	64
#define MRPSIM_FDB_NOTES	(2 * MRPSIM_FDB_BATCH)

/**
 * struct mrpsim_fdb - the switch's FDB as the driver keeps track of it
 * @lock: serialises FDB command sequences, @shadow and @entries (taken
 *	after RTNL)
 * @size: slots in the device's FDB
 * @ageing: FDB_AGEING as last written, in ms, 0: never (RTNL)
 * @shadow: per slot, the learned entry last reported to the bridge
 * @entries: entries the bridge gave the switch (struct mrpsim_fdb_entry)
 * @pending: slots with an FDB event not read yet
 * @rescan: events were lost: read every slot
 * @flushed: ports whose learned entries the device flushed on its own
 * @work: reads the slots of @pending and tells the bridge
 * @notes: what @work tells the bridge of a batch of slots
 * @num_notes: entries of @notes in use
 * @add_full: entries the bridge gave that found no free slot
 * @rescans: times every slot was read after events were lost
 * @stale_events: FDB events that came after forwarding stopped, dropped
 */
struct mrpsim_fdb {
	struct mutex lock; /* FDB registers, shadow, entries */
	unsigned int size;
	u32 ageing;
	struct mrpsim_fdb_shadow *shadow;
	struct list_head entries;
	DECLARE_BITMAP(pending, MRPSIM_FDB_ENTRIES);
	atomic_t rescan;
	atomic_long_t flushed;
	struct work_struct work;
	struct mrpsim_fdb_note *notes;
	unsigned int num_notes;
	atomic64_t add_full;
	atomic64_t rescans;
	atomic64_t stale_events;
};

/**
 * struct mrpsim - one switch (PCI function), the private data of its
 *	devlink instance
 * @pdev: PCI device
 * @regs: BAR0 registers
 * @base_mac: switch base MAC, also the switch id
 * @version: VERSION register
 * @num_ports: number of ports
 * @num_rings: number of engine instances
 * @mrp_engine: the MRP engine is present and in use: devlink parameter
 *	mrp_offload (RTNL to change it)
 * @mra: the engine supports the MRA role (test monitor)
 * @l2_cap: the device has a usable FDB and L2 forwarding
 * @l2: they are in use: devlink parameter l2_offload (RTNL to change it)
 * @has_assist: the engine has the recovery assist (CAP.ASSIST)
 * @has_in: the engine runs interconnections (CAP.IN)
 * @assist: rings in the engine use the recovery assist: devlink
 *	parameter mrp_assist (sw->mrp_lock)
 * @ports: ports, @num_ports of them
 * @evq: event queue, DMA-coherent
 * @evq_dma: DMA address of @evq
 * @evq_tail: free-running index of the next event to consume
 * @ev_irq: Linux IRQ of the event vector
 * @cnt_lock: serialises the latched 64-bit counter reads
 * @mrp: ring instances (RTNL)
 * @mrp_test_done: engine instances whose test period ended
 * @mrp_work: reports engine events to the bridge
 * @assist_opened: engine instances whose recovery assist opened the ring
 * @assist_hold: engine instances whose recovery assist opened the ring and
 *	whose software has not written the ring's state since: their regain
 *	waits (mrpsim_mrp_port_take())
 * @assist_check: engine instances whose MRP_ASSIST event may have been
 *	lost: the MRP work compares RING_STATE with what software wrote
 * @assist_work: takes what the recovery assist did into the driver's state
 * @in_lost: engine instances whose interconnection is lost, as the last
 *	IN_LOSS/IN_REGAIN event (or a resync) said
 * @in_test_done: engine instances whose InTest period ended
 * @in_changes: per engine instance, interconnection events not reported
 * @in_regain_port: per engine instance, the port of the last IN_REGAIN
 * @in_ev_gen: per engine instance, the InTest generation of the last event
 * @errors: device errors by code
 * @bad_events: malformed events from the device
 * @evq_restarts: event queue restarts after it halted on a DMA error
 * @mrp_stale_events: MRP events of a test stopped since, dropped
 * @assist_opens: rings the recovery assist opened (MRP_ASSIST OPENED)
 * @assist_flushes: ring port flushes of the recovery assist
 * @fdb: FDB state (mrpsim_fdb.c)
 * @fail_in_role: refuse interconnection roles (debugfs, fault injection)
 * @debugfs: the switch's debugfs directory (fault injection, FDB)
 */
struct mrpsim {
	struct pci_dev *pdev;
	void __iomem *regs;
	u8 base_mac[ETH_ALEN];
	u32 version;
	unsigned int num_ports;
	unsigned int num_rings;
	bool mrp_engine;
	bool mra;
	bool l2_cap;
	bool l2;
	bool has_assist;
	bool has_in;
	bool assist;
	struct mrpsim_port *ports[MRPSIM_MAX_PORTS];
	struct mrpsim_event *evq;
	dma_addr_t evq_dma;
	unsigned int evq_tail;
	unsigned int ev_irq;
	spinlock_t cnt_lock; /* latched counter reads */
	struct mutex mrp_lock; /* ring table, for mrpsim_mrp_work() */
	struct mrpsim_mrp mrp[MRPSIM_MAX_MRP];
	unsigned long mrp_test_done;
	struct work_struct mrp_work;
	unsigned long assist_opened;
	unsigned long assist_hold;
	unsigned long assist_check;
	struct work_struct assist_work;
	unsigned long in_lost;
	unsigned long in_test_done;
	atomic_t in_changes[MRPSIM_MAX_RINGS];
	u8 in_regain_port[MRPSIM_MAX_RINGS];
	u8 in_ev_gen[MRPSIM_MAX_RINGS];
	atomic64_t errors[MRPSIM_NUM_ERR];
	atomic64_t bad_events;
	atomic64_t evq_restarts;
	atomic64_t mrp_stale_events;
	atomic64_t assist_opens;
	atomic64_t assist_flushes;
	struct mrpsim_fdb fdb;
	bool fail_in_role;
	struct dentry *debugfs;
};

static inline u32 mrpsim_read(struct mrpsim *sw, u32 reg)
{
	return readl(sw->regs + reg);
}

static inline void mrpsim_write(struct mrpsim *sw, u32 reg, u32 val)
{
	writel(val, sw->regs + reg);
}

static inline u32 mrpsim_port_read(struct mrpsim_port *port, u32 reg)
{
	return readl(port->regs + reg);
}

static inline void mrpsim_port_write(struct mrpsim_port *port, u32 reg,
				     u32 val)
{
	writel(val, port->regs + reg);
}

static inline u32 mrpsim_mrp_read(struct mrpsim *sw, int hw, u32 reg)
{
	return readl(sw->regs + MRPSIM_MRP_BASE(hw) + reg);
}

static inline void mrpsim_mrp_write(struct mrpsim *sw, int hw, u32 reg,
				    u32 val)
{
	writel(val, sw->regs + MRPSIM_MRP_BASE(hw) + reg);
}

/* A MAC address in a LO/HI register pair: byte 0 in bits 7:0 of LO,
 * bytes 4 and 5 in bits 15:0 of HI.
 */
static inline void mrpsim_mac_from_regs(u8 *mac, u32 lo, u32 hi)
{
	__le32 lo_le = cpu_to_le32(lo);
	__le16 hi_le = cpu_to_le16(hi);

	memcpy(mac, &lo_le, sizeof(lo_le));
	memcpy(mac + sizeof(lo_le), &hi_le, sizeof(hi_le));
}

static inline void mrpsim_mac_to_regs(const u8 *mac, u32 *lo, u32 *hi)
{
	__le32 lo_le;
	__le16 hi_le;

	memcpy(&lo_le, mac, sizeof(lo_le));
	memcpy(&hi_le, mac + sizeof(lo_le), sizeof(hi_le));
	*lo = le32_to_cpu(lo_le);
	*hi = le16_to_cpu(hi_le);
}

/* Vectors auto-mask when they fire; unmask once their work is drained. */
static inline void mrpsim_irq_unmask(struct mrpsim *sw, unsigned int vec)
{
	mrpsim_write(sw, MRPSIM_REG_IRQ_MASK_CLR, BIT(vec));
}

static inline void mrpsim_irq_mask(struct mrpsim *sw, unsigned int vec)
{
	mrpsim_write(sw, MRPSIM_REG_IRQ_MASK_SET, BIT(vec));
}

/* mrpsim_port.c */
extern const struct net_device_ops mrpsim_netdev_ops;
int mrpsim_port_create(struct mrpsim *sw, unsigned int index);
void mrpsim_port_free(struct mrpsim_port *port);
void mrpsim_port_link_event(struct mrpsim_port *port, bool up);
void mrpsim_port_set_link(struct mrpsim_port *port, bool up);
void mrpsim_port_update_carrier(struct mrpsim_port *port);
void mrpsim_port_ring_error(struct mrpsim_port *port);
void mrpsim_port_apply_state(struct mrpsim_port *port);
void mrpsim_port_get_drv_stats(struct mrpsim_port *port,
			       struct mrpsim_drv_stats *s);
void mrpsim_port_get_tx_gauges(struct mrpsim_port *port,
			       struct mrpsim_drv_stats *s);

/* mrpsim_devlink.c */
struct mrpsim *mrpsim_devlink_alloc(struct device *dev);
int mrpsim_devlink_params_register(struct mrpsim *sw);
void mrpsim_devlink_params_unregister(struct mrpsim *sw);
void mrpsim_devlink_register(struct mrpsim *sw);
void mrpsim_devlink_unregister(struct mrpsim *sw);
int mrpsim_devlink_port_register(struct mrpsim_port *port);
void mrpsim_devlink_port_netdev_registered(struct mrpsim_port *port);
void mrpsim_devlink_port_netdev_unregistering(struct mrpsim_port *port);
void mrpsim_devlink_port_unregister(struct mrpsim_port *port);
#ifdef MRPSIM_NDO_DEVLINK_PORT
struct devlink_port *mrpsim_get_devlink_port(struct net_device *netdev);
#endif

/* mrpsim_ethtool.c */
extern const struct ethtool_ops mrpsim_ethtool_ops;

/* mrpsim_switchdev.c */
bool mrpsim_netdev_check(const struct net_device *dev);
int mrpsim_switchdev_register(void);
void mrpsim_switchdev_unregister(void);

/* mrpsim_fdb.c */
int mrpsim_fdb_module_init(void);
void mrpsim_fdb_module_exit(void);
int mrpsim_fdb_init(struct mrpsim *sw);
void mrpsim_fdb_debugfs_init(struct mrpsim *sw);
bool mrpsim_fdb_event(struct mrpsim *sw, const struct mrpsim_event *ev);
void mrpsim_fdb_resync(struct mrpsim *sw);
void mrpsim_fdb_ports_flushed(struct mrpsim *sw, unsigned long ports);
void mrpsim_l2_mrp_changed(struct mrpsim *sw);
int mrpsim_fdb_to_device(struct net_device *dev, struct net_device *orig_dev,
			 unsigned long event, const void *ctx,
			 const struct switchdev_notifier_fdb_info *info);
bool mrpsim_foreign_dev_check(const struct net_device *dev,
			      const struct net_device *foreign_dev);
u32 mrpsim_l2_port_ctrl(const struct mrpsim_port *port);
void mrpsim_l2_enable(struct mrpsim *sw, bool on);
void mrpsim_l2_port_join(struct mrpsim_port *port);
void mrpsim_l2_port_leave(struct mrpsim_port *port);
void mrpsim_l2_stp_state_changed(struct mrpsim_port *port, u8 old);
int mrpsim_l2_set_ageing(struct mrpsim_port *port, clock_t ageing,
			 struct netlink_ext_ack *extack);

/* mrpsim_mrp.c */
int mrpsim_mrp_obj_add(struct mrpsim_port *port,
		       const struct switchdev_obj *obj,
		       struct netlink_ext_ack *extack);
int mrpsim_mrp_obj_del(struct mrpsim_port *port,
		       const struct switchdev_obj *obj);
int mrpsim_mrp_port_role_set(struct mrpsim_port *port, u8 role);
void mrpsim_mrp_port_leave(struct mrpsim_port *port);
void mrpsim_mrp_bridge_addr_changed(struct mrpsim *sw,
				    const struct net_device *br);
void mrpsim_mrp_event(struct mrpsim *sw, const struct mrpsim_event *ev);
void mrpsim_mrp_in_event(struct mrpsim *sw, const struct mrpsim_event *ev);
void mrpsim_mrp_init(struct mrpsim *sw);
void mrpsim_mrp_work(struct work_struct *work);
bool mrpsim_mrp_reports_pending(struct mrpsim *sw);
void mrpsim_mrp_resync(struct mrpsim *sw);
void mrpsim_mrp_assist_event(struct mrpsim *sw, const struct mrpsim_event *ev);
void mrpsim_mrp_assist_work(struct work_struct *work);
void mrpsim_mrp_set_assist(struct mrpsim *sw, bool on);

static inline struct mrpsim_port *
mrpsim_port_from_netdev(const struct net_device *dev)
{
	return mrpsim_netdev_check(dev) ? netdev_priv(dev) : NULL;
}

#endif /* _MRPSIM_H */
