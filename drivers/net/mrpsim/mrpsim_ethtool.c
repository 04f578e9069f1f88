// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: ethtool operations.
 *
 * ethtool -S shows the device's per-port counters (MRP engine counters
 * included, whether the engine is used or not), then the driver's
 * per-port counters, then switch-wide counters: errors, events, the
 * FDB's entries in use and the entries it had no room for.
 */

#include <linux/ethtool.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/netdevice.h>
#include <linux/pci.h>

#include "mrpsim.h"

static const char * const mrpsim_hw_stat_names[MRPSIM_PORT_NUM_COUNTERS] =
	MRPSIM_PORT_COUNTER_NAMES;

struct mrpsim_stat_desc {
	char name[ETH_GSTRING_LEN];
	unsigned int offset;
};

#define MRPSIM_DRV_STAT(m)	{ #m, offsetof(struct mrpsim_drv_stats, m) }

static const struct mrpsim_stat_desc mrpsim_drv_stat_descs[] = {
	MRPSIM_DRV_STAT(rx_packets),
	MRPSIM_DRV_STAT(rx_bytes),
	MRPSIM_DRV_STAT(rx_dropped),
	MRPSIM_DRV_STAT(rx_errors),
	MRPSIM_DRV_STAT(rx_fwd_offload),
	MRPSIM_DRV_STAT(rx_mrp),
	MRPSIM_DRV_STAT(rx_mrp_test),
	MRPSIM_DRV_STAT(tx_packets),
	MRPSIM_DRV_STAT(tx_bytes),
	MRPSIM_DRV_STAT(tx_errors),
	MRPSIM_DRV_STAT(tx_dropped),
	MRPSIM_DRV_STAT(tx_ring_full),
	MRPSIM_DRV_STAT(link_events),
	MRPSIM_DRV_STAT(mrp_loss_events),
	MRPSIM_DRV_STAT(mrp_regain_events),
	MRPSIM_DRV_STAT(dev_errors),
	MRPSIM_DRV_STAT(ring_restarts),
	MRPSIM_DRV_STAT(tx_pending),
	MRPSIM_DRV_STAT(tx_unsignalled),
};

/* Switch-wide counters, the same on every port of the switch. */
enum mrpsim_sw_stat {
	MRPSIM_SW_ERR_DMA,
	MRPSIM_SW_ERR_RING,
	MRPSIM_SW_ERR_INDEX,
	MRPSIM_SW_ERR_LEN,
	MRPSIM_SW_ERR_EVQ_FULL,
	MRPSIM_SW_ERR_REG,
	MRPSIM_SW_EVQ_DROPS,
	MRPSIM_SW_BAD_EVENTS,
	MRPSIM_SW_EVQ_RESTARTS,
	MRPSIM_SW_MRP_STALE_EVENTS,
	MRPSIM_SW_FDB_ENTRIES,
	MRPSIM_SW_FDB_ADD_FULL,
	MRPSIM_SW_FDB_RESCANS,
	MRPSIM_SW_FDB_STALE_EVENTS,
	MRPSIM_SW_MRP_ASSIST_OPENS,
	MRPSIM_SW_MRP_ASSIST_FLUSHES,
	MRPSIM_SW_NUM_STATS
};

static const char * const mrpsim_sw_stat_names[MRPSIM_SW_NUM_STATS] = {
	[MRPSIM_SW_ERR_DMA]		= "sw_err_dma",
	[MRPSIM_SW_ERR_RING]		= "sw_err_ring",
	[MRPSIM_SW_ERR_INDEX]		= "sw_err_index",
	[MRPSIM_SW_ERR_LEN]		= "sw_err_len",
	[MRPSIM_SW_ERR_EVQ_FULL]	= "sw_err_evq_full",
	[MRPSIM_SW_ERR_REG]		= "sw_err_reg",
	[MRPSIM_SW_EVQ_DROPS]		= "sw_evq_drops",
	[MRPSIM_SW_BAD_EVENTS]		= "sw_bad_events",
	[MRPSIM_SW_EVQ_RESTARTS]	= "sw_evq_restarts",
	[MRPSIM_SW_MRP_STALE_EVENTS]	= "sw_mrp_stale_events",
	[MRPSIM_SW_FDB_ENTRIES]		= "sw_fdb_entries",
	[MRPSIM_SW_FDB_ADD_FULL]	= "sw_fdb_add_full",
	[MRPSIM_SW_FDB_RESCANS]		= "sw_fdb_rescans",
	[MRPSIM_SW_FDB_STALE_EVENTS]	= "sw_fdb_stale_events",
	[MRPSIM_SW_MRP_ASSIST_OPENS]	= "sw_mrp_assist_opens",
	[MRPSIM_SW_MRP_ASSIST_FLUSHES]	= "sw_mrp_assist_flushes",
};

#define MRPSIM_NUM_STATS	(MRPSIM_PORT_NUM_COUNTERS + \
				 ARRAY_SIZE(mrpsim_drv_stat_descs) + \
				 MRPSIM_SW_NUM_STATS)

static void mrpsim_get_drvinfo(struct net_device *netdev,
			       struct ethtool_drvinfo *info)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	struct mrpsim *sw = port->sw;

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(sw->pdev), sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u",
		 MRPSIM_VER_MAJOR(sw->version), MRPSIM_VER_MINOR(sw->version));
}

static int mrpsim_get_sset_count(struct net_device *netdev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;

	return MRPSIM_NUM_STATS;
}

static void mrpsim_put_string(u8 **data, const char *s)
{
	strscpy((char *)*data, s, ETH_GSTRING_LEN);
	*data += ETH_GSTRING_LEN;
}

static void mrpsim_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;

	for (i = 0; i < ARRAY_SIZE(mrpsim_hw_stat_names); i++)
		mrpsim_put_string(&data, mrpsim_hw_stat_names[i]);
	for (i = 0; i < ARRAY_SIZE(mrpsim_drv_stat_descs); i++)
		mrpsim_put_string(&data, mrpsim_drv_stat_descs[i].name);
	for (i = 0; i < ARRAY_SIZE(mrpsim_sw_stat_names); i++)
		mrpsim_put_string(&data, mrpsim_sw_stat_names[i]);
}

static void mrpsim_get_ethtool_stats(struct net_device *netdev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	struct mrpsim *sw = port->sw;
	struct mrpsim_drv_stats s;
	unsigned int i;
	u64 *sw_data;

	/* Reading the low half of a counter latches its high half. */
	spin_lock(&sw->cnt_lock);
	for (i = 0; i < MRPSIM_PORT_NUM_COUNTERS; i++)
		*data++ = lo_hi_readq(port->regs + MRPSIM_PORT_CNT(i));
	spin_unlock(&sw->cnt_lock);

	mrpsim_port_get_drv_stats(port, &s);
	mrpsim_port_get_tx_gauges(port, &s);
	for (i = 0; i < ARRAY_SIZE(mrpsim_drv_stat_descs); i++)
		*data++ = *(u64 *)((u8 *)&s + mrpsim_drv_stat_descs[i].offset);

	sw_data = data;
	sw_data[MRPSIM_SW_ERR_DMA] = atomic64_read(&sw->errors[MRPSIM_ERR_DMA]);
	sw_data[MRPSIM_SW_ERR_RING] =
		atomic64_read(&sw->errors[MRPSIM_ERR_RING]);
	sw_data[MRPSIM_SW_ERR_INDEX] =
		atomic64_read(&sw->errors[MRPSIM_ERR_INDEX]);
	sw_data[MRPSIM_SW_ERR_LEN] = atomic64_read(&sw->errors[MRPSIM_ERR_LEN]);
	sw_data[MRPSIM_SW_ERR_EVQ_FULL] =
		atomic64_read(&sw->errors[MRPSIM_ERR_EVQ_FULL]);
	sw_data[MRPSIM_SW_ERR_REG] = atomic64_read(&sw->errors[MRPSIM_ERR_REG]);
	sw_data[MRPSIM_SW_EVQ_DROPS] = mrpsim_read(sw, MRPSIM_REG_EVQ_DROPS);
	sw_data[MRPSIM_SW_BAD_EVENTS] = atomic64_read(&sw->bad_events);
	sw_data[MRPSIM_SW_EVQ_RESTARTS] = atomic64_read(&sw->evq_restarts);
	sw_data[MRPSIM_SW_MRP_STALE_EVENTS] =
		atomic64_read(&sw->mrp_stale_events);
	/* a gauge: the device's entries in use, learned ones included */
	sw_data[MRPSIM_SW_FDB_ENTRIES] =
		sw->l2 ? mrpsim_read(sw, MRPSIM_REG_FDB_COUNT) : 0;
	sw_data[MRPSIM_SW_FDB_ADD_FULL] = atomic64_read(&sw->fdb.add_full);
	sw_data[MRPSIM_SW_FDB_RESCANS] = atomic64_read(&sw->fdb.rescans);
	sw_data[MRPSIM_SW_FDB_STALE_EVENTS] =
		atomic64_read(&sw->fdb.stale_events);
	sw_data[MRPSIM_SW_MRP_ASSIST_OPENS] = atomic64_read(&sw->assist_opens);
	sw_data[MRPSIM_SW_MRP_ASSIST_FLUSHES] =
		atomic64_read(&sw->assist_flushes);
}

static void mrpsim_get_ringparam(struct net_device *netdev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	ring->rx_max_pending = MRPSIM_RX_RING_SIZE - 1;
	ring->tx_max_pending = MRPSIM_TX_RING_SIZE - 1;
	ring->rx_pending = MRPSIM_RX_RING_SIZE - 1;
	ring->tx_pending = MRPSIM_TX_RING_SIZE - 1;
}

const struct ethtool_ops mrpsim_ethtool_ops = {
	.get_drvinfo		= mrpsim_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= mrpsim_get_ringparam,
	.get_sset_count		= mrpsim_get_sset_count,
	.get_strings		= mrpsim_get_strings,
	.get_ethtool_stats	= mrpsim_get_ethtool_stats,
};
