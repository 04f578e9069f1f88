// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: Media Redundancy Protocol (IEC 62439-2) offload.
 *
 * The bridge describes a ring with switchdev objects, all of them added
 * on the bridge device and delivered to every port of the bridge:
 *
 * - SWITCHDEV_OBJ_ID_MRP: the ring (id, primary and secondary port, prio).
 *   It must be accepted for the bridge to create the ring at all.
 * - SWITCHDEV_OBJ_ID_RING_ROLE_MRP: first with sw_backup = false, "run the
 *   role in hardware"; if that is refused with -EOPNOTSUPP, again with
 *   sw_backup = true, "let the bridge run it, only trap MRP frames".
 * - SWITCHDEV_OBJ_ID_RING_TEST_MRP: generate and check MRP_Test frames.
 *   Accepting it means the bridge neither sends test frames nor detects
 *   loss of continuity: the driver reports it (br_mrp_ring_port_open()).
 * - SWITCHDEV_OBJ_ID_RING_STATE_MRP: ring open/closed, sent in test frames.
 * - SWITCHDEV_OBJ_ID_IN_ROLE_MRP: an interconnection of the ring (IEC
 *   62439-2 Ed. 2: MIM or MIC, with an interconnection port).  Run in the
 *   engine (CAP.IN) when the engine runs the ring's role and the
 *   interconnection port is on the same switch; else refused, and taken
 *   again with sw_backup: the bridge runs it, and the IN_STATE and
 *   IN_TEST objects are refused (the bridge sends and checks MRP_InTest
 *   frames itself).
 * - SWITCHDEV_OBJ_ID_IN_STATE_MRP: interconnection open/closed.
 * - SWITCHDEV_OBJ_ID_IN_TEST_MRP: a MIM generates and checks MRP_InTest
 *   frames; in the engine, its IN_LOSS/IN_REGAIN events become the
 *   bridge's interconnection-open notifications (br_mrp_in_port_open()),
 *   a loss on the ring ports and the interconnection port, a regain on
 *   the port the InTest came back on, as the bridge's own MIM tells
 *   them.
 *
 * With the MRP engine (CAP.MRP, devlink parameter mrp_offload) a ring
 * whose two ports are on this switch gets one engine instance, the role
 * and the test run in the engine and MRP_LOSS/MRP_REGAIN events become
 * the bridge's ring-open notifications.  Without it, the ring is
 * accepted, the full role and the test are refused, and the sw_backup
 * role is accepted: with no role set the device hands every MRP frame
 * to the CPU and the bridge runs MRP in software on the same ports.  A
 * ring the engine cannot run (its other port is on another switch or
 * device, every engine instance is taken, an MRA on an engine without
 * CAP.MRA) falls back the same way, with a warning in the extack
 * (patches/ pass it to drivers).  What the engine cannot do and the
 * bridge cannot do instead (a test interval below the engine's minimum
 * once the engine runs the role) is refused, with the reason in the
 * extack.
 *
 * Forwarding, so that every MRP frame crosses each cable once: the engine
 * of a client (MRC, or MRA that monitors) forwards MRP_Test between the
 * ring ports and keeps it from the CPU; every other MRP frame
 * (TopologyChange, LinkDown/LinkUp, Option, interconnection) reaches the
 * CPU only, unmarked, and br_mrp_rcv() forwards it.  MRP_InTest, which a
 * MIM sends every few ms, is the exception: on a ring the engine runs,
 * the engine forwards it (IN_CTRL.FWD) as br_mrp_rcv() would, MIC or
 * plain ring node, and keeps it from the CPU; except on a bridge whose
 * interconnection runs in software, which must see them.  The device could not
 * both forward such a frame and hand a copy to the CPU: br_mrp_rcv() runs
 * before the bridge checks offload_fwd_mark, so the copy would be
 * forwarded a second time and each client would double the frame.  ocelot
 * splits the work the same way.  The bridge tells an MRA that monitors
 * from a manager by its test_monitor flag, which it records for an
 * offloaded test only with "net: bridge: mrp: remember that an MRA
 * monitors an offloaded test" (this project's patches/).  Both halves pass
 * MRP frames through a blocked ring port and never forward a frame the
 * node sent itself: the engine terminates a client's own MRP_Test, and
 * patches/ make br_mrp_rcv() do the same for every ring frame.
 *
 * Every object reaches the driver once per port of the bridge.  Only one
 * port of a switch, the "owner" of the ring (its primary port if that is
 * on the switch, else its secondary), acts on it; the other ports report
 * "not handled" (-EOPNOTSUPP), which switchdev ignores when another port
 * handled the object, so the owner's answer is the switch's answer.
 *
 * Recovery assist (CAP.ASSIST, devlink parameter mrp_assist, off by
 * default): every ring the engine runs gets ASSIST.OPEN and ASSIST.FLUSH,
 * of which the engine uses what fits the role it runs, and the
 * TopologyChange timing of the profile its test interval belongs to.  On
 * its own, a manager's engine then opens the ring at the first loss of
 * continuity: it sets the secondary port forwarding and the ring open,
 * flushes the learned FDB entries of both ring ports and sends the
 * TopologyChange series; a client's engine flushes its ring ports when a
 * TopologyChange asks it to.  The loss is reported to the bridge as
 * without the assist, and the MRP daemon then opens the ring itself:
 * the ring state and the secondary's forwarding it sets are what the
 * device has already.  The driver keeps its view of the device in step
 * from the MRP_ASSIST event: the secondary's state becomes forwarding in
 * the driver too (mrpsim_mrp_assist_work()), so that nothing the driver
 * writes to PORT_CTRL on its own puts the old blocking state back before
 * the bridge sets one; and the flushed ports' slots are read again, so
 * that the bridge forgets the entries the switch forgot
 * (mrpsim_fdb_ports_flushed()).  Closing the ring stays with software,
 * so a regain after an opening of the assist waits until the software
 * has written the ring's state (mrpsim_mrp_port_take()): the daemon
 * would read a loss and a regain that are both over as nothing to do,
 * and leave the secondary forwarding on a closed ring.  Events lost on
 * the way may take the MRP_ASSIST event with them: after a resync a
 * RING_STATE that reads open where the software wrote closed says the
 * assist opened the ring (mrpsim_mrp_assist_check()).
 * With the parameter off the device does exactly what it did without
 * the assist.
 *
 * The switchdev handlers here run under RTNL and change the ring table
 * (sw->mrp[], each port's mrp) under sw->mrp_lock as well.
 * mrpsim_mrp_work() reports loss and regain with that lock alone: the
 * bridge needs no RTNL for them (br_mrp_ring_port_open()), and a report
 * must not wait behind whatever holds RTNL (a daemon's netlink requests,
 * an FDB flush).  mrpsim_mrp_event() and mrpsim_mrp_resync() run in the
 * event interrupt thread and read the table without locks; the work
 * checks what they found.
 */

#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/if_bridge.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/switchdev.h>
#include <uapi/linux/mrp_bridge.h>

#include "mrpsim.h"
#include "mrpsim_trace.h"

#define MRPSIM_MRP_NO_HW	(-1)

static struct mrpsim_port *mrpsim_mrp_local(struct mrpsim *sw,
					    const struct net_device *dev)
{
	struct mrpsim_port *port;

	if (!dev)
		return NULL;
	port = mrpsim_port_from_netdev(dev);

	return port && port->sw == sw ? port : NULL;
}

/* The port of @sw that acts on a ring with ports @p_dev and @s_dev. */
static struct mrpsim_port *mrpsim_mrp_owner(struct mrpsim *sw,
					    const struct net_device *p_dev,
					    const struct net_device *s_dev)
{
	struct mrpsim_port *port = mrpsim_mrp_local(sw, p_dev);

	return port ?: mrpsim_mrp_local(sw, s_dev);
}

static struct mrpsim_mrp *mrpsim_mrp_find(struct mrpsim *sw,
					  const struct net_device *br,
					  u32 ring_id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		if (sw->mrp[i].br == br && sw->mrp[i].ring_id == ring_id)
			return &sw->mrp[i];

	return NULL;
}

/* The ring @ring_id of bridge @br, if @port is the port that acts on it. */
static struct mrpsim_mrp *mrpsim_mrp_get(struct mrpsim_port *port,
					 const struct net_device *br,
					 u32 ring_id)
{
	struct mrpsim_mrp *mrp = mrpsim_mrp_find(port->sw, br, ring_id);

	if (!mrp || mrpsim_mrp_owner(port->sw, mrp->p_dev, mrp->s_dev) != port)
		return NULL;

	return mrp;
}

static int mrpsim_mrp_alloc_hw(struct mrpsim *sw)
{
	unsigned long used = 0;
	unsigned int i, hw;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		if (sw->mrp[i].br && sw->mrp[i].hw != MRPSIM_MRP_NO_HW)
			used |= BIT(sw->mrp[i].hw);

	hw = find_first_zero_bit(&used, sw->num_rings);

	return hw < sw->num_rings ? hw : -ENOSPC;
}

static u32 mrpsim_mrp_ports_val(const struct mrpsim_mrp *mrp)
{
	struct mrpsim_port *p = netdev_priv(mrp->p_dev);
	struct mrpsim_port *s = netdev_priv(mrp->s_dev);

	return FIELD_PREP(MRPSIM_MRP_PORTS_P_MASK, p->index) |
	       FIELD_PREP(MRPSIM_MRP_PORTS_S_MASK, s->index);
}

static void mrpsim_mrp_write_sa(struct mrpsim *sw, const struct mrpsim_mrp *mrp)
{
	u32 lo, hi;

	/* MRP_Test frames carry the bridge's address, as the bridge's own
	 * test frames do.
	 */
	mrpsim_mac_to_regs(mrp->br->dev_addr, &lo, &hi);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_SA_LO, lo);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_SA_HI, hi);
}

/* What ASSIST holds for @mrp: the assist of the role the engine runs. */
static u32 mrpsim_mrp_assist_val(struct mrpsim *sw,
				 const struct mrpsim_mrp *mrp)
{
	return sw->assist && mrp->role_hw ?
	       MRPSIM_ASSIST_OPEN | MRPSIM_ASSIST_FLUSH : 0;
}

/* No interconnection on engine instance @hw. */
static void mrpsim_mrp_in_hw_clear(struct mrpsim *sw, int hw)
{
	if (!sw->has_in)
		return;
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_IN_TEST_CTRL, 0);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_IN_ROLE, MRPSIM_IN_ROLE_DISABLED);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_IN_PORT, MRPSIM_MRP_PORT_NONE);
}

static void mrpsim_mrp_hw_clear(struct mrpsim *sw, int hw)
{
	mrpsim_mrp_in_hw_clear(sw, hw);
	if (sw->has_in)
		mrpsim_mrp_write(sw, hw, MRPSIM_MRP_IN_CTRL, 0);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_TEST_CTRL, 0);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_ASSIST, 0);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_ROLE, MRPSIM_ROLE_DISABLED);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_PORTS,
			 FIELD_PREP(MRPSIM_MRP_PORTS_P_MASK,
				    MRPSIM_MRP_PORT_NONE) |
			 FIELD_PREP(MRPSIM_MRP_PORTS_S_MASK,
				    MRPSIM_MRP_PORT_NONE));
}

static int mrpsim_mrp_hw_setup(struct mrpsim *sw, struct mrpsim_mrp *mrp)
{
	u32 ports = mrpsim_mrp_ports_val(mrp);
	int hw = mrp->hw;

	mrpsim_mrp_hw_clear(sw, hw);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_RING_ID, mrp->ring_id);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_PRIO, mrp->prio);
	/* A new ring starts open with no transitions, as in the bridge. */
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_RING_STATE, MRPSIM_RSTATE_OPEN);
	mrp->sw_closed = false;
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_TRANSITIONS, 0);
	mrpsim_mrp_write_sa(sw, mrp);
	mrpsim_mrp_write(sw, hw, MRPSIM_MRP_PORTS, ports);

	/* The device ignores a port already used by another instance. */
	if (mrpsim_mrp_read(sw, hw, MRPSIM_MRP_PORTS) != ports)
		return -EBUSY;

	return 0;
}

static void mrpsim_mrp_set_port(struct mrpsim_port *port,
				struct mrpsim_mrp *val)
{
	if (!port)
		return;
	port->mrp = val;
	port->mrp_reported = false;
	mrpsim_port_apply_state(port);
}

static void mrpsim_mrp_set_member(struct mrpsim *sw, struct mrpsim_mrp *mrp,
				  struct mrpsim_mrp *val)
{
	mrpsim_mrp_set_port(mrpsim_mrp_local(sw, mrp->p_dev), val);
	mrpsim_mrp_set_port(mrpsim_mrp_local(sw, mrp->s_dev), val);
}

static void mrpsim_mrp_free(struct mrpsim *sw, struct mrpsim_mrp *mrp)
{
	if (mrp->hw != MRPSIM_MRP_NO_HW) {
		clear_bit(mrp->hw, &sw->assist_hold);
		mrpsim_mrp_hw_clear(sw, mrp->hw);
	}
	mrpsim_mrp_set_member(sw, mrp, NULL);
	memset(mrp, 0, sizeof(*mrp));
	mrp->hw = MRPSIM_MRP_NO_HW;
}

static int mrpsim_mrp_add(struct mrpsim_port *port,
			  const struct switchdev_obj_mrp *obj,
			  struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_port *p, *s;
	struct mrpsim_mrp *mrp;
	unsigned int i;
	int hw, err;

	if (mrpsim_mrp_owner(sw, obj->p_port, obj->s_port) != port)
		return -EOPNOTSUPP;

	p = mrpsim_mrp_local(sw, obj->p_port);
	s = mrpsim_mrp_local(sw, obj->s_port);
	if ((p && p->mrp) || (s && s->mrp) ||
	    mrpsim_mrp_find(sw, obj->obj.orig_dev, obj->ring_id)) {
		NL_SET_ERR_MSG_MOD(extack, "Port already in an MRP ring");
		netdev_err(port->netdev, "MRP ring %u: port already in a ring\n",
			   obj->ring_id);
		return -EBUSY;
	}

	mrp = NULL;
	for (i = 0; i < ARRAY_SIZE(sw->mrp) && !mrp; i++)
		if (!sw->mrp[i].br)
			mrp = &sw->mrp[i];
	if (WARN_ON(!mrp))
		return -ENOSPC;

	/* A ring the engine cannot run, the bridge can: accept it without
	 * an engine instance, so that the sw_backup role follows and the
	 * bridge runs MRP in software on these ports.  Say so, as a warning
	 * that comes with the successful reply.
	 */
	hw = MRPSIM_MRP_NO_HW;
	if (sw->mrp_engine && (!p || !s)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "MRP ring runs in software: its ports are not on one switch");
		netdev_info(port->netdev,
			    "MRP ring %u: %s and %s are not on one switch, the bridge runs it in software\n",
			    obj->ring_id, netdev_name(obj->p_port),
			    netdev_name(obj->s_port));
	} else if (sw->mrp_engine) {
		hw = mrpsim_mrp_alloc_hw(sw);
		if (hw < 0) {
			NL_SET_ERR_MSG_MOD(extack,
					   "MRP ring runs in software: no free ring instance on the switch");
			netdev_info(port->netdev,
				    "MRP ring %u: all %u ring instances of the switch are in use, the bridge runs it in software\n",
				    obj->ring_id, sw->num_rings);
			hw = MRPSIM_MRP_NO_HW;
		}
	}

	mrp->br = obj->obj.orig_dev;
	mrp->p_dev = obj->p_port;
	mrp->s_dev = obj->s_port;
	mrp->ring_id = obj->ring_id;
	mrp->prio = obj->prio;
	mrp->hw = hw;
	mrp->role = BR_MRP_RING_ROLE_DISABLED;

	if (hw != MRPSIM_MRP_NO_HW) {
		err = mrpsim_mrp_hw_setup(sw, mrp);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "Device refused the MRP ring ports");
			netdev_err(port->netdev,
				   "MRP ring %u: device refused the ring ports\n",
				   obj->ring_id);
			mrpsim_mrp_free(sw, mrp);
			return err;
		}
	}
	mrpsim_mrp_set_member(sw, mrp, mrp);

	netdev_dbg(port->netdev, "MRP ring %u added, %s\n", mrp->ring_id,
		   hw != MRPSIM_MRP_NO_HW ? "engine instance" : "software");

	return 0;
}

static int mrpsim_mrp_del(struct mrpsim_port *port,
			  const struct switchdev_obj_mrp *obj)
{
	struct mrpsim_mrp *mrp;

	mrp = mrpsim_mrp_get(port, obj->obj.orig_dev, obj->ring_id);
	if (!mrp)
		return -EOPNOTSUPP;

	netdev_dbg(port->netdev, "MRP ring %u deleted\n", mrp->ring_id);
	mrpsim_mrp_free(port->sw, mrp);

	return 0;
}

static int mrpsim_mrp_hw_role(struct mrpsim *sw, u8 role)
{
	switch (role) {
	case BR_MRP_RING_ROLE_MRC:
		return MRPSIM_ROLE_MRC;
	case BR_MRP_RING_ROLE_MRM:
		return MRPSIM_ROLE_MRM;
	case BR_MRP_RING_ROLE_MRA:
		return sw->mra ? MRPSIM_ROLE_MRA : -EOPNOTSUPP;
	default:
		return -EOPNOTSUPP;
	}
}

static bool mrpsim_mrp_role_tests(u8 role)
{
	return role == BR_MRP_RING_ROLE_MRM || role == BR_MRP_RING_ROLE_MRA;
}

/* The engine no longer runs the ring's interconnection. */
static void mrpsim_mrp_in_disable(struct mrpsim *sw, struct mrpsim_mrp *mrp)
{
	if (mrp->in_hw && mrp->hw != MRPSIM_MRP_NO_HW)
		mrpsim_mrp_in_hw_clear(sw, mrp->hw);
	mrp->in_hw = false;
	mrp->in_test_hw = false;
	mrp->i_dev = NULL;
}

/* Disable the engine role: the device then traps every MRP frame. */
static void mrpsim_mrp_role_disable(struct mrpsim *sw, struct mrpsim_mrp *mrp)
{
	/* The interconnection of a ring the engine does not run cannot be
	 * the engine's: MRP frames of the ring's ports go to the CPU.
	 */
	if (mrp->in_hw)
		netdev_warn(mrp->p_dev,
			    "MRP ring %u: interconnection %u stops in the engine with the ring's role\n",
			    mrp->ring_id, mrp->in_id);
	mrpsim_mrp_in_disable(sw, mrp);
	if (mrp->hw != MRPSIM_MRP_NO_HW) {
		clear_bit(mrp->hw, &sw->assist_hold);
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL, 0);
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_ASSIST, 0);
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_ROLE,
				 MRPSIM_ROLE_DISABLED);
	}
	mrp->role_hw = false;
	mrp->test_hw = false;
}

static int mrpsim_mrp_role_add(struct mrpsim_port *port,
			       const struct switchdev_obj_ring_role_mrp *role,
			       struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_mrp *mrp;
	int hw_role;

	mrp = mrpsim_mrp_get(port, role->obj.orig_dev, role->ring_id);
	if (!mrp)
		return -EOPNOTSUPP;

	if (role->sw_backup) {
		/* The bridge runs the role in software. */
		mrpsim_mrp_role_disable(sw, mrp);
		mrp->role = role->ring_role;
		return 0;
	}

	hw_role = mrpsim_mrp_hw_role(sw, role->ring_role);
	if (mrp->hw == MRPSIM_MRP_NO_HW)
		return -EOPNOTSUPP;
	if (hw_role < 0) {
		/* The bridge asks again with sw_backup, which is accepted. */
		NL_SET_ERR_MSG_MOD(extack,
				   "MRP role runs in software: the switch's engine does not support it");
		netdev_info(port->netdev,
			    "MRP ring %u: the engine has no role %u, the bridge runs it in software\n",
			    mrp->ring_id, role->ring_role);
		return -EOPNOTSUPP;
	}

	/* A client does not test the ring: the engine stops the test. */
	if (!mrpsim_mrp_role_tests(role->ring_role))
		mrp->test_hw = false;

	mrpsim_mrp_write_sa(sw, mrp);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_ROLE, hw_role);
	if (mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_ROLE) != hw_role) {
		netdev_err(port->netdev, "MRP: device refused role %d\n",
			   hw_role);
		mrpsim_mrp_role_disable(sw, mrp);
		return -EIO;
	}

	mrp->role = role->ring_role;
	mrp->role_hw = true;
	if (sw->has_assist)
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_ASSIST,
				 mrpsim_mrp_assist_val(sw, mrp));
	netdev_dbg(port->netdev, "MRP ring %u: role %u in the engine\n",
		   mrp->ring_id, mrp->role);

	return 0;
}

static int mrpsim_mrp_role_del(struct mrpsim_port *port,
			       const struct switchdev_obj_ring_role_mrp *role)
{
	struct mrpsim_mrp *mrp;

	mrp = mrpsim_mrp_get(port, role->obj.orig_dev, role->ring_id);
	if (!mrp)
		return -EOPNOTSUPP;

	/* A role the engine does not run is deleted by the second,
	 * sw_backup, call: nothing to undo then.
	 */
	if (!role->sw_backup && !mrp->role_hw)
		return -EOPNOTSUPP;

	mrpsim_mrp_role_disable(port->sw, mrp);
	mrp->role = BR_MRP_RING_ROLE_DISABLED;

	return 0;
}

/* The ring of bridge @br whose interconnection @in_id the engine runs,
 * if @port is the port that acts on it.
 */
static struct mrpsim_mrp *mrpsim_mrp_in_get(struct mrpsim_port *port,
					    const struct net_device *br,
					    u32 in_id)
{
	struct mrpsim *sw = port->sw;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];

		if (mrp->br == br && mrp->in_hw && mrp->in_id == in_id &&
		    mrpsim_mrp_owner(sw, mrp->p_dev, mrp->s_dev) == port)
			return mrp;
	}

	return NULL;
}

/* IN_CTRL.FWD of every ring the engine runs: the engine forwards other
 * nodes' MRP_InTest, unless the bridge runs the ring's interconnection in
 * software and must see them.
 */
static void mrpsim_mrp_in_fwd_update(struct mrpsim *sw)
{
	unsigned int i;

	if (!sw->has_in)
		return;
	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];
		bool fwd;

		if (!mrp->br || mrp->hw == MRPSIM_MRP_NO_HW)
			continue;
		fwd = mrp->role_hw &&
		      (mrp->in_role == BR_MRP_IN_ROLE_DISABLED || mrp->in_hw);
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_CTRL,
				 fwd ? MRPSIM_IN_CTRL_FWD : 0);
	}
}

/* Run interconnection @role of @mrp in the engine; -EOPNOTSUPP to let
 * the bridge run it (it asks again with sw_backup).
 */
static int mrpsim_mrp_in_hw_add(struct mrpsim_port *port,
				struct mrpsim_mrp *mrp,
				const struct switchdev_obj_in_role_mrp *role,
				struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_port *i = mrpsim_mrp_local(sw, role->i_port);
	u32 hw_role;

	if (!sw->has_in || !mrp->role_hw)
		return -EOPNOTSUPP;
	if (!i) {
		NL_SET_ERR_MSG_MOD(extack,
				   "MRP interconnection runs in software: its port is not on the ring's switch");
		netdev_info(port->netdev,
			    "MRP ring %u: interconnection port %s is not on this switch, the bridge runs the interconnection\n",
			    mrp->ring_id, netdev_name(role->i_port));
		return -EOPNOTSUPP;
	}
	switch (role->in_role) {
	case BR_MRP_IN_ROLE_MIM:
		hw_role = MRPSIM_IN_ROLE_MIM;
		break;
	case BR_MRP_IN_ROLE_MIC:
		hw_role = MRPSIM_IN_ROLE_MIC;
		break;
	default:
		return -EOPNOTSUPP;
	}

	/* A new interconnection starts open with no transitions, as in the
	 * bridge.
	 */
	mrpsim_mrp_in_hw_clear(sw, mrp->hw);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_ID, role->in_id);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_STATE,
			 MRPSIM_IN_STATE_OPEN);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_TRANSITIONS, 0);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_PORT, i->index);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_ROLE, hw_role);
	if (mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_IN_PORT) != i->index ||
	    mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_IN_ROLE) != hw_role) {
		mrpsim_mrp_in_hw_clear(sw, mrp->hw);
		NL_SET_ERR_MSG_MOD(extack,
				   "MRP interconnection runs in software: the device refused it");
		netdev_warn(port->netdev,
			    "MRP ring %u: device refused interconnection port %s, the bridge runs the interconnection\n",
			    mrp->ring_id, netdev_name(role->i_port));
		return -EOPNOTSUPP;
	}

	mrp->in_role = role->in_role;
	mrp->in_id = role->in_id;
	mrp->i_dev = role->i_port;
	mrp->in_hw = true;
	mrp->in_test_hw = false;
	mrp->in_reported = false;
	clear_bit(mrp->hw, &sw->in_lost);
	netdev_dbg(port->netdev, "MRP ring %u: interconnection %u role %u in the engine\n",
		   mrp->ring_id, mrp->in_id, mrp->in_role);

	return 0;
}

/* An interconnection of a ring, MIM or MIC: in the engine if it can, else
 * in the bridge (sw_backup).  The device hands every MRP frame of a ring
 * it does not run to the CPU, on ring ports and interconnection port
 * alike, so the sw_backup role needs no register but IN_CTRL.FWD clear
 * (mrpsim_mrp_in_fwd_update()).  The bridge checks the interconnection
 * with MRP_InTest frames that a busy CPU can hold up: its bridge's data
 * is forwarded in software on this switch while it has one
 * (mrpsim_l2_mrp_in_software()), so that an interconnection opened by
 * mistake is no loop in hardware at line rate.
 */
static int mrpsim_mrp_in_role_add(struct mrpsim_port *port,
				  const struct switchdev_obj_in_role_mrp *role,
				  struct netlink_ext_ack *extack)
{
	struct mrpsim_mrp *mrp;

	mrp = mrpsim_mrp_get(port, role->obj.orig_dev, role->ring_id);
	if (!mrp)
		return -EOPNOTSUPP;
	if (port->sw->fail_in_role) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Interconnection refused (debugfs fail_in_role)");
		return -EIO;
	}
	if (!role->sw_backup)
		return mrpsim_mrp_in_hw_add(port, mrp, role, extack);

	mrpsim_mrp_in_disable(port->sw, mrp);
	mrp->in_role = role->in_role;
	netdev_dbg(port->netdev, "MRP ring %u: interconnection role %u in software\n",
		   mrp->ring_id, mrp->in_role);

	return 0;
}

static int mrpsim_mrp_in_role_del(struct mrpsim_port *port,
				  const struct switchdev_obj_in_role_mrp *role)
{
	struct mrpsim_mrp *mrp;

	mrp = mrpsim_mrp_get(port, role->obj.orig_dev, role->ring_id);
	if (!mrp)
		return -EOPNOTSUPP;
	/* An interconnection the engine does not run is deleted by the
	 * second, sw_backup, call.
	 */
	if (!role->sw_backup && !mrp->in_hw)
		return -EOPNOTSUPP;

	mrpsim_mrp_in_disable(port->sw, mrp);
	mrp->in_role = BR_MRP_IN_ROLE_DISABLED;

	return 0;
}

/* A fresh InTest (started anew, or checking an interconnection that
 * closes) has nothing lost; what the bridge was told stays as it is, as
 * the bridge's own MIM leaves it.
 */
static void mrpsim_mrp_in_fresh(struct mrpsim *sw, struct mrpsim_mrp *mrp)
{
	clear_bit(mrp->hw, &sw->in_lost);
	atomic_set(&sw->in_changes[mrp->hw], 0);
}

static int mrpsim_mrp_in_state_add(struct mrpsim_port *port,
				   const struct switchdev_obj_in_state_mrp *st)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_mrp *mrp;
	u32 val, status;

	mrp = mrpsim_mrp_in_get(port, st->obj.orig_dev, st->in_id);
	if (!mrp)
		return -EOPNOTSUPP;

	val = st->in_state == BR_MRP_IN_STATE_CLOSED ?
	      MRPSIM_IN_STATE_CLOSED : MRPSIM_IN_STATE_OPEN;
	/* Closing checks afresh, a new generation (as RING_STATE, see
	 * mrpsim_mrp_closing()): take it before the engine can raise an
	 * event of it.
	 */
	status = mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_IN_STATUS);
	if (val == MRPSIM_IN_STATE_CLOSED && mrp->in_test_hw &&
	    (status & MRPSIM_IN_STATUS_RUNNING) &&
	    mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_IN_STATE) !=
	    MRPSIM_IN_STATE_CLOSED) {
		WRITE_ONCE(mrp->in_gen,
			   FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK, status) + 1);
		mrpsim_mrp_in_fresh(sw, mrp);
	}
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_STATE, val);

	return 0;
}

/* The engine runs the role and terminates its own test frames (the
 * ring's, or with @in an interconnection's InTest), so the bridge cannot
 * test instead: an interval below the engine's minimum is refused.
 */
static int mrpsim_mrp_interval_check(struct mrpsim_port *port, bool in,
				     u32 id, u32 interval,
				     struct netlink_ext_ack *extack)
{
	if (interval >= MRPSIM_TEST_INTERVAL_MIN)
		return 0;

	if (in)
		NL_SET_ERR_MSG_MOD(extack,
				   "MRP InTest interval below the device's minimum");
	else
		NL_SET_ERR_MSG_MOD(extack,
				   "MRP test interval below the device's minimum");
	netdev_err(port->netdev,
		   "MRP %s %u: %s interval %u us below the device's minimum of %u us\n",
		   in ? "interconnection" : "ring", id, in ? "InTest" : "test",
		   interval, MRPSIM_TEST_INTERVAL_MIN);
	return -EINVAL;
}

static int mrpsim_mrp_in_test_add(struct mrpsim_port *port,
				  const struct switchdev_obj_in_test_mrp *test,
				  struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_mrp *mrp;
	u32 status;
	bool fresh;
	int err;

	mrp = mrpsim_mrp_in_get(port, test->obj.orig_dev, test->in_id);
	if (!mrp || mrp->in_role != BR_MRP_IN_ROLE_MIM)
		return -EOPNOTSUPP;

	err = mrpsim_mrp_interval_check(port, true, mrp->in_id,
					test->interval, extack);
	if (err)
		return err;

	/* A period of 0 ends the bridge's test at once (see
	 * mrpsim_mrp_test_add()).
	 */
	if (!test->period) {
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_TEST_CTRL, 0);
		mrp->in_test_hw = true;
		return 0;
	}

	status = mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_IN_STATUS);
	fresh = !(status & MRPSIM_IN_STATUS_RUNNING);
	WRITE_ONCE(mrp->in_gen,
		   FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK, status) + fresh);
	if (fresh)
		mrpsim_mrp_in_fresh(sw, mrp);
	mrpsim_mrp_write_sa(sw, mrp);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_INTERVAL, test->interval);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_MAX_MISS, test->max_miss);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_PERIOD, test->period);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_TEST_CTRL,
			 MRPSIM_IN_TEST_CTRL_RUN);
	if (mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_IN_TEST_CTRL) !=
	    MRPSIM_IN_TEST_CTRL_RUN) {
		netdev_err(port->netdev,
			   "MRP: device refused the interconnection test\n");
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_IN_TEST_CTRL, 0);
		mrp->in_test_hw = false;
		return -EIO;
	}
	mrp->in_test_hw = true;

	return 0;
}

static int mrpsim_mrp_in_test_del(struct mrpsim_port *port,
				  const struct switchdev_obj_in_test_mrp *test)
{
	struct mrpsim_mrp *mrp;

	mrp = mrpsim_mrp_in_get(port, test->obj.orig_dev, test->in_id);
	if (!mrp || !mrp->in_test_hw)
		return -EOPNOTSUPP;

	mrpsim_mrp_write(port->sw, mrp->hw, MRPSIM_MRP_IN_TEST_CTRL, 0);
	mrp->in_test_hw = false;

	return 0;
}

/* A test started afresh begins with no port lost, and no event tells the
 * driver that the last test's lost flags are gone.  Take the engine's
 * state.  A port the bridge was told is lost would stay so while the new
 * test's frames come back; on a closed ring (as its manager set it) it is
 * told it is not lost, as the engine sees it.  On an open ring the
 * engine hands a manager's first frame back to the CPU, and the bridge's
 * manager clears the flag itself (see mrpsim_report_arm() in the device).
 * A monitor (an MRA that gave way) gets no such frame and is told too:
 * else the loss it reports when the manager goes silent finds the flag
 * already set, and the daemon, which acts on changes, never takes over.
 * A ring that closes (@closing) is checked afresh too, and the bridge
 * forgets what it was told itself once the handler returns: nothing is
 * reported lost any more, and there is nothing to tell.
 */
static void mrpsim_mrp_fresh_test(struct mrpsim *sw, struct mrpsim_mrp *mrp,
				  bool closing)
{
	bool tell = !closing &&
		    ((mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL) &
		      MRPSIM_TEST_CTRL_MONITOR) ||
		     mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_RING_STATE) ==
		     MRPSIM_RSTATE_CLOSED);
	struct net_device *dev[2] = { mrp->p_dev, mrp->s_dev };
	bool changed = false;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct mrpsim_port *port = mrpsim_mrp_local(sw, dev[k]);

		if (!port)
			continue;
		WRITE_ONCE(port->mrp_hw, mrp->hw);
		WRITE_ONCE(port->mrp_gen, mrp->gen);
		clear_bit(MRPSIM_PORT_MRP_LOST, &port->mrp_state);
		if (closing)
			port->mrp_reported = false;
		if (!tell || !port->mrp_reported)
			continue;
		/* Pairs with atomic_xchg() in mrpsim_mrp_port_take(). */
		smp_mb__before_atomic();
		atomic_inc(&port->mrp_changes);
		changed = true;
	}
	if (changed)
		schedule_work(&sw->mrp_work);
}

/* MRP_TOPNRmax of every profile of IEC 62439-2 (tables 59-62). */
#define MRPSIM_TOPO_NR_MAX	3

/* The recovery assist sends its TopologyChange series as the manager's
 * MRP daemon does (tools/mrp/mrp_sm.c): MRP_TOPchgT of the profile whose
 * test intervals (MRP_TSTdefaultT, MRP_TSTshortT) @interval is.  The
 * bridge passes the interval only, so the profile is inferred from it:
 * 10 ms (0.5 and 1 ms) and 30 ms (1 and 3.5 ms) send every 0.5 ms,
 * 200 ms (10 and 20 ms) every 10 ms, 500 ms (30 and 50 ms) every 20 ms.
 */
static u32 mrpsim_mrp_topo_interval(u32 interval)
{
	if (interval <= 3500)
		return 500;
	if (interval <= 20000)
		return 10000;
	return 20000;
}

static int mrpsim_mrp_test_add(struct mrpsim_port *port,
			       const struct switchdev_obj_ring_test_mrp *test,
			       struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_mrp *mrp;
	u32 ctrl, old, status;
	bool fresh;
	int err;

	mrp = mrpsim_mrp_get(port, test->obj.orig_dev, test->ring_id);
	if (!mrp)
		return -EOPNOTSUPP;

	/* The engine tests the ring only when it also runs the role. */
	if (!mrp->role_hw || !mrpsim_mrp_role_tests(mrp->role))
		return -EOPNOTSUPP;
	if (test->monitor && mrp->role != BR_MRP_RING_ROLE_MRA)
		return -EOPNOTSUPP;

	err = mrpsim_mrp_interval_check(port, false, mrp->ring_id,
					test->interval, extack);
	if (err)
		return err;

	/* The bridge's own test ends when its period has passed, so with a
	 * period of 0 it sends nothing and checks nothing.  The engine reads
	 * TEST_PERIOD 0 as "no end": stop it instead, and own the test all
	 * the same, as the software would.
	 */
	if (!test->period) {
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL, 0);
		mrp->test_hw = true;
		return 0;
	}

	ctrl = MRPSIM_TEST_CTRL_RUN;
	if (test->monitor)
		ctrl |= MRPSIM_TEST_CTRL_MONITOR;

	/* Rewriting RUN restarts the interval and the period and keeps the
	 * lost state of the ports.  A test started afresh, or one that
	 * switches between generating and monitoring, is a new generation,
	 * which its events carry: take it before the engine can raise one.
	 */
	status = mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_STATUS);
	old = mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL);
	fresh = !(status & MRPSIM_MRP_STATUS_RUNNING) ||
		((old ^ ctrl) & MRPSIM_TEST_CTRL_MONITOR);
	WRITE_ONCE(mrp->gen, FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK, status) +
			     fresh);
	if (fresh)
		clear_bit(mrp->hw, &sw->assist_hold);
	mrpsim_mrp_write_sa(sw, mrp);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_INTERVAL, test->interval);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_MAX_MISS, test->max_miss);
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_PERIOD, test->period);
	if (sw->has_assist) {
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TOPO_INTERVAL,
				 mrpsim_mrp_topo_interval(test->interval));
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TOPO_REPEAT,
				 MRPSIM_TOPO_NR_MAX);
	}
	mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL, ctrl);
	if (mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL) != ctrl) {
		netdev_err(port->netdev, "MRP: device refused the ring test\n");
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL, 0);
		mrp->test_hw = false;
		return -EIO;
	}
	mrp->test_hw = true;
	if (fresh)
		mrpsim_mrp_fresh_test(sw, mrp, false);

	return 0;
}

static int mrpsim_mrp_test_del(struct mrpsim_port *port,
			       const struct switchdev_obj_ring_test_mrp *test)
{
	struct mrpsim_mrp *mrp;

	mrp = mrpsim_mrp_get(port, test->obj.orig_dev, test->ring_id);
	if (!mrp || !mrp->test_hw)
		return -EOPNOTSUPP;

	mrpsim_mrp_write(port->sw, mrp->hw, MRPSIM_MRP_TEST_CTRL, 0);
	mrp->test_hw = false;

	return 0;
}

/* The manager closes the ring, and the engine's generating test checks
 * it afresh (a new generation, no port lost): take the generation before
 * the engine can raise an event of it, and the ports as not lost.  An
 * event of the old generation still on its way is stale
 * (mrpsim_mrp_port_take()).  Else a loss from while the ring was open
 * would hide the next one: the engine reports changes only.
 */
static void mrpsim_mrp_closing(struct mrpsim *sw, struct mrpsim_mrp *mrp)
{
	u32 status, ctrl;

	if (!mrp->test_hw ||
	    mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_RING_STATE) ==
	    MRPSIM_RSTATE_CLOSED)
		return;
	status = mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_STATUS);
	ctrl = mrpsim_mrp_read(sw, mrp->hw, MRPSIM_MRP_TEST_CTRL);
	if (!(status & MRPSIM_MRP_STATUS_RUNNING) ||
	    (ctrl & MRPSIM_TEST_CTRL_MONITOR))
		return;
	WRITE_ONCE(mrp->gen, FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK, status) + 1);
	mrpsim_mrp_fresh_test(sw, mrp, true);
}

static int mrpsim_mrp_state_add(struct mrpsim_port *port,
				const struct switchdev_obj_ring_state_mrp *st)
{
	struct mrpsim_mrp *mrp;
	u32 val;

	mrp = mrpsim_mrp_get(port, st->obj.orig_dev, st->ring_id);
	if (!mrp || mrp->hw == MRPSIM_MRP_NO_HW)
		return -EOPNOTSUPP;

	/* Kept up to date even while the bridge runs the role, so that the
	 * engine's transition count follows the bridge's.
	 */
	val = st->ring_state == BR_MRP_RING_STATE_CLOSED ?
	      MRPSIM_RSTATE_CLOSED : MRPSIM_RSTATE_OPEN;
	if (val == MRPSIM_RSTATE_CLOSED)
		mrpsim_mrp_closing(port->sw, mrp);
	mrpsim_mrp_write(port->sw, mrp->hw, MRPSIM_MRP_RING_STATE, val);
	mrp->sw_closed = val == MRPSIM_RSTATE_CLOSED;

	/* The software has taken the ring over from the recovery assist:
	 * a regain that waited can be told now.
	 */
	if (test_and_clear_bit(mrp->hw, &port->sw->assist_hold))
		schedule_work(&port->sw->mrp_work);

	return mrp->role_hw ? 0 : -EOPNOTSUPP;
}

/**
 * mrpsim_mrp_obj_add() - add an MRP switchdev object
 * @port: port the object is delivered to
 * @obj: the object
 * @extack: netlink extended ack
 *
 * Return: 0 if the device handles @obj, -EOPNOTSUPP if the bridge must
 * do it in software (or @port is not the one to handle it), another
 * negative error code if @obj cannot be accepted at all.
 */
int mrpsim_mrp_obj_add(struct mrpsim_port *port,
		       const struct switchdev_obj *obj,
		       struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = port->sw;
	int err;

	ASSERT_RTNL();

	mutex_lock(&sw->mrp_lock);
	switch (obj->id) {
	case SWITCHDEV_OBJ_ID_MRP:
		err = mrpsim_mrp_add(port, SWITCHDEV_OBJ_MRP(obj), extack);
		break;
	case SWITCHDEV_OBJ_ID_RING_ROLE_MRP:
		err = mrpsim_mrp_role_add(port,
					  SWITCHDEV_OBJ_RING_ROLE_MRP(obj),
					  extack);
		break;
	case SWITCHDEV_OBJ_ID_RING_TEST_MRP:
		err = mrpsim_mrp_test_add(port,
					  SWITCHDEV_OBJ_RING_TEST_MRP(obj),
					  extack);
		break;
	case SWITCHDEV_OBJ_ID_RING_STATE_MRP:
		err = mrpsim_mrp_state_add(port,
					   SWITCHDEV_OBJ_RING_STATE_MRP(obj));
		break;
	case SWITCHDEV_OBJ_ID_IN_ROLE_MRP:
		err = mrpsim_mrp_in_role_add(port,
					     SWITCHDEV_OBJ_IN_ROLE_MRP(obj),
					     extack);
		break;
	case SWITCHDEV_OBJ_ID_IN_STATE_MRP:
		err = mrpsim_mrp_in_state_add(port,
					      SWITCHDEV_OBJ_IN_STATE_MRP(obj));
		break;
	case SWITCHDEV_OBJ_ID_IN_TEST_MRP:
		err = mrpsim_mrp_in_test_add(port,
					     SWITCHDEV_OBJ_IN_TEST_MRP(obj),
					     extack);
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	mrpsim_mrp_in_fwd_update(sw);
	mrpsim_l2_mrp_changed(sw);
	mutex_unlock(&sw->mrp_lock);

	return err;
}

/**
 * mrpsim_mrp_obj_del() - delete an MRP switchdev object
 * @port: port the object is delivered to
 * @obj: the object
 *
 * Return: 0 if the device handled @obj, -EOPNOTSUPP otherwise.
 */
int mrpsim_mrp_obj_del(struct mrpsim_port *port,
		       const struct switchdev_obj *obj)
{
	struct mrpsim *sw = port->sw;
	int err;

	ASSERT_RTNL();

	mutex_lock(&sw->mrp_lock);
	switch (obj->id) {
	case SWITCHDEV_OBJ_ID_MRP:
		err = mrpsim_mrp_del(port, SWITCHDEV_OBJ_MRP(obj));
		break;
	case SWITCHDEV_OBJ_ID_RING_ROLE_MRP:
		err = mrpsim_mrp_role_del(port,
					  SWITCHDEV_OBJ_RING_ROLE_MRP(obj));
		break;
	case SWITCHDEV_OBJ_ID_RING_TEST_MRP:
		err = mrpsim_mrp_test_del(port,
					  SWITCHDEV_OBJ_RING_TEST_MRP(obj));
		break;
	case SWITCHDEV_OBJ_ID_IN_ROLE_MRP:
		err = mrpsim_mrp_in_role_del(port,
					     SWITCHDEV_OBJ_IN_ROLE_MRP(obj));
		break;
	case SWITCHDEV_OBJ_ID_IN_TEST_MRP:
		err = mrpsim_mrp_in_test_del(port,
					     SWITCHDEV_OBJ_IN_TEST_MRP(obj));
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	mrpsim_mrp_in_fwd_update(sw);
	mrpsim_l2_mrp_changed(sw);
	mutex_unlock(&sw->mrp_lock);

	return err;
}

/**
 * mrpsim_mrp_port_role_set() - the bridge made a ring port primary or
 *	secondary
 * @port: the port
 * @role: BR_MRP_PORT_ROLE_PRIMARY or BR_MRP_PORT_ROLE_SECONDARY
 *
 * Like the bridge, only the given role changes: while both roles name the
 * same port the engine keeps its previous ports.
 *
 * Return: 0, or -EOPNOTSUPP if @port is in no ring of this switch.
 */
int mrpsim_mrp_port_role_set(struct mrpsim_port *port, u8 role)
{
	struct mrpsim *sw = port->sw;
	struct mrpsim_mrp *mrp;
	int err = 0;

	ASSERT_RTNL();

	mutex_lock(&sw->mrp_lock);
	mrp = port->mrp;
	if (!mrp) {
		err = -EOPNOTSUPP;
		goto out;
	}

	switch (role) {
	case BR_MRP_PORT_ROLE_PRIMARY:
		mrp->p_dev = port->netdev;
		break;
	case BR_MRP_PORT_ROLE_SECONDARY:
		mrp->s_dev = port->netdev;
		break;
	default:
		err = -EOPNOTSUPP;
		goto out;
	}

	if (mrp->hw != MRPSIM_MRP_NO_HW && mrp->p_dev != mrp->s_dev)
		mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_PORTS,
				 mrpsim_mrp_ports_val(mrp));
out:
	mutex_unlock(&sw->mrp_lock);

	return err;
}

/**
 * mrpsim_mrp_port_leave() - a port left its bridge
 * @port: the port
 *
 * The bridge deletes a port's ring before the port leaves; drop whatever
 * may be left of it.
 */
void mrpsim_mrp_port_leave(struct mrpsim_port *port)
{
	struct mrpsim *sw = port->sw;
	unsigned int i;

	ASSERT_RTNL();

	mutex_lock(&sw->mrp_lock);
	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];

		if (mrp->br && (mrp->p_dev == port->netdev ||
				mrp->s_dev == port->netdev)) {
			netdev_warn(port->netdev,
				    "MRP ring %u left behind by the bridge\n",
				    mrp->ring_id);
			mrpsim_mrp_free(sw, mrp);
		}
	}
	mrpsim_l2_mrp_changed(sw);
	mutex_unlock(&sw->mrp_lock);
}

/**
 * mrpsim_mrp_bridge_addr_changed() - a bridge changed its MAC address
 * @sw: a switch with ports in the bridge
 * @br: the bridge
 */
void mrpsim_mrp_bridge_addr_changed(struct mrpsim *sw,
				    const struct net_device *br)
{
	unsigned int i;

	ASSERT_RTNL();

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		if (sw->mrp[i].br == br && sw->mrp[i].hw != MRPSIM_MRP_NO_HW)
			mrpsim_mrp_write_sa(sw, &sw->mrp[i]);
}

static void mrpsim_mrp_report(struct mrpsim_port *port, bool lost)
{
	int err;

	netdev_dbg(port->netdev, "MRP ring %u: continuity %s\n",
		   port->mrp->ring_id, lost ? "lost" : "regained");
	trace_mrpsim_mrp_report(port->netdev, port->mrp->ring_id, lost);
	err = br_mrp_ring_port_open(port->netdev, lost);
	if (err)
		netdev_warn(port->netdev,
			    "MRP: cannot report ring open (%d)\n", err);
}

/* Take the loss/regain events of @port not reported yet.  Returns how
 * many reports the bridge must see (0: none or stale, 1: the port's state
 * in *@lost, 2: the opposite state first, as the ring opened and closed
 * again, or the reverse, since the last report).
 */
static unsigned int mrpsim_mrp_port_take(struct mrpsim_port *port, bool *lost)
{
	struct mrpsim_mrp *mrp = port->mrp;
	unsigned int changes;

	/* Full barrier: the state read below is at least as new as the
	 * changes counted.
	 */
	changes = atomic_xchg(&port->mrp_changes, 0);
	if (!changes)
		return 0;
	*lost = test_bit(MRPSIM_PORT_MRP_LOST, &port->mrp_state);

	/* Events of a test that was stopped meanwhile, or of another ring
	 * instance, are stale.
	 */
	if (!mrp || !mrp->test_hw || mrp->hw != READ_ONCE(port->mrp_hw) ||
	    mrp->gen != READ_ONCE(port->mrp_gen) ||
	    (port->netdev != mrp->p_dev && port->netdev != mrp->s_dev) ||
	    !netif_is_bridge_port(port->netdev) ||
	    READ_ONCE(port->bridge) != mrp->br)
		return 0;

	/* The recovery assist opened the ring, and the software has not
	 * written its state since.  The MRP daemon reads a ring that opened
	 * and closed again before it looked as closed, nothing to do: but
	 * the switch opened it, and only the software closes it (blocks the
	 * secondary, tells the clients to flush).  So the bridge is told the
	 * loss and not the regain, which waits until the software writes
	 * the ring's state (mrpsim_mrp_state_add()): it opens the ring the
	 * switch opened, then hears of the regain and closes it.
	 */
	if (!*lost && test_bit(mrp->hw, &port->sw->assist_hold)) {
		atomic_add(changes, &port->mrp_changes);
		if (port->mrp_reported)
			return 0;
		*lost = true;
		return 1;
	}
	return changes > 1 && *lost == port->mrp_reported ? 2 : 1;
}

/* The ring of engine instance @hw, read without locks: a ring torn
 * down meanwhile is caught under mrp_lock by mrpsim_mrp_port_take().
 */
static struct mrpsim_mrp *mrpsim_mrp_of_hw(struct mrpsim *sw, int hw)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		if (READ_ONCE(sw->mrp[i].hw) == hw)
			return &sw->mrp[i];

	return NULL;
}

/* Events of engine instance @hw were lost, an MRP_ASSIST OPENED among
 * them maybe: the engine's RING_STATE reads open where the software last
 * wrote closed only if the assist opened the ring.  Hold its regain back
 * as mrpsim_mrp_assist_event() would have, and report the ring ports
 * lost even if the break is over and its events were lost too
 * (mrpsim_mrp_port_take()).  Under mrp_lock, which the software's
 * RING_STATE writes take too.
 */
static void mrpsim_mrp_assist_check(struct mrpsim *sw, int hw)
{
	struct mrpsim_mrp *mrp = mrpsim_mrp_of_hw(sw, hw);
	struct net_device *dev[2];
	unsigned int k;
	u8 gen;

	if (!mrp || !mrp->test_hw || !mrp->sw_closed ||
	    mrpsim_mrp_read(sw, hw, MRPSIM_MRP_RING_STATE) !=
	    MRPSIM_RSTATE_OPEN ||
	    test_and_set_bit(hw, &sw->assist_hold))
		return;
	gen = FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK,
			mrpsim_mrp_read(sw, hw, MRPSIM_MRP_STATUS));
	dev[0] = mrp->p_dev;
	dev[1] = mrp->s_dev;
	for (k = 0; k < 2; k++) {
		struct mrpsim_port *port = mrpsim_mrp_local(sw, dev[k]);

		if (!port)
			continue;
		WRITE_ONCE(port->mrp_hw, hw);
		WRITE_ONCE(port->mrp_gen, gen);
		atomic_inc(&port->mrp_changes);
	}
}

static void mrpsim_mrp_test_done(struct mrpsim *sw, int hw)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];

		if (!mrp->br || mrp->hw != hw || !mrp->test_hw)
			continue;
		/* A test restarted meanwhile still runs. */
		if (!(mrpsim_mrp_read(sw, hw, MRPSIM_MRP_STATUS) &
		      MRPSIM_MRP_STATUS_RUNNING))
			mrp->test_hw = false;
	}
}

static void mrpsim_mrp_in_test_done(struct mrpsim *sw, int hw)
{
	struct mrpsim_mrp *mrp = mrpsim_mrp_of_hw(sw, hw);

	/* A test restarted meanwhile still runs. */
	if (mrp && mrp->br && mrp->in_test_hw &&
	    !(mrpsim_mrp_read(sw, hw, MRPSIM_MRP_IN_STATUS) &
	      MRPSIM_IN_STATUS_RUNNING))
		mrp->in_test_hw = false;
}

static void mrpsim_mrp_in_report_dev(struct net_device *dev, bool lost)
{
	int err;

	netdev_dbg(dev, "MRP interconnection: %s\n",
		   lost ? "InTest lost" : "own InTest back");
	err = br_mrp_in_port_open(dev, lost);
	if (err)
		netdev_warn(dev,
			    "MRP: cannot report interconnection open (%d)\n",
			    err);
}

/* As the bridge's own MIM tells it (br_mrp_in_test_work_expired(),
 * br_mrp_mim_process()): a loss on both ring ports and the
 * interconnection port, a regain on the port the InTest came back on.
 */
static void mrpsim_mrp_in_report(struct mrpsim *sw, struct mrpsim_mrp *mrp,
				 bool lost)
{
	struct net_device *dev[3] = { mrp->p_dev, mrp->s_dev, mrp->i_dev };
	unsigned int k, port = READ_ONCE(sw->in_regain_port[mrp->hw]);
	struct net_device *back = mrp->i_dev;

	if (lost) {
		for (k = 0; k < ARRAY_SIZE(dev); k++)
			mrpsim_mrp_in_report_dev(dev[k], true);
		return;
	}
	for (k = 0; k < ARRAY_SIZE(dev); k++)
		if (port < sw->num_ports && dev[k] == sw->ports[port]->netdev)
			back = dev[k];
	mrpsim_mrp_in_report_dev(back, false);
}

/* Report the interconnection events of engine instance @hw, coalesced as
 * the ring's (mrpsim_mrp_port_take()): the current state, preceded by
 * the opposite one when it changed twice since the last report.
 */
static void mrpsim_mrp_in_take(struct mrpsim *sw, int hw)
{
	unsigned int changes = atomic_xchg(&sw->in_changes[hw], 0);
	struct mrpsim_mrp *mrp;
	bool lost;

	if (!changes)
		return;
	lost = test_bit(hw, &sw->in_lost);
	mrp = mrpsim_mrp_of_hw(sw, hw);
	/* Events of an InTest stopped or started afresh since are stale. */
	if (!mrp || !mrp->br || !mrp->in_test_hw || !mrp->i_dev ||
	    READ_ONCE(sw->in_ev_gen[hw]) != mrp->in_gen)
		return;
	if (changes > 1 && lost == mrp->in_reported)
		mrpsim_mrp_in_report(sw, mrp, !lost);
	mrpsim_mrp_in_report(sw, mrp, lost);
	mrp->in_reported = lost;
}

/**
 * mrpsim_mrp_work() - report engine events to the bridge
 * @work: the switch's mrp_work
 *
 * Loss and regain of continuity are reported per port, coalesced: however
 * many events arrived since the last run, the bridge sees the port's
 * current state, preceded by the opposite one when the ring opened and
 * closed again in between.  The states passed through come first for
 * every port, then the current ones: a ring that opened and closed on
 * both ports is reported open, open, closed, closed, one transition for
 * whoever manages it, not two.
 */
void mrpsim_mrp_work(struct work_struct *work)
{
	struct mrpsim *sw = container_of(work, struct mrpsim, mrp_work);
	unsigned int reports[MRPSIM_MAX_PORTS];
	bool lost[MRPSIM_MAX_PORTS];
	unsigned int i;
	int hw;

	mutex_lock(&sw->mrp_lock);
	for (hw = 0; hw < sw->num_rings; hw++)
		if (test_and_clear_bit(hw, &sw->mrp_test_done))
			mrpsim_mrp_test_done(sw, hw);
	for (hw = 0; hw < sw->num_rings; hw++)
		if (test_and_clear_bit(hw, &sw->assist_check))
			mrpsim_mrp_assist_check(sw, hw);
	for (i = 0; i < sw->num_ports; i++)
		reports[i] = mrpsim_mrp_port_take(sw->ports[i], &lost[i]);
	for (i = 0; i < sw->num_ports; i++)
		if (reports[i] == 2)
			mrpsim_mrp_report(sw->ports[i], !lost[i]);
	for (i = 0; i < sw->num_ports; i++) {
		if (!reports[i])
			continue;
		mrpsim_mrp_report(sw->ports[i], lost[i]);
		sw->ports[i]->mrp_reported = lost[i];
	}
	for (hw = 0; hw < sw->num_rings; hw++)
		if (test_and_clear_bit(hw, &sw->in_test_done))
			mrpsim_mrp_in_test_done(sw, hw);
	for (hw = 0; hw < sw->num_rings; hw++)
		mrpsim_mrp_in_take(sw, hw);
	/* Link-ups that waited for the reports above (the link as it is
	 * now: it may have gone down again meanwhile).
	 */
	for (i = 0; i < sw->num_ports; i++)
		if (test_and_clear_bit(MRPSIM_PORT_CARRIER_DEFERRED,
				       &sw->ports[i]->mrp_state))
			mrpsim_port_update_carrier(sw->ports[i]);
	mutex_unlock(&sw->mrp_lock);
}

/**
 * mrpsim_mrp_resync() - take the loss state of every running test
 * @sw: the switch
 *
 * Called from the event interrupt thread when events were lost.  A port
 * whose lost flag in the engine differs from the last event's is reported
 * as if its event had arrived.  The ring table is read without RTNL:
 * mrpsim_mrp_port_take() checks what it found against it under mrp_lock.
 */
void mrpsim_mrp_resync(struct mrpsim *sw)
{
	static const u32 lost_bit[2] = {
		MRPSIM_MRP_STATUS_P_LOST, MRPSIM_MRP_STATUS_S_LOST,
	};
	bool changed = false;
	unsigned int i, k;

	/* Before the changes below: the work that takes them checks first
	 * whether an MRP_ASSIST OPENED was among the events lost, and runs
	 * for that even if no port's state changed (the break is over).
	 */
	if (READ_ONCE(sw->assist)) {
		for (i = 0; i < sw->num_rings; i++)
			set_bit(i, &sw->assist_check);
		changed = true;
	}

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];
		struct net_device *dev[2];
		int hw = READ_ONCE(mrp->hw);
		u32 status;

		dev[0] = READ_ONCE(mrp->p_dev);
		dev[1] = READ_ONCE(mrp->s_dev);
		if (hw < 0 || hw >= sw->num_rings || !dev[0] || !dev[1] ||
		    !READ_ONCE(mrp->test_hw))
			continue;
		status = mrpsim_mrp_read(sw, hw, MRPSIM_MRP_STATUS);
		for (k = 0; k < 2; k++) {
			struct mrpsim_port *port = netdev_priv(dev[k]);
			bool lost = status & lost_bit[k];

			if (lost == test_bit(MRPSIM_PORT_MRP_LOST,
					     &port->mrp_state))
				continue;
			WRITE_ONCE(port->mrp_hw, hw);
			WRITE_ONCE(port->mrp_gen,
				   FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK, status));
			if (lost)
				set_bit(MRPSIM_PORT_MRP_LOST, &port->mrp_state);
			else
				clear_bit(MRPSIM_PORT_MRP_LOST,
					  &port->mrp_state);
			/* Pairs with atomic_xchg() in mrpsim_mrp_port_take(). */
			smp_mb__before_atomic();
			atomic_inc(&port->mrp_changes);
			changed = true;
		}
	}
	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];
		int hw = READ_ONCE(mrp->hw);
		u32 status;
		bool lost;

		if (hw < 0 || hw >= sw->num_rings || !READ_ONCE(mrp->in_test_hw))
			continue;
		status = mrpsim_mrp_read(sw, hw, MRPSIM_MRP_IN_STATUS);
		lost = status & MRPSIM_IN_STATUS_LOST;
		if (lost == test_bit(hw, &sw->in_lost))
			continue;
		WRITE_ONCE(sw->in_ev_gen[hw],
			   FIELD_GET(MRPSIM_MRP_STATUS_GEN_MASK, status));
		/* A regain whose port was lost: the interconnection port. */
		WRITE_ONCE(sw->in_regain_port[hw], MRPSIM_EV_NONE);
		if (lost)
			set_bit(hw, &sw->in_lost);
		else
			clear_bit(hw, &sw->in_lost);
		/* Pairs with atomic_xchg() in mrpsim_mrp_in_take(). */
		smp_mb__before_atomic();
		atomic_inc(&sw->in_changes[hw]);
		changed = true;
	}
	if (changed)
		schedule_work(&sw->mrp_work);

	/* An MRP_ASSIST event may be among those lost: the work takes the
	 * state the device has, whatever it is.
	 */
	if (READ_ONCE(sw->assist)) {
		for (i = 0; i < sw->num_rings; i++)
			set_bit(i, &sw->assist_opened);
		schedule_work(&sw->assist_work);
	}
}

/**
 * mrpsim_mrp_reports_pending() - loss or regain events not yet reported
 * @sw: the switch
 *
 * Return: true when mrpsim_mrp_work() has a report to make on some port.
 */
bool mrpsim_mrp_reports_pending(struct mrpsim *sw)
{
	unsigned int i;

	for (i = 0; i < sw->num_ports; i++)
		if (atomic_read(&sw->ports[i]->mrp_changes))
			return true;
	for (i = 0; i < sw->num_rings; i++)
		if (atomic_read(&sw->in_changes[i]))
			return true;
	return false;
}

/* Is @ev from the test the engine instance runs now, or from one stopped
 * since?  Read without RTNL: a ring torn down meanwhile is caught under
 * mrp_lock by mrpsim_mrp_port_take().
 */
static bool mrpsim_mrp_event_current(struct mrpsim *sw,
				     const struct mrpsim_event *ev)
{
	u8 gen = FIELD_GET(MRPSIM_EV_MRP_GEN_MASK, le32_to_cpu(ev->data));
	struct mrpsim_mrp *mrp = mrpsim_mrp_of_hw(sw, ev->ring);

	return mrp && READ_ONCE(mrp->gen) == gen;
}

/**
 * mrpsim_mrp_event() - an MRP engine event arrived
 * @sw: the switch
 * @ev: the event, with its port (for loss and regain) and ring validated
 *
 * Called from the event interrupt thread; the bridge is told from
 * process context, by mrpsim_mrp_work().  An event of a
 * test stopped since (another generation) is dropped and counted.
 */
void mrpsim_mrp_event(struct mrpsim *sw, const struct mrpsim_event *ev)
{
	struct mrpsim_port *port;

	/* The mrpsim_event trace point shows it with its generation. */
	if (!mrpsim_mrp_event_current(sw, ev)) {
		atomic64_inc(&sw->mrp_stale_events);
		return;
	}

	if (ev->type == MRPSIM_EV_TEST_DONE) {
		set_bit(ev->ring, &sw->mrp_test_done);
		schedule_work(&sw->mrp_work);
		return;
	}

	port = sw->ports[ev->port];
	WRITE_ONCE(port->mrp_hw, ev->ring);
	WRITE_ONCE(port->mrp_gen,
		   FIELD_GET(MRPSIM_EV_MRP_GEN_MASK, le32_to_cpu(ev->data)));
	if (ev->type == MRPSIM_EV_MRP_LOSS) {
		atomic64_inc(&port->estats.mrp_loss_events);
		set_bit(MRPSIM_PORT_MRP_LOST, &port->mrp_state);
	} else {
		atomic64_inc(&port->estats.mrp_regain_events);
		clear_bit(MRPSIM_PORT_MRP_LOST, &port->mrp_state);
	}
	/* Pairs with atomic_xchg() in mrpsim_mrp_port_changes(). */
	smp_mb__before_atomic();
	atomic_inc(&port->mrp_changes);
	schedule_work(&sw->mrp_work);
}

/**
 * mrpsim_mrp_in_event() - an interconnection event of the engine arrived
 * @sw: the switch
 * @ev: IN_LOSS, IN_REGAIN (its port validated) or IN_TEST_DONE, its ring
 *	validated
 *
 * Called from the event interrupt thread; the bridge is told from
 * process context, by mrpsim_mrp_work().  An event of an InTest stopped
 * or started afresh since (another generation) is dropped and counted.
 */
void mrpsim_mrp_in_event(struct mrpsim *sw, const struct mrpsim_event *ev)
{
	u8 gen = FIELD_GET(MRPSIM_EV_MRP_GEN_MASK, le32_to_cpu(ev->data));
	struct mrpsim_mrp *mrp = mrpsim_mrp_of_hw(sw, ev->ring);

	if (!mrp || READ_ONCE(mrp->in_gen) != gen) {
		atomic64_inc(&sw->mrp_stale_events);
		return;
	}
	if (ev->type == MRPSIM_EV_IN_TEST_DONE) {
		set_bit(ev->ring, &sw->in_test_done);
		schedule_work(&sw->mrp_work);
		return;
	}
	WRITE_ONCE(sw->in_ev_gen[ev->ring], gen);
	if (ev->type == MRPSIM_EV_IN_LOSS) {
		set_bit(ev->ring, &sw->in_lost);
	} else {
		WRITE_ONCE(sw->in_regain_port[ev->ring], ev->port);
		clear_bit(ev->ring, &sw->in_lost);
	}
	/* Pairs with atomic_xchg() in mrpsim_mrp_in_take(). */
	smp_mb__before_atomic();
	atomic_inc(&sw->in_changes[ev->ring]);
	schedule_work(&sw->mrp_work);
}

/**
 * mrpsim_mrp_assist_event() - the recovery assist acted on its own
 * @sw: the switch
 * @ev: the MRP_ASSIST event, its ring validated
 *
 * Called from the event interrupt thread.  FLUSHED: the ring ports'
 * learned entries are gone, which the FDB work reads back.  OPENED: the
 * secondary port forwards, which mrpsim_mrp_assist_work() takes with
 * RTNL, the lock under which the bridge sets port states.
 */
void mrpsim_mrp_assist_event(struct mrpsim *sw, const struct mrpsim_event *ev)
{
	struct mrpsim_mrp *mrp = mrpsim_mrp_of_hw(sw, ev->ring);
	u32 data = le32_to_cpu(ev->data);
	struct net_device *dev[2];
	unsigned long ports = 0;
	unsigned int k;

	if (data & MRPSIM_EV_ASSIST_OPENED) {
		atomic64_inc(&sw->assist_opens);
		/* Before any regain event of the ring, which comes after this
		 * one in the queue.
		 */
		set_bit(ev->ring, &sw->assist_hold);
		set_bit(ev->ring, &sw->assist_opened);
		schedule_work(&sw->assist_work);
	}
	if (!(data & MRPSIM_EV_ASSIST_FLUSHED))
		return;
	atomic64_inc(&sw->assist_flushes);
	if (!mrp)
		return;
	dev[0] = READ_ONCE(mrp->p_dev);
	dev[1] = READ_ONCE(mrp->s_dev);
	for (k = 0; k < 2; k++) {
		struct mrpsim_port *port = mrpsim_mrp_local(sw, dev[k]);

		if (port)
			ports |= BIT(port->index);
	}
	mrpsim_fdb_ports_flushed(sw, ports);
}

/* The ring port of engine instance @hw that blocked forwards if the
 * assist opened the ring and the bridge has not set its state since: take
 * it as the port's state, until the bridge sets one.  That port is the
 * secondary, or the primary if mrpd swapped their roles, which it keeps
 * to itself (the bridge cannot swap them).
 */
static void mrpsim_mrp_assist_take(struct mrpsim *sw, int hw)
{
	struct mrpsim_mrp *mrp = mrpsim_mrp_of_hw(sw, hw);
	struct net_device *dev[2];
	struct mrpsim_port *port;
	unsigned int k;
	u32 ctrl;

	if (!mrp || !mrp->br || !mrp->role_hw)
		return;
	dev[0] = mrp->p_dev;
	dev[1] = mrp->s_dev;
	for (k = 0; k < 2; k++) {
		port = mrpsim_mrp_local(sw, dev[k]);
		if (!port || port->stp_state != BR_STATE_BLOCKING)
			continue;
		ctrl = mrpsim_port_read(port, MRPSIM_PORT_CTRL);
		if (FIELD_GET(MRPSIM_PORT_CTRL_STATE_MASK, ctrl) !=
		    MRPSIM_PSTATE_FORWARDING)
			continue;
		netdev_dbg(port->netdev,
			   "MRP ring %u: the recovery assist set the port forwarding\n",
			   mrp->ring_id);
		port->stp_state = BR_STATE_FORWARDING;
	}
}

/**
 * mrpsim_mrp_assist_work() - take what the recovery assist did
 * @work: the switch's assist_work
 */
void mrpsim_mrp_assist_work(struct work_struct *work)
{
	struct mrpsim *sw = container_of(work, struct mrpsim, assist_work);
	int hw;

	rtnl_lock();
	mutex_lock(&sw->mrp_lock);
	for (hw = 0; hw < sw->num_rings; hw++)
		if (test_and_clear_bit(hw, &sw->assist_opened))
			mrpsim_mrp_assist_take(sw, hw);
	mutex_unlock(&sw->mrp_lock);
	rtnl_unlock();
}

/**
 * mrpsim_mrp_set_assist() - turn the recovery assist on or off
 * @sw: the switch, with CAP.ASSIST
 * @on: use it
 *
 * Applies to the rings the engine runs now and to those it runs later.
 */
void mrpsim_mrp_set_assist(struct mrpsim *sw, bool on)
{
	unsigned int i;

	mutex_lock(&sw->mrp_lock);
	WRITE_ONCE(sw->assist, on);
	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++) {
		struct mrpsim_mrp *mrp = &sw->mrp[i];

		if (mrp->br && mrp->hw != MRPSIM_MRP_NO_HW)
			mrpsim_mrp_write(sw, mrp->hw, MRPSIM_MRP_ASSIST,
					 mrpsim_mrp_assist_val(sw, mrp));
	}
	mutex_unlock(&sw->mrp_lock);
}

/**
 * mrpsim_mrp_init() - initialise the ring table of a switch
 * @sw: the switch
 */
void mrpsim_mrp_init(struct mrpsim *sw)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		sw->mrp[i].hw = MRPSIM_MRP_NO_HW;
}
