// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: FDB and L2 forwarding offload.
 *
 * A device with CAP.L2 has one FDB for the whole switch (no VLANs) and
 * forwards between the ports of a port's PORT_FWD_MASK.  The driver puts
 * in each bridged port's mask the other ports of the switch offloaded
 * to the same bridge, and 0 in a standalone port's: two bridges on one
 * switch never forward to each other, and a standalone port hands every
 * frame to the CPU.  So does every port of a bridge with an MRP ring on
 * the switch whose role the engine does not run: the bridge forwards
 * the ring's test frames in software, and forwards its data there too,
 * so that a test frame held up in the CPU never leaves the ring open
 * over a loop that the switch would circulate at line rate.  Known
 * unicast then stays in the switch; what the switch floods also reaches
 * the CPU marked as forwarded (offload_fwd_mark, mrpsim_port.c), so
 * that the bridge forwards it only to ports outside the switch (veth,
 * another switch).  MRP and link-local frames, and frames to the
 * bridge's own addresses (CPU entries), reach the CPU only.  STP states
 * map 1:1 to the ports' states (a port that stops learning and
 * forwarding forgets what it learned), the bridge port flags to their
 * LEARN and FLOOD_* bits, the bridge's ageing time to FDB_AGEING (the
 * shortest of the switch's bridges: there is one).  Multicast is
 * flooded: the switch has no MDB.
 *
 * FDB, bridge to switch: the bridge's notifier runs in atomic context, so
 * each notification becomes a work item on an ordered workqueue, which
 * takes RTNL and the FDB lock.  Entries a user added on a port become
 * static entries, the bridge's own addresses and the addresses behind
 * foreign ports of the bridge CPU entries; entries the bridge learned on
 * a port are left to the switch, which learns them itself, and deleting
 * one (a flush, IFLA_BRPORT_FLUSH on an MRP topology change) deletes it
 * from the switch.  An entry of the bridge device or of a foreign port
 * comes once through every port of the switch in the bridge: the driver
 * counts those ports, and deletes the entry once none holds it.
 *
 * FDB, switch to bridge: the device raises an event when it learns, moves
 * or ages out an entry, with the slot but not the address, which may have
 * changed again since.  The driver reads the slots the events name, from
 * a work on the same ordered workqueue, and compares them with what it
 * told the bridge (the shadow): new or moved entries are added to the
 * bridge as externally learned and offloaded, entries gone are deleted.
 * When events were lost it reads every slot.
 */

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/if_bridge.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/switchdev.h>

#include "mrpsim.h"

#define MRPSIM_FDB_PORT_CPU	MRPSIM_FDB_ENTRY_PORT_MASK

/* How an entry of the bridge's FDB goes to the switch. */
enum mrpsim_fdb_kind {
	MRPSIM_FDB_STATIC,	/* added on a port by a user: static entry */
	MRPSIM_FDB_HOST,	/* the bridge's, or behind a foreign port: CPU */
	MRPSIM_FDB_DYNAMIC,	/* learned on a port by the bridge */
};

/**
 * struct mrpsim_fdb_entry - an entry the bridge gave the switch
 * @list: in mrpsim_fdb::entries
 * @mac: the address
 * @port: its port, or MRPSIM_FDB_PORT_CPU
 * @refs: the ports the bridge gave it through, a bit each
 * @in_hw: the device holds it
 */
struct mrpsim_fdb_entry {
	struct list_head list;
	u8 mac[ETH_ALEN];
	u8 port;
	unsigned long refs;
	bool in_hw;
};

/**
 * struct mrpsim_fdb_work - an FDB notification of the bridge, deferred
 * @work: on mrpsim_fdb_wq
 * @port: the port it came through; holds a reference on its netdev
 * @add: SWITCHDEV_FDB_ADD_TO_DEVICE, else SWITCHDEV_FDB_DEL_TO_DEVICE
 * @kind: how the entry goes to the switch
 * @mac: the address
 */
struct mrpsim_fdb_work {
	struct work_struct work;
	struct mrpsim_port *port;
	bool add;
	enum mrpsim_fdb_kind kind;
	u8 mac[ETH_ALEN];
};

/* Both directions, in the order they happened. */
static struct workqueue_struct *mrpsim_fdb_wq;

static void mrpsim_fdb_write_mac(struct mrpsim *sw, const u8 *mac)
{
	u32 lo, hi;

	mrpsim_mac_to_regs(mac, &lo, &hi);
	mrpsim_write(sw, MRPSIM_REG_FDB_MAC_LO, lo);
	mrpsim_write(sw, MRPSIM_REG_FDB_MAC_HI, hi);
}

/* A command completes within its write; reading CMD gives its status. */
static u32 mrpsim_fdb_cmd(struct mrpsim *sw, enum mrpsim_fdb_cmd cmd)
{
	lockdep_assert_held(&sw->fdb.lock);
	mrpsim_write(sw, MRPSIM_REG_FDB_CMD, cmd);
	return mrpsim_read(sw, MRPSIM_REG_FDB_CMD);
}

static u32 mrpsim_fdb_hw_add(struct mrpsim *sw, const u8 *mac, u8 port)
{
	u32 entry = FIELD_PREP(MRPSIM_FDB_ENTRY_PORT_MASK, port) |
		    MRPSIM_FDB_ENTRY_STATIC;

	if (port == MRPSIM_FDB_PORT_CPU)
		entry |= MRPSIM_FDB_ENTRY_CPU;
	mrpsim_fdb_write_mac(sw, mac);
	mrpsim_write(sw, MRPSIM_REG_FDB_ENTRY, entry);

	return mrpsim_fdb_cmd(sw, MRPSIM_FDB_CMD_ADD);
}

static void mrpsim_fdb_hw_del(struct mrpsim *sw, const u8 *mac)
{
	mrpsim_fdb_write_mac(sw, mac);
	mrpsim_fdb_cmd(sw, MRPSIM_FDB_CMD_DEL);
}

/* Read slot @index into @mac and @entry; false if the slot is free. */
static bool mrpsim_fdb_hw_read(struct mrpsim *sw, unsigned int index,
			       u8 *mac, u32 *entry)
{
	mrpsim_write(sw, MRPSIM_REG_FDB_INDEX, index);
	if (mrpsim_fdb_cmd(sw, MRPSIM_FDB_CMD_READ) != MRPSIM_FDB_OK)
		return false;
	*entry = mrpsim_read(sw, MRPSIM_REG_FDB_ENTRY);
	if (!(*entry & MRPSIM_FDB_ENTRY_VALID))
		return false;
	mrpsim_mac_from_regs(mac, mrpsim_read(sw, MRPSIM_REG_FDB_MAC_LO),
			     mrpsim_read(sw, MRPSIM_REG_FDB_MAC_HI));

	return true;
}

static void mrpsim_fdb_tell_bridge(struct mrpsim_port *port, const u8 *mac,
				   unsigned long event)
{
	struct switchdev_notifier_fdb_info info = {
		.addr = mac,
		.offloaded = true,
	};

	ASSERT_RTNL();
	call_switchdev_notifiers(event, port->netdev, &info.info, NULL);
}

/* The slot other than @skip whose learned entry the bridge has as @mac. */
static int mrpsim_fdb_shadow_find(struct mrpsim *sw, const u8 *mac, int skip)
{
	unsigned int i;

	for (i = 0; i < sw->fdb.size; i++)
		if (i != skip && sw->fdb.shadow[i].valid &&
		    ether_addr_equal(sw->fdb.shadow[i].mac, mac))
			return i;

	return -1;
}

static struct mrpsim_fdb_entry *mrpsim_fdb_entry_find(struct mrpsim *sw,
						      const u8 *mac)
{
	struct mrpsim_fdb_entry *e;

	list_for_each_entry(e, &sw->fdb.entries, list)
		if (ether_addr_equal(e->mac, mac))
			return e;

	return NULL;
}

/* Queue for the bridge: @event of @mac on @port. */
static void mrpsim_fdb_note(struct mrpsim *sw, struct mrpsim_port *port,
			    const u8 *mac, unsigned long event)
{
	struct mrpsim_fdb_note *note = &sw->fdb.notes[sw->fdb.num_notes++];

	note->port = port;
	note->bridge = READ_ONCE(port->bridge);
	ether_addr_copy(note->mac, mac);
	note->event = event;
}

/* What slot @index holds now, if it changed, noted for the bridge. */
static void mrpsim_fdb_sync_slot(struct mrpsim *sw, unsigned int index)
{
	struct mrpsim_fdb_shadow *sh = &sw->fdb.shadow[index];
	struct mrpsim_port *port = NULL, *old;
	u8 mac[ETH_ALEN];
	bool same;
	u32 entry;
	int other;

	if (mrpsim_fdb_hw_read(sw, index, mac, &entry) &&
	    !(entry & MRPSIM_FDB_ENTRY_STATIC)) {
		unsigned int p = FIELD_GET(MRPSIM_FDB_ENTRY_PORT_MASK, entry);

		/* A learned entry of an address the bridge gave the switch
		 * (a static entry the device found no room for) is the
		 * bridge's already.
		 */
		if (p < sw->num_ports && READ_ONCE(sw->ports[p]->bridge) &&
		    !mrpsim_fdb_entry_find(sw, mac))
			port = sw->ports[p];
	}
	old = sh->valid ? sw->ports[sh->port] : NULL;
	same = port && old && ether_addr_equal(sh->mac, mac);
	if (same && old == port)
		return;

	/* The address left the slot (aged out, deleted and the slot taken
	 * again, moved to another bridge): the bridge deletes it, unless
	 * the switch learned it again in another slot or the bridge gave it
	 * to the switch since.  An address that moved within its bridge is
	 * only added on its new port.
	 */
	if (old && !(same && READ_ONCE(old->bridge) == READ_ONCE(port->bridge))) {
		sh->valid = false;
		if (mrpsim_fdb_shadow_find(sw, sh->mac, index) < 0 &&
		    !mrpsim_fdb_entry_find(sw, sh->mac))
			mrpsim_fdb_note(sw, old, sh->mac,
					SWITCHDEV_FDB_DEL_TO_BRIDGE);
	}
	if (!port)
		return;

	/* Learned or moved: a slot that still has it is older news. */
	other = mrpsim_fdb_shadow_find(sw, mac, index);
	if (other >= 0)
		sw->fdb.shadow[other].valid = false;
	ether_addr_copy(sh->mac, mac);
	sh->port = port->index;
	sh->valid = true;
	mrpsim_fdb_note(sw, port, mac, SWITCHDEV_FDB_ADD_TO_BRIDGE);
}

/* Read the slots with an event in batches: with the FDB lock for the
 * device, then with RTNL for the bridge, so that neither waits long for
 * the other (a loop in the network makes every register access slow and
 * moves addresses back and forth without end).
 */
static void mrpsim_fdb_work(struct work_struct *work)
{
	struct mrpsim *sw = container_of(work, struct mrpsim, fdb.work);
	unsigned int i = 0, k, end;
	unsigned long flushed;

	if (atomic_xchg(&sw->fdb.rescan, 0)) {
		atomic64_inc(&sw->fdb.rescans);
		for (k = 0; k < sw->fdb.size; k++)
			set_bit(k, sw->fdb.pending);
	}
	flushed = atomic_long_xchg(&sw->fdb.flushed, 0);
	if (flushed) {
		mutex_lock(&sw->fdb.lock);
		for (k = 0; k < sw->fdb.size; k++)
			if (sw->fdb.shadow[k].valid &&
			    (flushed & BIT(sw->fdb.shadow[k].port)))
				set_bit(k, sw->fdb.pending);
		mutex_unlock(&sw->fdb.lock);
	}
	/* An event for a slot read meanwhile sets its bit again and queues
	 * this work again.
	 */
	while (i < sw->fdb.size) {
		end = min(i + MRPSIM_FDB_BATCH, sw->fdb.size);
		mutex_lock(&sw->fdb.lock);
		for (; i < end; i++) {
			if (test_and_clear_bit(i, sw->fdb.pending))
				mrpsim_fdb_sync_slot(sw, i);
			cond_resched();
		}
		mutex_unlock(&sw->fdb.lock);

		if (!sw->fdb.num_notes)
			continue;
		rtnl_lock();
		for (k = 0; k < sw->fdb.num_notes; k++) {
			struct mrpsim_fdb_note *note = &sw->fdb.notes[k];

			/* A port that left its bridge meanwhile forgot it. */
			if (note->port->bridge == note->bridge)
				mrpsim_fdb_tell_bridge(note->port, note->mac,
						       note->event);
		}
		rtnl_unlock();
		sw->fdb.num_notes = 0;
	}
}

/**
 * mrpsim_fdb_event() - the device changed an FDB entry
 * @sw: the switch
 * @ev: the MRPSIM_EV_FDB event
 *
 * Called from the event interrupt thread; the bridge is told from the
 * FDB work.
 *
 * Return: false if the event names no slot of the switch's FDB.
 */
bool mrpsim_fdb_event(struct mrpsim *sw, const struct mrpsim_event *ev)
{
	u32 index = FIELD_GET(MRPSIM_EV_FDB_INDEX_MASK, le32_to_cpu(ev->data));

	/* Forwarding stopped (mrpsim_l2_enable()): old news. */
	if (!READ_ONCE(sw->l2)) {
		if (index >= sw->fdb.size)
			return false;
		atomic64_inc(&sw->fdb.stale_events);
		return true;
	}
	if (index >= sw->fdb.size)
		return false;
	set_bit(index, sw->fdb.pending);
	queue_work(mrpsim_fdb_wq, &sw->fdb.work);

	return true;
}

/**
 * mrpsim_fdb_resync() - FDB events were lost: read every slot
 * @sw: the switch
 *
 * Called from the event interrupt thread.
 */
void mrpsim_fdb_resync(struct mrpsim *sw)
{
	if (!READ_ONCE(sw->l2))
		return;
	atomic_set(&sw->fdb.rescan, 1);
	queue_work(mrpsim_fdb_wq, &sw->fdb.work);
}

/**
 * mrpsim_fdb_ports_flushed() - the device flushed ports on its own
 * @sw: the switch
 * @ports: the ports whose learned entries it removed, a bit per port
 *
 * Called from the event interrupt thread when the MRP engine's recovery
 * assist flushed a ring's ports: the slots the bridge was told of on
 * those ports are read again, and what is gone is deleted from the
 * bridge.
 */
void mrpsim_fdb_ports_flushed(struct mrpsim *sw, unsigned long ports)
{
	if (!sw->l2 || !ports)
		return;
	atomic_long_or(ports, &sw->fdb.flushed);
	queue_work(mrpsim_fdb_wq, &sw->fdb.work);
}

/* Give the device @e.  The address is the bridge's own entry now, not
 * one the switch learned.
 */
static void mrpsim_fdb_entry_write(struct mrpsim *sw,
				   struct mrpsim_fdb_entry *e)
{
	u32 status;
	int i;

	i = mrpsim_fdb_shadow_find(sw, e->mac, -1);
	if (i >= 0)
		sw->fdb.shadow[i].valid = false;
	status = mrpsim_fdb_hw_add(sw, e->mac, e->port);
	e->in_hw = status == MRPSIM_FDB_OK;
	if (e->in_hw)
		return;

	if (status == MRPSIM_FDB_FULL)
		atomic64_inc(&sw->fdb.add_full);
	dev_warn_ratelimited(&sw->pdev->dev, "FDB entry %pM not added: %s\n",
			     e->mac, status == MRPSIM_FDB_FULL ?
			     "no free slot for it" : "refused by the device");
}

static void mrpsim_fdb_entry_free(struct mrpsim *sw,
				  struct mrpsim_fdb_entry *e)
{
	if (e->in_hw)
		mrpsim_fdb_hw_del(sw, e->mac);
	list_del(&e->list);
	kfree(e);
}

/* The bridge gave @mac to go to @target through @port. */
static void mrpsim_fdb_add(struct mrpsim_port *port, const u8 *mac, u8 target)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_fdb_entry *e;

	e = mrpsim_fdb_entry_find(sw, mac);
	if (!e) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return;
		ether_addr_copy(e->mac, mac);
		list_add(&e->list, &sw->fdb.entries);
	} else if (e->port != target) {
		/* The bridge moved the address: what held it before is gone. */
		e->refs = 0;
	}
	e->port = target;
	e->refs |= BIT(port->index);
	mrpsim_fdb_entry_write(sw, e);

	if (e->in_hw && target == port->index)
		mrpsim_fdb_tell_bridge(port, mac, SWITCHDEV_FDB_OFFLOADED);
}

/* The bridge deleted @mac, given through @port to go to @target. */
static void mrpsim_fdb_put(struct mrpsim_port *port, const u8 *mac, u8 target)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_fdb_entry *e;
	int i;

	e = mrpsim_fdb_entry_find(sw, mac);
	if (e) {
		if (e->port != target)
			return;
		e->refs &= ~BIT(port->index);
		if (!e->refs)
			mrpsim_fdb_entry_free(sw, e);
		return;
	}
	if (target == MRPSIM_FDB_PORT_CPU)
		return;

	/* An entry the switch learned: the bridge flushed it, or it aged
	 * out of the bridge before the switch reported it.  The bridge has
	 * it no more, unless the switch reported it again after the bridge
	 * deleted it, in a work queued before this one: take that back too.
	 * The switch reports the address anew when it learns it again.
	 */
	mrpsim_fdb_hw_del(sw, mac);
	i = mrpsim_fdb_shadow_find(sw, mac, -1);
	if (i < 0)
		return;
	sw->fdb.shadow[i].valid = false;
	mrpsim_fdb_tell_bridge(sw->ports[sw->fdb.shadow[i].port], mac,
			       SWITCHDEV_FDB_DEL_TO_BRIDGE);
}

static void mrpsim_fdb_bridge_work(struct work_struct *work)
{
	struct mrpsim_fdb_work *w = container_of(work, struct mrpsim_fdb_work,
						 work);
	struct mrpsim_port *port = w->port;
	struct mrpsim *sw = port->sw;
	struct mrpsim_fdb_entry *e;
	u8 target;

	target = w->kind == MRPSIM_FDB_HOST ? MRPSIM_FDB_PORT_CPU : port->index;
	rtnl_lock();
	mutex_lock(&sw->fdb.lock);
	if (!w->add) {
		mrpsim_fdb_put(port, w->mac, target);
	} else if (w->kind == MRPSIM_FDB_DYNAMIC) {
		/* Learned here by the bridge: an address that moved from a
		 * foreign port.  The switch learns it on this port once the
		 * CPU entry is gone.
		 */
		e = mrpsim_fdb_entry_find(sw, w->mac);
		if (e)
			mrpsim_fdb_entry_free(sw, e);
	} else if (port->bridge) {
		/* A notification queued before the port left its bridge
		 * adds nothing.
		 */
		mrpsim_fdb_add(port, w->mac, target);
	}
	mutex_unlock(&sw->fdb.lock);
	rtnl_unlock();

	dev_put(port->netdev);
	kfree(w);
}

/**
 * mrpsim_fdb_to_device() - an FDB notification of the bridge reached a port
 * @dev: the port
 * @orig_dev: the device of the entry: @dev, the bridge or a foreign port
 * @event: SWITCHDEV_FDB_ADD_TO_DEVICE or SWITCHDEV_FDB_DEL_TO_DEVICE
 * @ctx: the port being offloaded or unoffloaded for a replay, or NULL
 * @info: the entry
 *
 * Called in atomic context; the work is deferred to mrpsim_fdb_wq.
 *
 * Return: 0 or a negative error code.
 */
int mrpsim_fdb_to_device(struct net_device *dev, struct net_device *orig_dev,
			 unsigned long event, const void *ctx,
			 const struct switchdev_notifier_fdb_info *info)
{
	struct mrpsim_port *port = netdev_priv(dev);
	struct mrpsim_fdb_work *w;

	if ((ctx && ctx != port) || !READ_ONCE(port->sw->l2))
		return 0;
	/* The switch's FDB knows neither VLANs nor multicast addresses. */
	if (info->vid || !is_valid_ether_addr(info->addr))
		return 0;

	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return -ENOMEM;
	INIT_WORK(&w->work, mrpsim_fdb_bridge_work);
	w->port = port;
	w->add = event == SWITCHDEV_FDB_ADD_TO_DEVICE;
	ether_addr_copy(w->mac, info->addr);
	if (info->is_local || orig_dev != dev)
		w->kind = MRPSIM_FDB_HOST;
	else if (info->added_by_user)
		w->kind = MRPSIM_FDB_STATIC;
	else
		w->kind = MRPSIM_FDB_DYNAMIC;
	dev_hold(dev);
	queue_work(mrpsim_fdb_wq, &w->work);

	return 0;
}

/**
 * mrpsim_foreign_dev_check() - is a device outside a port's switch
 * @dev: the port
 * @foreign_dev: a device in the port's bridge, or the bridge
 *
 * Return: true if frames for @foreign_dev must go to the CPU.
 */
bool mrpsim_foreign_dev_check(const struct net_device *dev,
			      const struct net_device *foreign_dev)
{
	struct mrpsim_port *port = netdev_priv(dev);
	struct mrpsim_port *other;

	if (netif_is_bridge_master(foreign_dev))
		return READ_ONCE(port->bridge) != foreign_dev;
	other = mrpsim_port_from_netdev(foreign_dev);

	return !other || other->sw != port->sw;
}

/**
 * mrpsim_l2_port_ctrl() - the PORT_CTRL bits of a port's bridge port flags
 * @port: the port
 *
 * A standalone port learns nothing; it takes floods, as after a reset,
 * although no other port forwards to it.
 *
 * Return: MRPSIM_PORT_CTRL_LEARN and MRPSIM_PORT_CTRL_FLOOD_* bits.
 */
u32 mrpsim_l2_port_ctrl(const struct mrpsim_port *port)
{
	u32 ctrl = 0;

	if (!port->bridge)
		return MRPSIM_PORT_CTRL_FLOOD_ALL;
	if (port->brport_flags & BR_LEARNING)
		ctrl |= MRPSIM_PORT_CTRL_LEARN;
	if (port->brport_flags & BR_FLOOD)
		ctrl |= MRPSIM_PORT_CTRL_FLOOD_UC;
	if (port->brport_flags & BR_MCAST_FLOOD)
		ctrl |= MRPSIM_PORT_CTRL_FLOOD_MC;
	if (port->brport_flags & BR_BCAST_FLOOD)
		ctrl |= MRPSIM_PORT_CTRL_FLOOD_BC;

	return ctrl;
}

/* Does @br have an MRP ring on this switch whose role the switch's
 * engine does not run, or with an interconnection that the bridge runs?
 * Then the bridge's CPU forwards the ring's MRP frames
 * (the clients' MRP_Test, the MRP_InTest frames), and a ring or
 * interconnection open by mistake, its test frames held up in a busy
 * CPU, must not become a loop in hardware at line rate: the bridge
 * forwards its data in software on this switch too, as it checks them.
 */
static bool mrpsim_l2_mrp_in_software(struct mrpsim *sw,
				      const struct net_device *br)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		if (sw->mrp[i].br == br &&
		    (!sw->mrp[i].role_hw ||
		     (sw->mrp[i].in_role && !sw->mrp[i].in_hw)))
			return true;

	return false;
}

/* Each bridged port forwards to the other ports of the switch in its
 * bridge, a standalone port, or one of a bridge with an MRP ring in
 * software, to none.
 */
static void mrpsim_l2_update_masks(struct mrpsim *sw)
{
	unsigned int i, j;

	ASSERT_RTNL();
	for (i = 0; i < sw->num_ports; i++) {
		struct mrpsim_port *port = sw->ports[i];
		u32 mask = 0;

		if (!port)
			continue;
		if (port->bridge &&
		    !mrpsim_l2_mrp_in_software(sw, port->bridge))
			for (j = 0; j < sw->num_ports; j++)
				if (j != i && sw->ports[j] &&
				    sw->ports[j]->bridge == port->bridge)
					mask |= BIT(j);
		mrpsim_port_write(port, MRPSIM_PORT_FWD_MASK, mask);
	}
}

/**
 * mrpsim_l2_mrp_changed() - the switch's MRP rings or roles changed
 * @sw: the switch
 *
 * With RTNL and sw->mrp_lock.
 */
void mrpsim_l2_mrp_changed(struct mrpsim *sw)
{
	ASSERT_RTNL();
	if (sw->l2)
		mrpsim_l2_update_masks(sw);
}

/* One ageing time for the switch: its bridges' shortest (0: never). */
static void mrpsim_l2_update_ageing(struct mrpsim *sw)
{
	unsigned int i, ms = 0;

	ASSERT_RTNL();
	for (i = 0; i < sw->num_ports; i++) {
		struct mrpsim_port *port = sw->ports[i];

		if (port && port->bridge && port->ageing_ms &&
		    (!ms || port->ageing_ms < ms))
			ms = port->ageing_ms;
	}
	if (ms == sw->fdb.ageing)
		return;
	sw->fdb.ageing = ms;
	mrpsim_write(sw, MRPSIM_REG_FDB_AGEING, ms);
}

/* The bridge's ageing time, 0 for "never", as the device takes it. */
static u64 mrpsim_l2_ageing_ms(clock_t ageing)
{
	return div_u64((u64)max_t(clock_t, ageing, 0) * MSEC_PER_SEC,
		       USER_HZ);
}

/**
 * mrpsim_l2_port_join() - take a port's bridge port state to the device
 * @port: the port, whose @bridge was just set
 */
void mrpsim_l2_port_join(struct mrpsim_port *port)
{
	static const unsigned long flags[] = {
		BR_LEARNING, BR_FLOOD, BR_MCAST_FLOOD, BR_BCAST_FLOOD,
	};
	struct net_device *dev = port->netdev;
	unsigned int i;

	ASSERT_RTNL();
	port->brport_flags = 0;
	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (br_port_flag_is_set(dev, flags[i]))
			port->brport_flags |= flags[i];
	port->stp_state = br_port_get_stp_state(dev);
	port->ageing_ms = min_t(u64,
				mrpsim_l2_ageing_ms(br_get_ageing_time(port->bridge)),
				U32_MAX);

	mrpsim_port_apply_state(port);
	mrpsim_l2_update_masks(port->sw);
	mrpsim_l2_update_ageing(port->sw);
}

/* Remove the entries the switch learned on @port, and with @tell, from
 * the bridge too.
 */
static void mrpsim_fdb_flush_port(struct mrpsim_port *port, bool tell)
{
	struct mrpsim *sw = port->sw;
	unsigned int i;

	mrpsim_write(sw, MRPSIM_REG_FDB_ENTRY,
		     FIELD_PREP(MRPSIM_FDB_ENTRY_PORT_MASK, port->index));
	mrpsim_fdb_cmd(sw, MRPSIM_FDB_CMD_FLUSH);
	for (i = 0; i < sw->fdb.size; i++) {
		struct mrpsim_fdb_shadow *sh = &sw->fdb.shadow[i];

		if (!sh->valid || sh->port != port->index)
			continue;
		sh->valid = false;
		if (tell)
			mrpsim_fdb_tell_bridge(port, sh->mac,
					       SWITCHDEV_FDB_DEL_TO_BRIDGE);
	}
}

static bool mrpsim_l2_stp_learns(u8 state)
{
	return state == BR_STATE_LEARNING || state == BR_STATE_FORWARDING;
}

/**
 * mrpsim_l2_stp_state_changed() - a bridged port's STP state changed
 * @port: the port, its new state applied
 * @old: its previous state
 *
 * A port that stops learning and forwarding (a link that went down, a
 * ring port MRP blocks) forgets what it learned, so that the switch does
 * not forward to it any more what the bridge's topology change, or the
 * flush that follows it, would miss: entries still on their way to the
 * bridge.
 */
void mrpsim_l2_stp_state_changed(struct mrpsim_port *port, u8 old)
{
	ASSERT_RTNL();
	if (!port->bridge || !mrpsim_l2_stp_learns(old) ||
	    mrpsim_l2_stp_learns(port->stp_state))
		return;

	mutex_lock(&port->sw->fdb.lock);
	mrpsim_fdb_flush_port(port, true);
	mutex_unlock(&port->sw->fdb.lock);
}

/**
 * mrpsim_l2_port_leave() - a port left its bridge
 * @port: the port, whose @bridge was just cleared
 *
 * The port stops forwarding, then its learned entries go; the bridge has
 * deleted its own entries of the port already, and sends the deletion of
 * those it gave the switch through this port, which the port no longer
 * holds.
 */
void mrpsim_l2_port_leave(struct mrpsim_port *port)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_fdb_entry *e, *tmp;

	ASSERT_RTNL();
	mrpsim_l2_update_masks(sw);
	mrpsim_port_apply_state(port);

	mutex_lock(&sw->fdb.lock);
	mrpsim_fdb_flush_port(port, false);
	list_for_each_entry_safe(e, tmp, &sw->fdb.entries, list) {
		e->refs &= ~BIT(port->index);
		if (!e->refs)
			mrpsim_fdb_entry_free(sw, e);
	}
	mutex_unlock(&sw->fdb.lock);

	mrpsim_l2_update_ageing(sw);
}

/**
 * mrpsim_l2_enable() - start or stop forwarding in the device
 * @sw: the switch, with @l2_cap and no port in a bridge
 * @on: forward in the device (devlink parameter l2_offload)
 *
 * Standalone ports forward to no other port either way; what changes is
 * how they join a bridge from now on.  The device keeps nothing from
 * before: its learned entries go (the bridge's went when the ports left
 * it), and the ports take their standalone state for @on.
 */
void mrpsim_l2_enable(struct mrpsim *sw, bool on)
{
	unsigned int i;

	ASSERT_RTNL();
	WRITE_ONCE(sw->l2, on);
	mrpsim_l2_update_masks(sw);
	mutex_lock(&sw->fdb.lock);
	for (i = 0; i < sw->num_ports; i++)
		mrpsim_fdb_flush_port(sw->ports[i], false);
	mutex_unlock(&sw->fdb.lock);
	for (i = 0; i < sw->num_ports; i++)
		mrpsim_port_apply_state(sw->ports[i]);
}

/**
 * mrpsim_l2_set_ageing() - a port's bridge changed its ageing time
 * @port: the port
 * @ageing: the ageing time, in clock_t; 0: entries never age
 * @extack: netlink extended ack
 *
 * The bridge defers this attribute: an error only reaches its log, and
 * the switch keeps its ageing time.
 *
 * Return: 0, or -ERANGE for a time the device cannot take.
 */
int mrpsim_l2_set_ageing(struct mrpsim_port *port, clock_t ageing,
			 struct netlink_ext_ack *extack)
{
	u64 ms = mrpsim_l2_ageing_ms(ageing);

	ASSERT_RTNL();
	if ((ms && ms < MRPSIM_FDB_AGEING_MIN) || ms > U32_MAX) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Ageing time out of the switch's range");
		netdev_err(port->netdev,
			   "ageing time %llu ms out of the switch's range (%u ms to %u ms, or 0)\n",
			   ms, MRPSIM_FDB_AGEING_MIN, U32_MAX);
		return -ERANGE;
	}
	port->ageing_ms = ms;
	mrpsim_l2_update_ageing(port->sw);

	return 0;
}

/* debugfs fdb: the device's FDB, a slot in use a line. */
static int mrpsim_fdb_show(struct seq_file *seq, void *unused)
{
	struct mrpsim *sw = seq->private;
	u8 mac[ETH_ALEN];
	unsigned int i, p;
	u32 entry;

	mutex_lock(&sw->fdb.lock);
	for (i = 0; i < sw->fdb.size; i++) {
		cond_resched();
		if (!mrpsim_fdb_hw_read(sw, i, mac, &entry))
			continue;
		p = FIELD_GET(MRPSIM_FDB_ENTRY_PORT_MASK, entry);
		seq_printf(seq, "%u %pM ", i, mac);
		if (entry & MRPSIM_FDB_ENTRY_CPU)
			seq_puts(seq, "cpu");
		else
			seq_printf(seq, "p%u", p);
		seq_printf(seq, " %s\n", entry & MRPSIM_FDB_ENTRY_STATIC ?
			   "static" : "learned");
	}
	mutex_unlock(&sw->fdb.lock);

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mrpsim_fdb);

/**
 * mrpsim_fdb_debugfs_init() - add the fdb file to a switch's debugfs
 * @sw: the switch
 */
void mrpsim_fdb_debugfs_init(struct mrpsim *sw)
{
	if (sw->l2_cap)
		debugfs_create_file("fdb", 0400, sw->debugfs, sw,
				    &mrpsim_fdb_fops);
}

/**
 * mrpsim_fdb_init() - set up the FDB state of a switch after its reset
 * @sw: the switch, whose @l2_cap says whether it can forward
 *
 * A device that can forward gets the driver's FDB state whether it
 * forwards or not, so that the devlink parameter l2_offload can turn
 * forwarding on and off later.
 *
 * Return: 0 or a negative error code.
 */
int mrpsim_fdb_init(struct mrpsim *sw)
{
	struct device *dev = &sw->pdev->dev;

	mutex_init(&sw->fdb.lock);
	INIT_LIST_HEAD(&sw->fdb.entries);
	INIT_WORK(&sw->fdb.work, mrpsim_fdb_work);
	if (!sw->l2_cap)
		return 0;

	sw->fdb.size = mrpsim_read(sw, MRPSIM_REG_FDB_SIZE);
	if (!sw->fdb.size || sw->fdb.size > MRPSIM_FDB_ENTRIES) {
		dev_warn(dev, "unsupported FDB size %u, no L2 forwarding\n",
			 sw->fdb.size);
		sw->fdb.size = 0;
		sw->l2_cap = false;
		sw->l2 = false;
		return 0;
	}
	sw->fdb.ageing = mrpsim_read(sw, MRPSIM_REG_FDB_AGEING);
	sw->fdb.shadow = devm_kcalloc(dev, sw->fdb.size,
				      sizeof(*sw->fdb.shadow), GFP_KERNEL);
	sw->fdb.notes = devm_kcalloc(dev, MRPSIM_FDB_NOTES,
				     sizeof(*sw->fdb.notes), GFP_KERNEL);

	return sw->fdb.shadow && sw->fdb.notes ? 0 : -ENOMEM;
}

/**
 * mrpsim_fdb_module_init() - create the driver's FDB workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int mrpsim_fdb_module_init(void)
{
	mrpsim_fdb_wq = alloc_ordered_workqueue("mrpsim_fdb", 0);

	return mrpsim_fdb_wq ? 0 : -ENOMEM;
}

/**
 * mrpsim_fdb_module_exit() - destroy the driver's FDB workqueue
 */
void mrpsim_fdb_module_exit(void)
{
	destroy_workqueue(mrpsim_fdb_wq);
}
