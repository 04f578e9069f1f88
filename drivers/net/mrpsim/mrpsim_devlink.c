// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: devlink instance, ports and parameters.
 *
 * Each switch is a devlink instance whose private data is struct mrpsim;
 * each of its ports a devlink port of flavour physical, numbered as the
 * device numbers it, with the switch's base MAC as switch id.  devlink
 * gives the port netdevs their phys_port_name ("p<N>") and
 * phys_switch_id.
 *
 * Three driver-specific runtime parameters choose what the device does
 * in place of the bridge:
 *
 * - mrp_offload: rings run in the device's MRP engine (default), or the
 *   bridge runs MRP in software and the device only traps MRP frames to
 *   the CPU.  A ring keeps the way it was added: the parameter changes
 *   only while the switch has no ring.
 * - l2_offload: the ports of the switch in one bridge forward to each
 *   other in the device (mrpsim_fdb.c), or every frame reaches the CPU
 *   and the bridge forwards it.  It changes only while no port of the
 *   switch is a bridge port: a port joins its bridge one way or the
 *   other.
 * - mrp_assist: the engine's recovery assist (mrpsim_mrp.c), off by
 *   default: a manager's switch opens the ring on its own when it loses
 *   continuity, and a client's flushes its ring ports on a
 *   TopologyChange.  It changes at any time, for the rings the engine
 *   runs and those it runs later.
 *
 * Each refuses to turn on what the device lacks.  They change under
 * RTNL, which every reader of mrp_engine and l2 but the event thread
 * holds.
 *
 * The devlink API differs between the kernels the driver builds against;
 * the Makefile says which this is: up to 6.1 a netdev finds its devlink
 * port through ndo_get_devlink_port() and the driver sets the port's type
 * (MRPSIM_NDO_DEVLINK_PORT) and the driver names itself in devlink dev
 * info (MRPSIM_INFO_DRIVER_NAME), from 6.8 on a parameter's set() takes
 * an extack (MRPSIM_PARAM_SET_EXTACK).
 */

#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/devlink.h>

#include "mrpsim.h"

enum mrpsim_devlink_param_id {
	MRPSIM_DEVLINK_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	MRPSIM_DEVLINK_PARAM_ID_MRP_OFFLOAD,
	MRPSIM_DEVLINK_PARAM_ID_L2_OFFLOAD,
	MRPSIM_DEVLINK_PARAM_ID_MRP_ASSIST,
};

/* devlink dev info: what identifies the switch.  It has no firmware and
 * no serial number of its own: its base MAC is the switch id, and
 * asic.rev is the VERSION register, which ethtool -i calls the firmware
 * version.
 */
static int mrpsim_devlink_info_get(struct devlink *devlink,
				   struct devlink_info_req *req,
				   struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = devlink_priv(devlink);
	char buf[32];
	int err;

#ifdef MRPSIM_INFO_DRIVER_NAME
	err = devlink_info_driver_name_put(req, KBUILD_MODNAME);
	if (err)
		return err;
#endif
	snprintf(buf, sizeof(buf), "%pM", sw->base_mac);
	err = devlink_info_serial_number_put(req, buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%04x:%04x", sw->pdev->vendor,
		 sw->pdev->device);
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_ASIC_ID,
					     buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%u.%u", MRPSIM_VER_MAJOR(sw->version),
		 MRPSIM_VER_MINOR(sw->version));

	return devlink_info_version_fixed_put(req,
					      DEVLINK_INFO_VERSION_GENERIC_ASIC_REV,
					      buf);
}

static const struct devlink_ops mrpsim_devlink_ops = {
	.info_get = mrpsim_devlink_info_get,
};

static bool mrpsim_has_mrp_ring(struct mrpsim *sw)
{
	unsigned int i;

	ASSERT_RTNL();
	for (i = 0; i < ARRAY_SIZE(sw->mrp); i++)
		if (sw->mrp[i].br)
			return true;

	return false;
}

static bool mrpsim_has_bridge_port(struct mrpsim *sw)
{
	unsigned int i;

	ASSERT_RTNL();
	for (i = 0; i < sw->num_ports; i++)
		if (sw->ports[i]->bridge ||
		    netif_is_bridge_port(sw->ports[i]->netdev))
			return true;

	return false;
}

/* Can parameter @id take @on now?  With RTNL. */
static int mrpsim_devlink_param_check(struct mrpsim *sw, u32 id, bool on,
				      struct netlink_ext_ack *extack)
{
	ASSERT_RTNL();
	switch (id) {
	case MRPSIM_DEVLINK_PARAM_ID_MRP_OFFLOAD:
		if (on == sw->mrp_engine)
			return 0;
		if (on && !sw->num_rings) {
			NL_SET_ERR_MSG_MOD(extack,
					   "The device has no MRP engine");
			return -EOPNOTSUPP;
		}
		if (mrpsim_has_mrp_ring(sw)) {
			NL_SET_ERR_MSG_MOD(extack,
					   "The switch has MRP rings: delete them before changing mrp_offload");
			return -EBUSY;
		}
		return 0;
	case MRPSIM_DEVLINK_PARAM_ID_L2_OFFLOAD:
		if (on == sw->l2)
			return 0;
		if (on && !sw->l2_cap) {
			NL_SET_ERR_MSG_MOD(extack,
					   "The device has no L2 forwarding");
			return -EOPNOTSUPP;
		}
		if (mrpsim_has_bridge_port(sw)) {
			NL_SET_ERR_MSG_MOD(extack,
					   "A port of the switch is in a bridge: take the switch's ports out of their bridges before changing l2_offload");
			return -EBUSY;
		}
		return 0;
	case MRPSIM_DEVLINK_PARAM_ID_MRP_ASSIST:
		if (on && !sw->has_assist) {
			NL_SET_ERR_MSG_MOD(extack,
					   "The device's MRP engine has no recovery assist");
			return -EOPNOTSUPP;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

static int mrpsim_devlink_param_validate(struct devlink *devlink, u32 id,
					 union devlink_param_value val,
					 struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = devlink_priv(devlink);
	int err;

	rtnl_lock();
	err = mrpsim_devlink_param_check(sw, id, val.vbool, extack);
	rtnl_unlock();

	return err;
}

static int mrpsim_devlink_param_get(struct devlink *devlink, u32 id,
				    struct devlink_param_gset_ctx *ctx)
{
	struct mrpsim *sw = devlink_priv(devlink);

	switch (id) {
	case MRPSIM_DEVLINK_PARAM_ID_MRP_OFFLOAD:
		ctx->val.vbool = READ_ONCE(sw->mrp_engine);
		return 0;
	case MRPSIM_DEVLINK_PARAM_ID_L2_OFFLOAD:
		ctx->val.vbool = READ_ONCE(sw->l2);
		return 0;
	case MRPSIM_DEVLINK_PARAM_ID_MRP_ASSIST:
		ctx->val.vbool = READ_ONCE(sw->assist);
		return 0;
	default:
		return -EINVAL;
	}
}

/* validate() said yes, but a ring or a bridge port may have come since:
 * ask again, with RTNL held until the change is made.  @extack may be
 * NULL (before 6.8): then the kernel log says why.
 */
static const char *mrpsim_devlink_param_name(u32 id)
{
	switch (id) {
	case MRPSIM_DEVLINK_PARAM_ID_MRP_OFFLOAD:
		return "mrp_offload";
	case MRPSIM_DEVLINK_PARAM_ID_L2_OFFLOAD:
		return "l2_offload";
	default:
		return "mrp_assist";
	}
}

static int mrpsim_devlink_param_apply(struct devlink *devlink, u32 id,
				      bool on, struct netlink_ext_ack *extack)
{
	struct mrpsim *sw = devlink_priv(devlink);
	struct device *dev = &sw->pdev->dev;
	int err;

	rtnl_lock();
	err = mrpsim_devlink_param_check(sw, id, on, extack);
	if (err) {
		if (!extack)
			dev_err(dev, "cannot change devlink parameter %s: %s\n",
				mrpsim_devlink_param_name(id),
				err == -EBUSY ? "in use" : "not supported");
		goto out;
	}

	switch (id) {
	case MRPSIM_DEVLINK_PARAM_ID_MRP_OFFLOAD:
		if (on == sw->mrp_engine)
			break;
		WRITE_ONCE(sw->mrp_engine, on);
		dev_info(dev, "MRP %s\n", on ? "offloaded" : "in software");
		break;
	case MRPSIM_DEVLINK_PARAM_ID_L2_OFFLOAD:
		if (on == sw->l2)
			break;
		mrpsim_l2_enable(sw, on);
		dev_info(dev, "L2 forwarding %s\n",
			 on ? "offloaded" : "in software");
		break;
	case MRPSIM_DEVLINK_PARAM_ID_MRP_ASSIST:
		if (on == sw->assist)
			break;
		mrpsim_mrp_set_assist(sw, on);
		dev_info(dev, "MRP recovery assist %s\n", on ? "on" : "off");
		break;
	}
out:
	rtnl_unlock();

	return err;
}

#ifdef MRPSIM_PARAM_SET_EXTACK
static int mrpsim_devlink_param_set(struct devlink *devlink, u32 id,
				    struct devlink_param_gset_ctx *ctx,
				    struct netlink_ext_ack *extack)
{
	return mrpsim_devlink_param_apply(devlink, id, ctx->val.vbool, extack);
}
#else
static int mrpsim_devlink_param_set(struct devlink *devlink, u32 id,
				    struct devlink_param_gset_ctx *ctx)
{
	return mrpsim_devlink_param_apply(devlink, id, ctx->val.vbool, NULL);
}
#endif

static const struct devlink_param mrpsim_devlink_params[] = {
	DEVLINK_PARAM_DRIVER(MRPSIM_DEVLINK_PARAM_ID_MRP_OFFLOAD,
			     "mrp_offload", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     mrpsim_devlink_param_get,
			     mrpsim_devlink_param_set,
			     mrpsim_devlink_param_validate),
	DEVLINK_PARAM_DRIVER(MRPSIM_DEVLINK_PARAM_ID_L2_OFFLOAD,
			     "l2_offload", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     mrpsim_devlink_param_get,
			     mrpsim_devlink_param_set,
			     mrpsim_devlink_param_validate),
	DEVLINK_PARAM_DRIVER(MRPSIM_DEVLINK_PARAM_ID_MRP_ASSIST,
			     "mrp_assist", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     mrpsim_devlink_param_get,
			     mrpsim_devlink_param_set,
			     mrpsim_devlink_param_validate),
};

static void mrpsim_devlink_free(void *data)
{
	devlink_free(data);
}

/**
 * mrpsim_devlink_alloc() - allocate a switch as a devlink instance
 * @dev: the switch's PCI device
 *
 * The instance is freed when @dev's managed resources are released: it
 * is the first of them, so it goes last, after remove() and after the
 * pcim mappings, and no error path of probe() has to free it.
 *
 * Return: the switch, zeroed, or NULL.
 */
struct mrpsim *mrpsim_devlink_alloc(struct device *dev)
{
	struct devlink *devlink;

	devlink = devlink_alloc(&mrpsim_devlink_ops, sizeof(struct mrpsim),
				dev);
	if (!devlink)
		return NULL;
	if (devm_add_action_or_reset(dev, mrpsim_devlink_free, devlink))
		return NULL;

	return devlink_priv(devlink);
}

/**
 * mrpsim_devlink_params_register() - register the switch's parameters
 * @sw: the switch, not registered with devlink yet
 *
 * Return: 0 or a negative error code.
 */
int mrpsim_devlink_params_register(struct mrpsim *sw)
{
	return devlink_params_register(priv_to_devlink(sw),
				       mrpsim_devlink_params,
				       ARRAY_SIZE(mrpsim_devlink_params));
}

/**
 * mrpsim_devlink_params_unregister() - unregister the switch's parameters
 * @sw: the switch, unregistered from devlink
 */
void mrpsim_devlink_params_unregister(struct mrpsim *sw)
{
	devlink_params_unregister(priv_to_devlink(sw), mrpsim_devlink_params,
				  ARRAY_SIZE(mrpsim_devlink_params));
}

/**
 * mrpsim_devlink_register() - make the switch visible to devlink users
 * @sw: the switch, fully set up
 */
void mrpsim_devlink_register(struct mrpsim *sw)
{
	devlink_register(priv_to_devlink(sw));
}

/**
 * mrpsim_devlink_unregister() - hide the switch from devlink users
 * @sw: the switch
 */
void mrpsim_devlink_unregister(struct mrpsim *sw)
{
	devlink_unregister(priv_to_devlink(sw));
}

/**
 * mrpsim_devlink_port_register() - register a port's devlink port
 * @port: the port, its netdev not registered yet
 *
 * Return: 0 or a negative error code.
 */
int mrpsim_devlink_port_register(struct mrpsim_port *port)
{
	struct devlink_port_attrs attrs = {
		.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL,
		.phys.port_number = port->index,
		.switch_id.id_len = sizeof(port->sw->base_mac),
	};
	int err;

	memcpy(attrs.switch_id.id, port->sw->base_mac, attrs.switch_id.id_len);
	devlink_port_attrs_set(&port->dl_port, &attrs);
	err = devlink_port_register(priv_to_devlink(port->sw), &port->dl_port,
				    port->index);
	if (err)
		return err;
#ifndef MRPSIM_NDO_DEVLINK_PORT
	SET_NETDEV_DEVLINK_PORT(port->netdev, &port->dl_port);
#endif

	return 0;
}

/**
 * mrpsim_devlink_port_netdev_registered() - a port's netdev was registered
 * @port: the port
 */
void mrpsim_devlink_port_netdev_registered(struct mrpsim_port *port)
{
#ifdef MRPSIM_NDO_DEVLINK_PORT
	devlink_port_type_eth_set(&port->dl_port, port->netdev);
#endif
}

/**
 * mrpsim_devlink_port_netdev_unregistering() - a port's netdev is about to
 *	be unregistered
 * @port: the port
 */
void mrpsim_devlink_port_netdev_unregistering(struct mrpsim_port *port)
{
#ifdef MRPSIM_NDO_DEVLINK_PORT
	devlink_port_type_clear(&port->dl_port);
#endif
}

/**
 * mrpsim_devlink_port_unregister() - unregister a port's devlink port
 * @port: the port, its netdev unregistered
 */
void mrpsim_devlink_port_unregister(struct mrpsim_port *port)
{
	devlink_port_unregister(&port->dl_port);
}

#ifdef MRPSIM_NDO_DEVLINK_PORT
/**
 * mrpsim_get_devlink_port() - ndo_get_devlink_port of a port's netdev
 * @netdev: the netdev
 *
 * Return: the port's devlink port.
 */
struct devlink_port *mrpsim_get_devlink_port(struct net_device *netdev)
{
	struct mrpsim_port *port = netdev_priv(netdev);

	return &port->dl_port;
}
#endif
