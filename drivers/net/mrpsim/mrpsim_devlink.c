// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: devlink instance and ports.
 *
 * Each switch is a devlink instance whose private data is struct mrpsim;
 * each of its ports a devlink port of flavour physical, numbered as the
 * device numbers it, with the switch's base MAC as switch id.  devlink
 * gives the port netdevs their phys_port_name ("p<N>") and
 * phys_switch_id.
 *
 * The devlink API differs between the kernels the driver builds against;
 * the Makefile says which this is: up to 6.1 a netdev finds its devlink
 * port through ndo_get_devlink_port() and the driver sets the port's type
 * (MRPSIM_NDO_DEVLINK_PORT).
 */

#include <linux/device.h>
#include <linux/netdevice.h>
#include <net/devlink.h>

#include "mrpsim.h"

static const struct devlink_ops mrpsim_devlink_ops = {
};

static void mrpsim_devlink_free(void *data)
{
	devlink_free(data);
}

/**
 * mrpsim_devlink_alloc() - allocate a switch as a devlink instance
 * @dev: the switch's PCI device
 *
 * The instance is freed when @dev's managed resources are released.
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
