// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: bridge offload through switchdev.
 *
 * The ports of one switch join a bridge as one hardware domain
 * (switchdev_bridge_port_offload()).  On a device with L2 forwarding
 * (CAP.L2) the switch forwards between its ports in the bridge and learns
 * addresses itself: the driver takes the ports' STP states, bridge port
 * flags, the bridge's ageing time and FDB to the device and the entries
 * it learned back to the bridge (mrpsim_fdb.c).  A frame the switch
 * flooded also reaches the CPU marked with offload_fwd_mark, so that the
 * bridge forwards it only to ports outside the switch.  Such a switch
 * forwards without VLANs: it refuses VLAN filtering.  On an older device
 * data forwarding stays in the bridge.  Either way the device takes the
 * MRP objects (mrpsim_mrp.c).
 */

#include <linux/if_bridge.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <net/switchdev.h>

#include "mrpsim.h"

/**
 * mrpsim_netdev_check() - is a netdev a port of this driver
 * @dev: the netdev
 *
 * Return: true if @dev is an mrpsim port.
 */
bool mrpsim_netdev_check(const struct net_device *dev)
{
	return dev->netdev_ops == &mrpsim_netdev_ops;
}

static struct notifier_block mrpsim_switchdev_nb;
static struct notifier_block mrpsim_switchdev_blocking_nb;

#define MRPSIM_NO_VLAN_MSG \
	"VLAN filtering is not offloaded: the switch forwards without VLANs"

static int mrpsim_bridge_join(struct mrpsim_port *port,
			      struct net_device *br,
			      struct netlink_ext_ack *extack)
{
	int err;

	err = switchdev_bridge_port_offload(port->netdev, port->netdev, port,
					    &mrpsim_switchdev_nb,
					    &mrpsim_switchdev_blocking_nb,
					    false, extack);
	if (err)
		return err;

	WRITE_ONCE(port->bridge, br);
	if (port->sw->l2)
		mrpsim_l2_port_join(port);

	return 0;
}

static void mrpsim_bridge_leave(struct mrpsim_port *port)
{
	/* The bridge deleted the port's MRP ring before unlinking it; make
	 * sure nothing of it is left in the device.
	 */
	mrpsim_mrp_port_leave(port);

	switchdev_bridge_port_unoffload(port->netdev, port,
					&mrpsim_switchdev_nb,
					&mrpsim_switchdev_blocking_nb);
	WRITE_ONCE(port->bridge, NULL);
	port->stp_state = BR_STATE_FORWARDING;
	if (port->sw->l2)
		mrpsim_l2_port_leave(port);
	else
		mrpsim_port_apply_state(port);
}

/* A switch that forwards without VLANs stays out of a VLAN-aware bridge. */
static int mrpsim_port_prechangeupper(struct net_device *dev,
				      struct netdev_notifier_changeupper_info *info)
{
	struct mrpsim_port *port = netdev_priv(dev);
	struct netlink_ext_ack *extack;

	if (!info->linking || !netif_is_bridge_master(info->upper_dev) ||
	    !port->sw->l2 || !br_vlan_enabled(info->upper_dev))
		return 0;

	extack = netdev_notifier_info_to_extack(&info->info);
	NL_SET_ERR_MSG_MOD(extack, MRPSIM_NO_VLAN_MSG);

	return -EOPNOTSUPP;
}

static int mrpsim_port_changeupper(struct net_device *dev,
				   struct netdev_notifier_changeupper_info *info)
{
	struct mrpsim_port *port = netdev_priv(dev);
	struct netlink_ext_ack *extack;

	if (!netif_is_bridge_master(info->upper_dev))
		return 0;

	extack = netdev_notifier_info_to_extack(&info->info);
	if (info->linking)
		return mrpsim_bridge_join(port, info->upper_dev, extack);

	if (port->bridge == info->upper_dev)
		mrpsim_bridge_leave(port);

	return 0;
}

static void mrpsim_bridge_changeaddr(struct net_device *br)
{
	struct net_device *lower;
	struct list_head *iter;

	/* The engine puts the bridge's address in its test frames. */
	netdev_for_each_lower_dev(br, lower, iter) {
		struct mrpsim_port *port = mrpsim_port_from_netdev(lower);

		if (port)
			mrpsim_mrp_bridge_addr_changed(port->sw, br);
	}
}

static int mrpsim_netdevice_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	int err = 0;

	switch (event) {
	case NETDEV_PRECHANGEUPPER:
		if (mrpsim_netdev_check(dev))
			err = mrpsim_port_prechangeupper(dev, ptr);
		break;
	case NETDEV_CHANGEUPPER:
		if (mrpsim_netdev_check(dev))
			err = mrpsim_port_changeupper(dev, ptr);
		break;
	case NETDEV_CHANGEADDR:
		if (netif_is_bridge_master(dev))
			mrpsim_bridge_changeaddr(dev);
		break;
	}

	return notifier_from_errno(err);
}

/* Bridge port flags the device cannot take are refused (the bridge
 * asks from atomic context), those it can are taken when the bridge sets
 * them.
 */
static int mrpsim_port_pre_bridge_flags(struct mrpsim_port *port,
					unsigned long mask,
					struct netlink_ext_ack *extack)
{
	if (!port->sw->l2)
		return -EOPNOTSUPP;
	if (mask & ~MRPSIM_BRPORT_FLAGS) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Bridge port flag not offloaded by the switch");
		return -EINVAL;
	}

	return 0;
}

static int mrpsim_port_bridge_flags(struct mrpsim_port *port,
				    struct switchdev_brport_flags flags)
{
	ASSERT_RTNL();
	if (!port->sw->l2)
		return -EOPNOTSUPP;
	port->brport_flags &= ~flags.mask;
	port->brport_flags |= flags.val & flags.mask & MRPSIM_BRPORT_FLAGS;
	mrpsim_port_apply_state(port);

	return 0;
}

static int mrpsim_port_attr_set(struct net_device *dev, const void *ctx,
				const struct switchdev_attr *attr,
				struct netlink_ext_ack *extack)
{
	struct mrpsim_port *port = netdev_priv(dev);
	u8 old;

	if (ctx && ctx != port)
		return 0;

	switch (attr->id) {
	case SWITCHDEV_ATTR_ID_PORT_STP_STATE:
		ASSERT_RTNL();
		/* A port the bridge failed to add (a VLAN-aware bridge
		 * refused in nbp_vlan_init()) left it before the bridge's
		 * deferred "disabled" arrives: a standalone port forwards.
		 */
		if (!port->bridge)
			return 0;
		old = port->stp_state;
		port->stp_state = attr->u.stp_state;
		mrpsim_port_apply_state(port);
		if (port->sw->l2)
			mrpsim_l2_stp_state_changed(port, old);
		return 0;
	case SWITCHDEV_ATTR_ID_PORT_PRE_BRIDGE_FLAGS:
		return mrpsim_port_pre_bridge_flags(port,
						    attr->u.brport_flags.mask,
						    extack);
	case SWITCHDEV_ATTR_ID_PORT_BRIDGE_FLAGS:
		return mrpsim_port_bridge_flags(port, attr->u.brport_flags);
	case SWITCHDEV_ATTR_ID_BRIDGE_AGEING_TIME:
		if (!port->sw->l2)
			return -EOPNOTSUPP;
		return mrpsim_l2_set_ageing(port, attr->u.ageing_time, extack);
	case SWITCHDEV_ATTR_ID_BRIDGE_VLAN_FILTERING:
		if (!port->sw->l2 || !attr->u.vlan_filtering)
			return -EOPNOTSUPP;
		/* Not -EOPNOTSUPP: the bridge would filter in software. */
		NL_SET_ERR_MSG_MOD(extack, MRPSIM_NO_VLAN_MSG);
		return -EINVAL;
	case SWITCHDEV_ATTR_ID_MRP_PORT_ROLE:
		ASSERT_RTNL();
		return mrpsim_mrp_port_role_set(port, attr->u.mrp_port_role);
	default:
		return -EOPNOTSUPP;
	}
}

static int mrpsim_port_obj_add(struct net_device *dev, const void *ctx,
			       const struct switchdev_obj *obj,
			       struct netlink_ext_ack *extack)
{
	struct mrpsim_port *port = netdev_priv(dev);

	if (ctx && ctx != port)
		return 0;

	return mrpsim_mrp_obj_add(port, obj, extack);
}

static int mrpsim_port_obj_del(struct net_device *dev, const void *ctx,
			       const struct switchdev_obj *obj)
{
	struct mrpsim_port *port = netdev_priv(dev);

	if (ctx && ctx != port)
		return 0;

	return mrpsim_mrp_obj_del(port, obj);
}

static int mrpsim_switchdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = switchdev_notifier_info_to_dev(ptr);
	int err;

	switch (event) {
	case SWITCHDEV_PORT_ATTR_SET:
		/* Only SWITCHDEV_ATTR_ID_PORT_PRE_BRIDGE_FLAGS, among the
		 * attributes the driver takes, comes this way.
		 */
		err = switchdev_handle_port_attr_set(dev, ptr,
						     mrpsim_netdev_check,
						     mrpsim_port_attr_set);
		return notifier_from_errno(err);
	case SWITCHDEV_FDB_ADD_TO_DEVICE:
	case SWITCHDEV_FDB_DEL_TO_DEVICE:
		err = switchdev_handle_fdb_event_to_device(dev, event, ptr,
							   mrpsim_netdev_check,
							   mrpsim_foreign_dev_check,
							   mrpsim_fdb_to_device);
		return notifier_from_errno(err);
	}

	return NOTIFY_DONE;
}

static int mrpsim_switchdev_blocking_event(struct notifier_block *nb,
					   unsigned long event, void *ptr)
{
	struct net_device *dev = switchdev_notifier_info_to_dev(ptr);
	int err;

	switch (event) {
	case SWITCHDEV_PORT_OBJ_ADD:
		err = switchdev_handle_port_obj_add(dev, ptr,
						    mrpsim_netdev_check,
						    mrpsim_port_obj_add);
		return notifier_from_errno(err);
	case SWITCHDEV_PORT_OBJ_DEL:
		err = switchdev_handle_port_obj_del(dev, ptr,
						    mrpsim_netdev_check,
						    mrpsim_port_obj_del);
		return notifier_from_errno(err);
	case SWITCHDEV_PORT_ATTR_SET:
		err = switchdev_handle_port_attr_set(dev, ptr,
						     mrpsim_netdev_check,
						     mrpsim_port_attr_set);
		return notifier_from_errno(err);
	}

	return NOTIFY_DONE;
}

static struct notifier_block mrpsim_netdevice_nb = {
	.notifier_call = mrpsim_netdevice_event,
};

static struct notifier_block mrpsim_switchdev_nb = {
	.notifier_call = mrpsim_switchdev_event,
};

static struct notifier_block mrpsim_switchdev_blocking_nb = {
	.notifier_call = mrpsim_switchdev_blocking_event,
};

/**
 * mrpsim_switchdev_register() - register the driver's notifiers
 *
 * Return: 0 or a negative error code.
 */
int mrpsim_switchdev_register(void)
{
	int err;

	err = register_netdevice_notifier(&mrpsim_netdevice_nb);
	if (err)
		return err;

	err = register_switchdev_notifier(&mrpsim_switchdev_nb);
	if (err)
		goto err_netdevice;

	err = register_switchdev_blocking_notifier(&mrpsim_switchdev_blocking_nb);
	if (err)
		goto err_switchdev;

	return 0;

err_switchdev:
	unregister_switchdev_notifier(&mrpsim_switchdev_nb);
err_netdevice:
	unregister_netdevice_notifier(&mrpsim_netdevice_nb);
	return err;
}

/**
 * mrpsim_switchdev_unregister() - unregister the driver's notifiers
 */
void mrpsim_switchdev_unregister(void)
{
	unregister_switchdev_blocking_notifier(&mrpsim_switchdev_blocking_nb);
	unregister_switchdev_notifier(&mrpsim_switchdev_nb);
	unregister_netdevice_notifier(&mrpsim_netdevice_nb);
}
