// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: port netdevs, descriptor rings and NAPI.
 *
 * Each port has one TX and one RX ring and one MSI-X vector for both.
 * The vector masks itself when it fires; the NAPI poll routine reclaims
 * TX descriptors, receives up to its budget and unmasks the vector when
 * it completes.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_bridge.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <uapi/linux/mrp_bridge.h>

#include "mrpsim.h"
#include "mrpsim_trace.h"

/* Start of an MRP PDU (IEC 62439-2): the version, then the first TLV. */
struct mrpsim_mrp_pdu_start {
	__be16 version;
	u8 tlv_type;
	u8 tlv_len;
} __packed;

static unsigned int mrpsim_tx_avail(const struct mrpsim_queue *q)
{
	/* Pairs with the release in mrpsim_tx_clean(). */
	unsigned int head = smp_load_acquire(&q->head);

	return q->size - 1 - (READ_ONCE(q->tail) - head);
}

static int mrpsim_queue_alloc(struct mrpsim_port *port,
			      struct mrpsim_queue *q, unsigned int size)
{
	struct device *dev = &port->sw->pdev->dev;

	q->size = size;
	q->head = 0;
	q->tail = 0;
	q->doorbell = 0;
	q->desc = dma_alloc_coherent(dev, size * sizeof(*q->desc),
				     &q->desc_dma, GFP_KERNEL);
	if (!q->desc)
		return -ENOMEM;

	q->buf = kcalloc(size, sizeof(*q->buf), GFP_KERNEL);
	if (!q->buf) {
		dma_free_coherent(dev, size * sizeof(*q->desc), q->desc,
				  q->desc_dma);
		q->desc = NULL;
		return -ENOMEM;
	}

	return 0;
}

static void mrpsim_queue_free(struct mrpsim_port *port,
			      struct mrpsim_queue *q,
			      enum dma_data_direction dir)
{
	struct device *dev = &port->sw->pdev->dev;
	unsigned int i;

	if (!q->desc)
		return;

	for (i = 0; i < q->size; i++) {
		struct mrpsim_buf *b = &q->buf[i];

		if (!b->skb)
			continue;
		dma_unmap_single(dev, b->dma, b->len, dir);
		dev_kfree_skb_any(b->skb);
		b->skb = NULL;
	}
	kfree(q->buf);
	q->buf = NULL;
	dma_free_coherent(dev, q->size * sizeof(*q->desc), q->desc,
			  q->desc_dma);
	q->desc = NULL;
}

static int mrpsim_queue_enable(struct mrpsim_queue *q)
{
	writel(lower_32_bits(q->desc_dma), q->regs + MRPSIM_Q_BASE_LO);
	writel(upper_32_bits(q->desc_dma), q->regs + MRPSIM_Q_BASE_HI);
	writel(q->size, q->regs + MRPSIM_Q_SIZE);
	writel(MRPSIM_Q_CTRL_EN, q->regs + MRPSIM_Q_CTRL);

	/* The device leaves a ring with a bad base or size disabled. */
	if (!(readl(q->regs + MRPSIM_Q_CTRL) & MRPSIM_Q_CTRL_EN))
		return -EIO;

	return 0;
}

static void mrpsim_queue_disable(struct mrpsim_queue *q)
{
	writel(0, q->regs + MRPSIM_Q_CTRL);
	/* Flush the write: once it has reached the device, the ring and its
	 * buffers are no longer accessed.
	 */
	readl(q->regs + MRPSIM_Q_CTRL);
}

static int mrpsim_rx_buf_map(struct mrpsim_port *port, struct mrpsim_buf *b,
			     struct sk_buff *skb)
{
	struct device *dev = &port->sw->pdev->dev;
	dma_addr_t dma;

	dma = dma_map_single(dev, skb->data, MRPSIM_RX_BUF_LEN,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dma))
		return -ENOMEM;

	b->skb = skb;
	b->dma = dma;
	b->len = MRPSIM_RX_BUF_LEN;

	return 0;
}

/* Hand every free descriptor of the RX ring to the device. */
static void mrpsim_rx_post(struct mrpsim_port *port)
{
	struct mrpsim_queue *q = &port->rxq;
	unsigned int mask = q->size - 1;
	unsigned int tail = q->tail;

	while (tail - q->head < q->size - 1) {
		struct mrpsim_desc *d = &q->desc[tail & mask];
		struct mrpsim_buf *b = &q->buf[tail & mask];

		d->addr = cpu_to_le64(b->dma);
		d->len = cpu_to_le16(b->len);
		d->meta = 0;
		d->status = 0;
		tail++;
	}

	if (tail == q->tail)
		return;
	q->tail = tail;
	/* writel() orders the descriptor writes before the doorbell. */
	writel(tail & mask, q->regs + MRPSIM_Q_TAIL);
}

static int mrpsim_rx_fill(struct mrpsim_port *port)
{
	struct mrpsim_queue *q = &port->rxq;
	struct sk_buff *skb;
	unsigned int i;

	/* Every descriptor always has a buffer: a received frame is only
	 * passed up once its replacement is allocated.
	 */
	for (i = 0; i < q->size; i++) {
		skb = __netdev_alloc_skb_ip_align(port->netdev,
						  MRPSIM_RX_BUF_LEN, GFP_KERNEL);
		if (!skb)
			return -ENOMEM;
		if (mrpsim_rx_buf_map(port, &q->buf[i], skb)) {
			dev_kfree_skb_any(skb);
			return -ENOMEM;
		}
	}

	return 0;
}

static bool mrpsim_is_mrp_test(struct sk_buff *skb)
{
	const struct mrpsim_mrp_pdu_start *pdu;

	if (!pskb_may_pull(skb, sizeof(*pdu)))
		return false;
	pdu = (const struct mrpsim_mrp_pdu_start *)skb->data;

	return pdu->tlv_type == BR_MRP_TLV_HEADER_RING_TEST;
}

static int mrpsim_rx(struct mrpsim_port *port, int budget)
{
	struct device *dev = &port->sw->pdev->dev;
	struct mrpsim_queue *q = &port->rxq;
	unsigned int mask = q->size - 1;
	unsigned int packets = 0, bytes = 0, dropped = 0, errors = 0;
	unsigned int fwd = 0, mrp = 0, mrp_test = 0;
	int done = 0;

	while (done < budget && q->head != q->tail) {
		struct mrpsim_desc *d = &q->desc[q->head & mask];
		struct mrpsim_buf *b = &q->buf[q->head & mask];
		struct sk_buff *skb, *new;
		struct mrpsim_buf nb;
		u16 status;
		u16 len;

		status = le16_to_cpu(READ_ONCE(d->status));
		if (!(status & MRPSIM_DESC_DONE))
			break;
		/* Read the rest of the descriptor after its status. */
		dma_rmb();
		len = le16_to_cpu(d->len);
		q->head++;
		done++;

		/* On any error the buffer stays on its descriptor and is
		 * posted again.
		 */
		if (unlikely(len < ETH_HLEN || len > b->len)) {
			errors++;
			continue;
		}

		/* Replace the buffer before passing the frame up; without
		 * memory the frame is dropped and its buffer reused.
		 */
		new = napi_alloc_skb(&port->napi, MRPSIM_RX_BUF_LEN);
		if (unlikely(!new)) {
			dropped++;
			continue;
		}
		if (unlikely(mrpsim_rx_buf_map(port, &nb, new))) {
			dev_kfree_skb_any(new);
			dropped++;
			continue;
		}
		skb = b->skb;
		dma_unmap_single(dev, b->dma, b->len, DMA_FROM_DEVICE);
		*b = nb;

		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, port->netdev);
		if (status & MRPSIM_DESC_FWD) {
			/* The device already flooded it to the other ports of
			 * the switch in the bridge: the bridge must forward it
			 * only to ports outside the switch.
			 */
			skb->offload_fwd_mark = 1;
			fwd++;
		}
		if (status & MRPSIM_DESC_MRP) {
			mrp++;
			if (skb->protocol == htons(ETH_P_MRP) &&
			    mrpsim_is_mrp_test(skb))
				mrp_test++;
		}
		packets++;
		bytes += len;
		napi_gro_receive(&port->napi, skb);
	}

	mrpsim_rx_post(port);

	if (done) {
		struct mrpsim_napi_stats *s = &port->nstats;

		u64_stats_update_begin(&s->syncp);
		s->rx_packets += packets;
		s->rx_bytes += bytes;
		s->rx_dropped += dropped;
		s->rx_errors += errors;
		s->rx_fwd_offload += fwd;
		s->rx_mrp += mrp;
		s->rx_mrp_test += mrp_test;
		u64_stats_update_end(&s->syncp);
	}

	return done;
}

static void mrpsim_tx_clean(struct mrpsim_port *port, int budget)
{
	struct device *dev = &port->sw->pdev->dev;
	struct mrpsim_queue *q = &port->txq;
	unsigned int mask = q->size - 1;
	unsigned int head = q->head;
	/* Pairs with the release in mrpsim_start_xmit(): descriptors up to
	 * tail are filled in.
	 */
	unsigned int tail = smp_load_acquire(&q->tail);
	unsigned int packets = 0, bytes = 0, errors = 0, sent_bytes = 0;
	struct mrpsim_napi_stats *s = &port->nstats;

	while (head != tail) {
		struct mrpsim_desc *d = &q->desc[head & mask];
		struct mrpsim_buf *b = &q->buf[head & mask];
		u16 status;

		status = le16_to_cpu(READ_ONCE(d->status));
		if (!(status & MRPSIM_DESC_DONE))
			break;

		dma_unmap_single(dev, b->dma, b->len, DMA_TO_DEVICE);
		if (unlikely(status & MRPSIM_DESC_ERR)) {
			errors++;
		} else {
			packets++;
			bytes += b->len;
		}
		sent_bytes += b->len;
		napi_consume_skb(b->skb, budget);
		b->skb = NULL;
		head++;
	}

	if (head == q->head)
		return;

	/* Pairs with the acquire in mrpsim_tx_avail(): the buffers before
	 * head are free for mrpsim_start_xmit() to reuse.
	 */
	smp_store_release(&q->head, head);
	netdev_completed_queue(port->netdev, packets + errors, sent_bytes);

	u64_stats_update_begin(&s->syncp);
	s->tx_packets += packets;
	s->tx_bytes += bytes;
	s->tx_errors += errors;
	u64_stats_update_end(&s->syncp);

	/* Pairs with the barrier in mrpsim_start_xmit().  The port stops
	 * NAPI before it stops the queue (mrpsim_port_stop()), so this
	 * never wakes a queue that is being torn down.
	 */
	smp_mb();
	if (unlikely(netif_queue_stopped(port->netdev)) &&
	    mrpsim_tx_avail(q) >= MRPSIM_TX_WAKE_THRESH)
		netif_wake_queue(port->netdev);
}

static int mrpsim_poll(struct napi_struct *napi, int budget)
{
	struct mrpsim_port *port = container_of(napi, struct mrpsim_port, napi);
	int done;

	WRITE_ONCE(port->poll_jiffies, jiffies);
	mrpsim_tx_clean(port, budget);
	done = mrpsim_rx(port, budget);

	if (done < budget && napi_complete_done(napi, done))
		mrpsim_irq_unmask(port->sw, MRPSIM_VEC_PORT(port->index));

	return done;
}

static irqreturn_t mrpsim_port_irq(int irq, void *data)
{
	struct mrpsim_port *port = data;

	WRITE_ONCE(port->irq_jiffies, jiffies);
	WRITE_ONCE(port->irq_cpu, smp_processor_id());
	/* The vector is masked until the poll routine is done. */
	napi_schedule_irqoff(&port->napi);

	return IRQ_HANDLED;
}

/* Tell the device about every descriptor posted so far. */
static void mrpsim_tx_doorbell(struct mrpsim_queue *q)
{
	if (q->doorbell == q->tail)
		return;
	WRITE_ONCE(q->doorbell, q->tail);
	/* writel() orders the descriptor writes before the doorbell. */
	writel(q->tail & (q->size - 1), q->regs + MRPSIM_Q_TAIL);
}

static netdev_tx_t mrpsim_start_xmit(struct sk_buff *skb,
				     struct net_device *netdev)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	struct device *dev = &port->sw->pdev->dev;
	struct mrpsim_queue *q = &port->txq;
	unsigned int i = q->tail & (q->size - 1);
	struct mrpsim_desc *d = &q->desc[i];
	struct mrpsim_buf *b = &q->buf[i];
	bool more = netdev_xmit_more();
	unsigned int len;
	dma_addr_t dma;

	if (unlikely(skb->len > MRPSIM_MAX_FRAME_LEN))
		goto drop;
	/* Pads short frames to the Ethernet minimum; frees on failure. */
	if (eth_skb_pad(skb))
		goto dropped;

	if (unlikely(!mrpsim_tx_avail(q))) {
		/* The queue is stopped before the ring fills up, so this
		 * does not happen; if it did, the frames posted with
		 * xmit_more must not wait for a doorbell that never comes.
		 */
		netdev_warn_once(netdev, "TX ring full while the queue runs\n");
		netif_stop_queue(netdev);
		mrpsim_tx_doorbell(q);
		return NETDEV_TX_BUSY;
	}

	len = skb_headlen(skb);
	dma = dma_map_single(dev, skb->data, len, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, dma))
		goto drop;

	b->skb = skb;
	b->dma = dma;
	b->len = len;
	d->addr = cpu_to_le64(dma);
	d->len = cpu_to_le16(len);
	d->meta = 0;
	d->status = 0;
	skb_tx_timestamp(skb);

	/* Publish the descriptor to mrpsim_tx_clean(). */
	smp_store_release(&q->tail, q->tail + 1);

	if (unlikely(mrpsim_tx_avail(q) < 1)) {
		netif_stop_queue(netdev);
		u64_stats_update_begin(&port->xstats.syncp);
		port->xstats.tx_ring_full++;
		u64_stats_update_end(&port->xstats.syncp);
		/* Pairs with the barrier in mrpsim_tx_clean(). */
		smp_mb();
		if (mrpsim_tx_avail(q) >= MRPSIM_TX_WAKE_THRESH)
			netif_start_queue(netdev);
	}

	if (__netdev_sent_queue(netdev, len, more))
		mrpsim_tx_doorbell(q);

	return NETDEV_TX_OK;

drop:
	dev_kfree_skb_any(skb);
dropped:
	u64_stats_update_begin(&port->xstats.syncp);
	port->xstats.tx_dropped++;
	u64_stats_update_end(&port->xstats.syncp);
	/* Frames posted before this one with xmit_more set counted on this
	 * one to ring the doorbell: ring it unless another frame follows.
	 */
	if (!more || netif_xmit_stopped(netdev_get_tx_queue(netdev, 0)))
		mrpsim_tx_doorbell(q);
	return NETDEV_TX_OK;
}

/* The device state of a bridge port state.  A device with L2 forwarding
 * takes STP's states as they are: its blocking, listening and learning
 * states pass MRP and link-local frames (BPDUs) to and from the CPU.  An
 * older device passes only MRP frames on a blocking port, so there STP's
 * blocking, listening and learning states stay in the bridge, which
 * filters in software anyway; blocking is done in hardware only on MRP
 * ring ports, whose state MRP drives.
 */
static u32 mrpsim_port_hw_state(const struct mrpsim_port *port)
{
	switch (port->stp_state) {
	case BR_STATE_DISABLED:
		return MRPSIM_PSTATE_DISABLED;
	case BR_STATE_BLOCKING:
		if (port->sw->l2)
			return MRPSIM_PSTATE_BLOCKING;
		break;
	case BR_STATE_LISTENING:
		if (port->sw->l2)
			return MRPSIM_PSTATE_LISTENING;
		break;
	case BR_STATE_LEARNING:
		if (port->sw->l2)
			return MRPSIM_PSTATE_LEARNING;
		break;
	default:
		return MRPSIM_PSTATE_FORWARDING;
	}

	return port->mrp ? MRPSIM_PSTATE_BLOCKING : MRPSIM_PSTATE_FORWARDING;
}

/**
 * mrpsim_port_apply_state() - program PORT_CTRL from the driver's state
 * @port: the port
 *
 * The port is enabled while its rings run; with L2 forwarding, it learns
 * and takes floods as its bridge port flags say.
 */
void mrpsim_port_apply_state(struct mrpsim_port *port)
{
	u32 state = mrpsim_port_hw_state(port);
	u32 ctrl = 0;

	if (port->hw_up)
		ctrl |= MRPSIM_PORT_CTRL_EN;
	ctrl |= FIELD_PREP(MRPSIM_PORT_CTRL_STATE_MASK, state);
	if (port->sw->l2)
		ctrl |= mrpsim_l2_port_ctrl(port);
	trace_mrpsim_port_ctrl(port->netdev, port->hw_up, state);
	mrpsim_port_write(port, MRPSIM_PORT_CTRL, ctrl);
}

/* Quiesce the port: NAPI first, so that a last TX completion cannot wake
 * the queue again (mrpsim_tx_clean()), then the queue, so that no frame is
 * posted to rings about to be freed, then the vector, the device's rings,
 * the buffers and the byte queue limits.  Called with RTNL held.
 */
static void mrpsim_port_stop(struct mrpsim_port *port)
{
	if (!port->hw_up) {
		netif_tx_disable(port->netdev);
		return;
	}

	napi_disable(&port->napi);
	netif_tx_disable(port->netdev);
	mrpsim_irq_mask(port->sw, MRPSIM_VEC_PORT(port->index));
	synchronize_irq(port->irq);

	port->hw_up = false;
	mrpsim_port_apply_state(port);
	mrpsim_queue_disable(&port->txq);
	mrpsim_queue_disable(&port->rxq);
	mrpsim_queue_free(port, &port->txq, DMA_TO_DEVICE);
	mrpsim_queue_free(port, &port->rxq, DMA_FROM_DEVICE);
	netdev_reset_queue(port->netdev);
}

static int mrpsim_port_start(struct mrpsim_port *port)
{
	int err;

	err = mrpsim_queue_alloc(port, &port->txq, MRPSIM_TX_RING_SIZE);
	if (err)
		return err;
	err = mrpsim_queue_alloc(port, &port->rxq, MRPSIM_RX_RING_SIZE);
	if (err)
		goto err_free_tx;
	err = mrpsim_rx_fill(port);
	if (err)
		goto err_free_rx;

	err = mrpsim_queue_enable(&port->txq);
	if (!err)
		err = mrpsim_queue_enable(&port->rxq);
	if (err) {
		netdev_err(port->netdev, "device refused the rings\n");
		goto err_disable;
	}
	mrpsim_rx_post(port);

	port->hw_up = true;
	mrpsim_port_apply_state(port);
	netdev_reset_queue(port->netdev);
	port->irq_jiffies = jiffies;
	port->poll_jiffies = jiffies;
	port->irq_cpu = -1;
	napi_enable(&port->napi);
	mrpsim_irq_unmask(port->sw, MRPSIM_VEC_PORT(port->index));

	return 0;

err_disable:
	mrpsim_queue_disable(&port->txq);
	mrpsim_queue_disable(&port->rxq);
err_free_rx:
	mrpsim_queue_free(port, &port->rxq, DMA_FROM_DEVICE);
err_free_tx:
	mrpsim_queue_free(port, &port->txq, DMA_TO_DEVICE);
	return err;
}

/**
 * mrpsim_port_update_carrier() - set the carrier from the port's link
 * @port: the port
 */
void mrpsim_port_update_carrier(struct mrpsim_port *port)
{
	if (mrpsim_port_read(port, MRPSIM_PORT_STATUS) &
	    MRPSIM_PORT_STATUS_LINK)
		netif_carrier_on(port->netdev);
	else
		netif_carrier_off(port->netdev);
}

static int mrpsim_open(struct net_device *netdev)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	int err;

	err = mrpsim_port_start(port);
	if (err)
		return err;

	mrpsim_port_update_carrier(port);
	netif_start_queue(netdev);

	return 0;
}

static int mrpsim_stop(struct net_device *netdev)
{
	struct mrpsim_port *port = netdev_priv(netdev);

	mrpsim_port_stop(port);
	netif_carrier_off(netdev);

	return 0;
}

static void mrpsim_restart_work(struct work_struct *work)
{
	struct mrpsim_port *port = container_of(work, struct mrpsim_port,
						restart_work);
	struct net_device *netdev = port->netdev;
	int err;

	rtnl_lock();
	if (!netif_running(netdev))
		goto out;

	netdev_warn(netdev, "restarting the port's rings\n");
	atomic64_inc(&port->estats.ring_restarts);
	mrpsim_port_stop(port);
	err = mrpsim_port_start(port);
	if (err) {
		netdev_err(netdev, "cannot restart the rings: %d\n", err);
		goto out;
	}
	netif_wake_queue(netdev);
out:
	rtnl_unlock();
}

/**
 * mrpsim_port_ring_error() - the device reported a DMA error on a port
 * @port: the port
 *
 * The device halted one of the port's rings; restart both from process
 * context.  Called from the event interrupt thread.
 */
void mrpsim_port_ring_error(struct mrpsim_port *port)
{
	schedule_work(&port->restart_work);
}

static void mrpsim_tx_timeout(struct net_device *netdev, unsigned int txqueue)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	struct mrpsim_queue *q = &port->txq;
	unsigned int mask = q->size - 1;

	/* Where the driver and the device stand: a device HEAD at TAIL
	 * means the frames were sent and the completions not reclaimed;
	 * a TAIL behind the driver's, a doorbell that never came.  A masked
	 * vector with NAPI idle is an interrupt that never reached the
	 * handler; with NAPI scheduled, a poll that never got to run: how
	 * long ago the vector fired and NAPI last polled, and on which CPU,
	 * tell a lost wake-up from a CPU whose softirqs were held back.
	 */
	netdev_err(netdev,
		   "TX timeout, %u descriptors pending: driver head %u tail %u doorbell %u, device head %u tail %u, vector %s, NAPI %s (state %#lx), last interrupt %u ms ago on CPU %d, last poll %u ms ago\n",
		   READ_ONCE(q->tail) - READ_ONCE(q->head),
		   READ_ONCE(q->head) & mask, READ_ONCE(q->tail) & mask,
		   READ_ONCE(q->doorbell) & mask,
		   readl(q->regs + MRPSIM_Q_HEAD), readl(q->regs + MRPSIM_Q_TAIL),
		   mrpsim_read(port->sw, MRPSIM_REG_IRQ_MASK) &
		   BIT(MRPSIM_VEC_PORT(port->index)) ? "masked" : "unmasked",
		   test_bit(NAPI_STATE_SCHED, &port->napi.state) ?
		   "scheduled" : "idle", READ_ONCE(port->napi.state),
		   jiffies_to_msecs(jiffies - READ_ONCE(port->irq_jiffies)),
		   READ_ONCE(port->irq_cpu),
		   jiffies_to_msecs(jiffies - READ_ONCE(port->poll_jiffies)));
	schedule_work(&port->restart_work);
}

/**
 * mrpsim_port_link_event() - the link of a port changed
 * @port: the port
 * @up: new link state
 *
 * Called from the event interrupt thread.
 */
void mrpsim_port_link_event(struct mrpsim_port *port, bool up)
{
	atomic64_inc(&port->estats.link_events);
	mrpsim_port_set_link(port, up);
}

/**
 * mrpsim_port_set_link() - set the carrier for a link state
 * @port: the port
 * @up: the port's link
 *
 * Called from the event interrupt thread.  A link-up waits for the loss
 * and regain reports the engine raised before it: the bridge tells
 * userspace of those at once (mrpsim_mrp_work()), of carrier changes
 * only when linkwatch runs, and a manager that learns of its port's link
 * coming back before it learns of the loss the break caused takes that
 * loss for a new break and opens the ring a second time.
 */
void mrpsim_port_set_link(struct mrpsim_port *port, bool up)
{
	if (!up) {
		clear_bit(MRPSIM_PORT_CARRIER_DEFERRED, &port->mrp_state);
		netif_carrier_off(port->netdev);
	} else if (mrpsim_mrp_reports_pending(port->sw)) {
		set_bit(MRPSIM_PORT_CARRIER_DEFERRED, &port->mrp_state);
		schedule_work(&port->sw->mrp_work);
	} else {
		netif_carrier_on(port->netdev);
	}
}

/**
 * mrpsim_port_get_drv_stats() - snapshot the driver counters of a port
 * @port: the port
 * @s: filled with the counters
 */
void mrpsim_port_get_drv_stats(struct mrpsim_port *port,
			       struct mrpsim_drv_stats *s)
{
	const struct mrpsim_napi_stats *ns = &port->nstats;
	const struct mrpsim_xmit_stats *xs = &port->xstats;
	const struct mrpsim_ev_stats *es = &port->estats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&ns->syncp);
		s->rx_packets = ns->rx_packets;
		s->rx_bytes = ns->rx_bytes;
		s->rx_dropped = ns->rx_dropped;
		s->rx_errors = ns->rx_errors;
		s->rx_fwd_offload = ns->rx_fwd_offload;
		s->rx_mrp = ns->rx_mrp;
		s->rx_mrp_test = ns->rx_mrp_test;
		s->tx_packets = ns->tx_packets;
		s->tx_bytes = ns->tx_bytes;
		s->tx_errors = ns->tx_errors;
	} while (u64_stats_fetch_retry(&ns->syncp, start));

	do {
		start = u64_stats_fetch_begin(&xs->syncp);
		s->tx_dropped = xs->tx_dropped;
		s->tx_ring_full = xs->tx_ring_full;
	} while (u64_stats_fetch_retry(&xs->syncp, start));

	s->link_events = atomic64_read(&es->link_events);
	s->mrp_loss_events = atomic64_read(&es->mrp_loss_events);
	s->mrp_regain_events = atomic64_read(&es->mrp_regain_events);
	s->dev_errors = atomic64_read(&es->dev_errors);
	s->ring_restarts = atomic64_read(&es->ring_restarts);
	s->tx_pending = 0;
	s->tx_unsignalled = 0;
}

/**
 * mrpsim_port_get_tx_gauges() - how full the TX ring of a port is
 * @port: the port
 * @s: its tx_pending and tx_unsignalled are set
 *
 * Once traffic stops both drop to 0, unless a completion or a doorbell
 * went missing.  Called with RTNL held, so that the rings stay.
 */
void mrpsim_port_get_tx_gauges(struct mrpsim_port *port,
			       struct mrpsim_drv_stats *s)
{
	const struct mrpsim_queue *q = &port->txq;
	unsigned int tail;

	ASSERT_RTNL();
	if (!port->hw_up)
		return;
	tail = READ_ONCE(q->tail);
	s->tx_pending = tail - READ_ONCE(q->head);
	s->tx_unsignalled = tail - READ_ONCE(q->doorbell);
}

static void mrpsim_get_stats64(struct net_device *netdev,
			       struct rtnl_link_stats64 *stats)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	struct mrpsim_drv_stats s;

	mrpsim_port_get_drv_stats(port, &s);
	stats->rx_packets = s.rx_packets;
	stats->rx_bytes = s.rx_bytes;
	stats->rx_dropped = s.rx_dropped;
	stats->rx_errors = s.rx_errors;
	stats->tx_packets = s.tx_packets;
	stats->tx_bytes = s.tx_bytes;
	stats->tx_dropped = s.tx_dropped;
	stats->tx_errors = s.tx_errors;
}

static void mrpsim_port_write_mac(struct mrpsim_port *port)
{
	u32 lo, hi;

	mrpsim_mac_to_regs(port->netdev->dev_addr, &lo, &hi);
	mrpsim_port_write(port, MRPSIM_PORT_MAC_LO, lo);
	mrpsim_port_write(port, MRPSIM_PORT_MAC_HI, hi);
}

static int mrpsim_set_mac_address(struct net_device *netdev, void *p)
{
	struct mrpsim_port *port = netdev_priv(netdev);
	int err;

	err = eth_prepare_mac_addr_change(netdev, p);
	if (err)
		return err;
	eth_commit_mac_addr_change(netdev, p);
	/* The device sources its MRP frames from the port's address. */
	mrpsim_port_write_mac(port);

	return 0;
}

const struct net_device_ops mrpsim_netdev_ops = {
	.ndo_open		= mrpsim_open,
	.ndo_stop		= mrpsim_stop,
	.ndo_start_xmit		= mrpsim_start_xmit,
	.ndo_get_stats64	= mrpsim_get_stats64,
	.ndo_set_mac_address	= mrpsim_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_tx_timeout		= mrpsim_tx_timeout,
	/* devlink gives phys_port_name and phys_switch_id */
#ifdef MRPSIM_NDO_DEVLINK_PORT
	.ndo_get_devlink_port	= mrpsim_get_devlink_port,
#endif
};

/**
 * mrpsim_port_create() - create and register the netdev of a port
 * @sw: the switch
 * @index: port number
 *
 * Return: 0 or a negative error code.
 */
int mrpsim_port_create(struct mrpsim *sw, unsigned int index)
{
	struct net_device *netdev;
	struct mrpsim_port *port;
	u8 mac[ETH_ALEN];
	int err;

	netdev = alloc_etherdev(sizeof(*port));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &sw->pdev->dev);

	port = netdev_priv(netdev);
	port->sw = sw;
	port->netdev = netdev;
	port->index = index;
	port->regs = sw->regs + MRPSIM_PORT_BASE(index);
	port->txq.regs = port->regs + MRPSIM_PORT_TXQ;
	port->rxq.regs = port->regs + MRPSIM_PORT_RXQ;
	port->stp_state = BR_STATE_FORWARDING;
	u64_stats_init(&port->nstats.syncp);
	u64_stats_init(&port->xstats.syncp);
	INIT_WORK(&port->restart_work, mrpsim_restart_work);

	netdev->netdev_ops = &mrpsim_netdev_ops;
	netdev->ethtool_ops = &mrpsim_ethtool_ops;
	netdev->dev_port = index;
	netdev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = MRPSIM_MAX_FRAME_LEN - VLAN_ETH_HLEN;

	mrpsim_mac_from_regs(mac, mrpsim_port_read(port, MRPSIM_PORT_MAC_LO),
			     mrpsim_port_read(port, MRPSIM_PORT_MAC_HI));
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(netdev, mac);
	} else {
		eth_hw_addr_random(netdev);
		mrpsim_port_write_mac(port);
	}

	/* Keep the port disabled until it is opened. */
	mrpsim_port_apply_state(port);
	netif_napi_add(netdev, &port->napi, mrpsim_poll);
	netif_carrier_off(netdev);

	/* The vector stays masked until the port is opened. */
	port->irq = pci_irq_vector(sw->pdev, MRPSIM_VEC_PORT(index));
	snprintf(port->irq_name, sizeof(port->irq_name), "%s-p%u",
		 dev_name(&sw->pdev->dev), index);
	err = request_irq(port->irq, mrpsim_port_irq, 0, port->irq_name,
			  port);
	if (err)
		goto err_napi_del;

	err = mrpsim_devlink_port_register(port);
	if (err)
		goto err_free_irq;

	sw->ports[index] = port;
	err = register_netdev(netdev);
	if (err)
		goto err_devlink_port;
	mrpsim_devlink_port_netdev_registered(port);

	return 0;

err_devlink_port:
	sw->ports[index] = NULL;
	mrpsim_devlink_port_unregister(port);
err_free_irq:
	free_irq(port->irq, port);
err_napi_del:
	netif_napi_del(&port->napi);
	free_netdev(netdev);
	return err;
}

/**
 * mrpsim_port_free() - release what remains of an unregistered port
 * @port: the port, already unregistered by mrpsim_ports_unregister()
 */
void mrpsim_port_free(struct mrpsim_port *port)
{
	/* The TX watchdog may have queued a restart before the port
	 * stopped.
	 */
	cancel_work_sync(&port->restart_work);
	mrpsim_devlink_port_unregister(port);
	free_irq(port->irq, port);
	netif_napi_del(&port->napi);
	free_netdev(port->netdev);
}
