// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: bridge offload through switchdev.
 *
 * The ports of one switch join a bridge as one hardware domain
 * (switchdev_bridge_port_offload()), so that a frame the device already
 * forwarded (RX status FWD, marked with offload_fwd_mark) would not be
 * forwarded again by the bridge's normal forwarding path.  Data
 * forwarding stays in the bridge; the device takes the ports' STP state
 * and the MRP objects (mrpsim_mrp.c).
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

	port->bridge = br;

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
	port->bridge = NULL;
	port->stp_state = BR_STATE_FORWARDING;
	mrpsim_port_apply_state(port);
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

static int mrpsim_port_attr_set(struct net_device *dev, const void *ctx,
				const struct switchdev_attr *attr,
				struct netlink_ext_ack *extack)
{
	struct mrpsim_port *port = netdev_priv(dev);

	if (ctx && ctx != port)
		return 0;

	switch (attr->id) {
	case SWITCHDEV_ATTR_ID_PORT_STP_STATE:
		ASSERT_RTNL();
		port->stp_state = attr->u.stp_state;
		mrpsim_port_apply_state(port);
		return 0;
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
		/* Only attributes the driver ignores come this way. */
		err = switchdev_handle_port_attr_set(dev, ptr,
						     mrpsim_netdev_check,
						     mrpsim_port_attr_set);
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
