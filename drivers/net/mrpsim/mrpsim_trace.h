/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace events of the mrpsim driver: what the device told the driver, what
 * it reported to the bridge and what it wrote to a port's state.  Stamped on the guest's trace
 * clock, they place the driver between the device (QEMU's own trace
 * events, on the device's virtual clock) and userspace: make bench
 * aligns the two clocks on mrpsim_port_ctrl, the driver's half of the
 * device's trace event of the same name, and splits MRP's recovery into
 * interrupt, driver-to-bridge and bridge-to-mrpd stages.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrpsim

#if !defined(_MRPSIM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRPSIM_TRACE_H

#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

/* A device event as the driver takes it off the event queue. */
TRACE_EVENT(mrpsim_event,
	    TP_PROTO(const struct pci_dev *pdev, u8 type, u8 port, u8 ring,
		     u32 data),
	    TP_ARGS(pdev, type, port, ring, data),
	    TP_STRUCT__entry(__array(char, dev, 16)
			     __field(u8, type)
			     __field(u8, port)
			     __field(u8, ring)
			     __field(u32, data)),
	    TP_fast_assign(strscpy(__entry->dev, pci_name(pdev),
				   sizeof(__entry->dev));
			   __entry->type = type;
			   __entry->port = port;
			   __entry->ring = ring;
			   __entry->data = data;),
	    TP_printk("%s type %u port %u ring %u data 0x%x", __entry->dev,
		      __entry->type, __entry->port, __entry->ring,
		      __entry->data)
);

/* The driver writes a port's PORT_CTRL register. */
TRACE_EVENT(mrpsim_port_ctrl,
	    TP_PROTO(const struct net_device *netdev, bool en, u32 state),
	    TP_ARGS(netdev, en, state),
	    TP_STRUCT__entry(__array(char, name, IFNAMSIZ)
			     __field(bool, en)
			     __field(u32, state)),
	    TP_fast_assign(strscpy(__entry->name, netdev->name, IFNAMSIZ);
			   __entry->en = en;
			   __entry->state = state;),
	    TP_printk("%s en %d state %u", __entry->name, __entry->en,
		      __entry->state)
);

/* The driver reports loss (or regain) of ring continuity to the bridge. */
TRACE_EVENT(mrpsim_mrp_report,
	    TP_PROTO(const struct net_device *netdev, u32 ring_id, bool lost),
	    TP_ARGS(netdev, ring_id, lost),
	    TP_STRUCT__entry(__array(char, name, IFNAMSIZ)
			     __field(u32, ring_id)
			     __field(bool, lost)),
	    TP_fast_assign(strscpy(__entry->name, netdev->name, IFNAMSIZ);
			   __entry->ring_id = ring_id;
			   __entry->lost = lost;),
	    TP_printk("%s ring %u lost %d", __entry->name, __entry->ring_id,
		      __entry->lost)
);

#endif /* _MRPSIM_TRACE_H */

#undef TRACE_INCLUDE_PATH
/* found through the -I of the Makefile */
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mrpsim_trace
#include <trace/define_trace.h>
