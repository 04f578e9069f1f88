// SPDX-License-Identifier: GPL-2.0
/*
 * mrpsim: PCI probe, event queue and interrupts.
 *
 * Vector 0 signals the event queue, which carries link changes, MRP engine
 * events, FDB changes and device errors; it is handled by a threaded
 * interrupt handler.
 * Vector 1 + N signals port N's RX and TX completions, handled by the
 * port's NAPI context (mrpsim_port.c).  Every vector masks itself when it
 * fires and is unmasked by the driver once its work is drained.
 */

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <net/switchdev.h>

#include "mrpsim.h"

#define CREATE_TRACE_POINTS
#include "mrpsim_trace.h"

#define MRPSIM_RESET_POLL_US	10
#define MRPSIM_RESET_TIMEOUT_US	10000

static const char * const mrpsim_err_names[MRPSIM_NUM_ERR] = {
	[MRPSIM_ERR_NONE]	= "none",
	[MRPSIM_ERR_DMA]	= "DMA failure",
	[MRPSIM_ERR_RING]	= "bad ring base or size",
	[MRPSIM_ERR_INDEX]	= "ring index out of range",
	[MRPSIM_ERR_LEN]	= "bad buffer length",
	[MRPSIM_ERR_EVQ_FULL]	= "event queue overflow",
	[MRPSIM_ERR_REG]	= "invalid register value",
};

static int mrpsim_reset(struct mrpsim *sw)
{
	u32 val;

	mrpsim_write(sw, MRPSIM_REG_CTRL, MRPSIM_CTRL_RESET);
	return readl_poll_timeout(sw->regs + MRPSIM_REG_CTRL, val,
				  !(val & MRPSIM_CTRL_RESET),
				  MRPSIM_RESET_POLL_US, MRPSIM_RESET_TIMEOUT_US);
}

static void mrpsim_error_event(struct mrpsim *sw, u32 info)
{
	unsigned int code = info & MRPSIM_ERR_INFO_CODE_MASK;
	unsigned int pnum = (info & MRPSIM_ERR_INFO_PORT_MASK) >>
			    MRPSIM_ERR_INFO_PORT_SHIFT;
	unsigned int index = (info & MRPSIM_ERR_INFO_INDEX_MASK) >>
			     MRPSIM_ERR_INFO_INDEX_SHIFT;
	struct mrpsim_port *port = NULL;

	if (code == MRPSIM_ERR_NONE || code >= MRPSIM_NUM_ERR) {
		atomic64_inc(&sw->bad_events);
		dev_err_ratelimited(&sw->pdev->dev,
				    "unknown device error, info %#x\n", info);
		return;
	}
	atomic64_inc(&sw->errors[code]);

	if (pnum < sw->num_ports) {
		port = sw->ports[pnum];
		atomic64_inc(&port->estats.dev_errors);
		if (net_ratelimit())
			netdev_err(port->netdev,
				   "device error: %s (descriptor %u)\n",
				   mrpsim_err_names[code], index);
	} else {
		dev_err_ratelimited(&sw->pdev->dev, "device error: %s\n",
				    mrpsim_err_names[code]);
	}

	/* A DMA error halts the ring it happened on: restart the port. */
	if (code == MRPSIM_ERR_DMA && port)
		mrpsim_port_ring_error(port);
}

static void mrpsim_handle_event(struct mrpsim *sw,
				const struct mrpsim_event *ev)
{
	struct mrpsim_port *port = NULL;

	trace_mrpsim_event(sw->pdev, ev->type, ev->port, ev->ring,
			   le32_to_cpu(ev->data));
	if (ev->port < sw->num_ports)
		port = sw->ports[ev->port];

	switch (ev->type) {
	case MRPSIM_EV_LINK:
		if (!port)
			break;
		mrpsim_port_link_event(port, le32_to_cpu(ev->data));
		return;
	case MRPSIM_EV_MRP_LOSS:
	case MRPSIM_EV_MRP_REGAIN:
		if (!port || ev->ring >= sw->num_rings)
			break;
		mrpsim_mrp_event(sw, ev);
		return;
	case MRPSIM_EV_TEST_DONE:
		if (ev->ring >= sw->num_rings)
			break;
		mrpsim_mrp_event(sw, ev);
		return;
	case MRPSIM_EV_MRP_ASSIST:
		if (!sw->has_assist || ev->ring >= sw->num_rings)
			break;
		mrpsim_mrp_assist_event(sw, ev);
		return;
	case MRPSIM_EV_IN_LOSS:
	case MRPSIM_EV_IN_REGAIN:
		if (!sw->has_in || !port || ev->ring >= sw->num_rings)
			break;
		mrpsim_mrp_in_event(sw, ev);
		return;
	case MRPSIM_EV_IN_TEST_DONE:
		if (!sw->has_in || ev->ring >= sw->num_rings)
			break;
		mrpsim_mrp_in_event(sw, ev);
		return;
	case MRPSIM_EV_ERROR:
		mrpsim_error_event(sw, le32_to_cpu(ev->data));
		return;
	case MRPSIM_EV_FDB:
		if (mrpsim_fdb_event(sw, ev))
			return;
		break;
	default:
		break;
	}

	atomic64_inc(&sw->bad_events);
	dev_warn_ratelimited(&sw->pdev->dev,
			     "malformed event: type %u port %u ring %u\n",
			     ev->type, ev->port, ev->ring);
}

/* Events were lost: take from the device what they would have said.  Run
 * by the event thread after the queue was drained, so that no event
 * handled later is older than the state read here.
 */
static void mrpsim_resync(struct mrpsim *sw)
{
	unsigned int i;

	for (i = 0; i < sw->num_ports; i++) {
		struct mrpsim_port *port = sw->ports[i];

		/* mrpsim_open() takes the link of a port that is down */
		if (netif_running(port->netdev))
			mrpsim_port_set_link(port,
					     mrpsim_port_read(port,
							      MRPSIM_PORT_STATUS) &
					     MRPSIM_PORT_STATUS_LINK);
	}
	mrpsim_mrp_resync(sw);
	mrpsim_fdb_resync(sw);
}

/* Point the device at the (empty) event queue; it starts at entry 0. */
static int mrpsim_evq_start(struct mrpsim *sw)
{
	sw->evq_tail = 0;
	mrpsim_write(sw, MRPSIM_REG_EVQ_BASE_LO, lower_32_bits(sw->evq_dma));
	mrpsim_write(sw, MRPSIM_REG_EVQ_BASE_HI, upper_32_bits(sw->evq_dma));
	mrpsim_write(sw, MRPSIM_REG_EVQ_SIZE, MRPSIM_EVQ_SIZE);
	mrpsim_write(sw, MRPSIM_REG_EVQ_TAIL, 0);
	mrpsim_write(sw, MRPSIM_REG_EVQ_CTRL, MRPSIM_Q_CTRL_EN);
	if (!(mrpsim_read(sw, MRPSIM_REG_EVQ_CTRL) & MRPSIM_Q_CTRL_EN))
		return -EIO;

	return 0;
}

/* The queue halted on a DMA error: it takes no event until it is
 * disabled and enabled again, and what it could not write is lost.
 * Called by the event thread, the queue's only reader.
 */
static void mrpsim_evq_restart(struct mrpsim *sw)
{
	mrpsim_write(sw, MRPSIM_REG_EVQ_CTRL, 0);
	memset(sw->evq, 0, MRPSIM_EVQ_SIZE * sizeof(*sw->evq));
	atomic64_inc(&sw->evq_restarts);
	if (mrpsim_evq_start(sw))
		dev_err_ratelimited(&sw->pdev->dev,
				    "device refused the event queue again\n");
}

/* Errors that raise no event (event queue overflow, a DMA error writing
 * an event) are only visible in ERR_STATUS; the others were counted from
 * their ERROR events.  Events lost either way are made up for by reading
 * the state they would have told of.
 */
static void mrpsim_check_err_status(struct mrpsim *sw)
{
	u32 status = mrpsim_read(sw, MRPSIM_REG_ERR_STATUS);
	bool lost = false;

	if (!status)
		return;
	mrpsim_write(sw, MRPSIM_REG_ERR_STATUS, status);
	if (status & MRPSIM_ERR_BIT(MRPSIM_ERR_EVQ_FULL)) {
		atomic64_inc(&sw->errors[MRPSIM_ERR_EVQ_FULL]);
		dev_warn_ratelimited(&sw->pdev->dev,
				     "event queue overflow, %u events lost so far\n",
				     mrpsim_read(sw, MRPSIM_REG_EVQ_DROPS));
		lost = true;
	}
	if ((status & MRPSIM_ERR_BIT(MRPSIM_ERR_DMA)) &&
	    (mrpsim_read(sw, MRPSIM_REG_EVQ_CTRL) & MRPSIM_Q_CTRL_HALTED)) {
		atomic64_inc(&sw->errors[MRPSIM_ERR_DMA]);
		dev_warn_ratelimited(&sw->pdev->dev,
				     "event queue halted on a DMA error, restarting it\n");
		mrpsim_evq_restart(sw);
		lost = true;
	}
	if (lost)
		mrpsim_resync(sw);
}

static irqreturn_t mrpsim_event_thread(int irq, void *data)
{
	unsigned int mask = MRPSIM_EVQ_SIZE - 1;
	struct mrpsim *sw = data;
	struct mrpsim_event *ev;
	struct mrpsim_event e;
	unsigned int n;

	/* The queue holds at most MRPSIM_EVQ_SIZE - 1 entries: anything the
	 * device writes after this loop re-arms the (masked) vector.
	 */
	for (n = 0; n < MRPSIM_EVQ_SIZE; n++) {
		ev = &sw->evq[sw->evq_tail & mask];
		if (!(READ_ONCE(ev->flags) & MRPSIM_EV_F_VALID))
			break;
		/* Read the entry only after seeing VALID. */
		dma_rmb();
		e = *ev;
		WRITE_ONCE(ev->flags, 0);
		sw->evq_tail++;
		mrpsim_handle_event(sw, &e);
	}
	if (n)
		mrpsim_write(sw, MRPSIM_REG_EVQ_TAIL, sw->evq_tail & mask);

	mrpsim_check_err_status(sw);
	mrpsim_irq_unmask(sw, MRPSIM_VEC_EVENT);

	return IRQ_HANDLED;
}

static int mrpsim_evq_init(struct mrpsim *sw)
{
	struct device *dev = &sw->pdev->dev;

	sw->evq = dmam_alloc_coherent(dev, MRPSIM_EVQ_SIZE * sizeof(*sw->evq),
				      &sw->evq_dma, GFP_KERNEL);
	if (!sw->evq)
		return -ENOMEM;

	if (mrpsim_evq_start(sw)) {
		dev_err(dev, "device refused the event queue\n");
		return -EIO;
	}

	return 0;
}

static struct dentry *mrpsim_debugfs_root;

/* Fault injection, for tests: writing 1 to evq_fault points the device's
 * event queue at the switch's own registers, where no event can be
 * written, as if the queue's memory had gone.  The next event halts the
 * queue; the driver must notice and restart it.
 */
static ssize_t mrpsim_evq_fault_write(struct file *file,
				      const char __user *buf, size_t count,
				      loff_t *ppos)
{
	struct mrpsim *sw = file->private_data;
	u64 bar = pci_resource_start(sw->pdev, MRPSIM_BAR_REGS);
	bool fault;
	int err;

	err = kstrtobool_from_user(buf, count, &fault);
	if (err)
		return err;
	if (!fault)
		return count;

	/* The event thread must not read the queue meanwhile. */
	disable_irq(sw->ev_irq);
	mrpsim_write(sw, MRPSIM_REG_EVQ_CTRL, 0);
	mrpsim_write(sw, MRPSIM_REG_EVQ_BASE_LO, lower_32_bits(bar));
	mrpsim_write(sw, MRPSIM_REG_EVQ_BASE_HI, upper_32_bits(bar));
	mrpsim_write(sw, MRPSIM_REG_EVQ_CTRL, MRPSIM_Q_CTRL_EN);
	memset(sw->evq, 0, MRPSIM_EVQ_SIZE * sizeof(*sw->evq));
	sw->evq_tail = 0;
	enable_irq(sw->ev_irq);

	return count;
}

static const struct file_operations mrpsim_evq_fault_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= mrpsim_evq_fault_write,
};

static void mrpsim_debugfs_init(struct mrpsim *sw)
{
	sw->debugfs = debugfs_create_dir(pci_name(sw->pdev),
					 mrpsim_debugfs_root);
	debugfs_create_file("evq_fault", 0200, sw->debugfs, sw,
			    &mrpsim_evq_fault_fops);
	debugfs_create_bool("fail_in_role", 0600, sw->debugfs,
			    &sw->fail_in_role);
	mrpsim_fdb_debugfs_init(sw);
}

static int mrpsim_hw_init(struct mrpsim *sw)
{
	struct device *dev = &sw->pdev->dev;
	u32 id, cap;

	id = mrpsim_read(sw, MRPSIM_REG_ID);
	if (id != MRPSIM_ID) {
		dev_err(dev, "unexpected device id %#x\n", id);
		return -ENODEV;
	}

	sw->version = mrpsim_read(sw, MRPSIM_REG_VERSION);
	if (MRPSIM_VER_MAJOR(sw->version) != MRPSIM_VERSION_MAJOR) {
		dev_err(dev, "unsupported device version %u.%u\n",
			MRPSIM_VER_MAJOR(sw->version), MRPSIM_VER_MINOR(sw->version));
		return -ENODEV;
	}

	cap = mrpsim_read(sw, MRPSIM_REG_CAP);
	sw->num_ports = cap & MRPSIM_CAP_PORTS_MASK;
	if (sw->num_ports < MRPSIM_MIN_PORTS ||
	    sw->num_ports > MRPSIM_MAX_PORTS) {
		dev_err(dev, "unsupported number of ports %u\n", sw->num_ports);
		return -ENODEV;
	}

	if (cap & MRPSIM_CAP_MRP) {
		sw->num_rings = (cap & MRPSIM_CAP_RINGS_MASK) >>
				MRPSIM_CAP_RINGS_SHIFT;
		sw->num_rings = min_t(unsigned int, sw->num_rings,
				      MRPSIM_MAX_RINGS);
		sw->mra = !!(cap & MRPSIM_CAP_MRA);
		sw->mrp_engine = MRPSIM_MRP_OFFLOAD_DEFAULT && sw->num_rings;
		sw->has_assist = sw->num_rings && (cap & MRPSIM_CAP_ASSIST);
		sw->has_in = sw->num_rings && (cap & MRPSIM_CAP_IN);
	}
	sw->l2_cap = !!(cap & MRPSIM_CAP_L2);
	sw->l2 = MRPSIM_L2_OFFLOAD_DEFAULT && sw->l2_cap;

	mrpsim_mac_from_regs(sw->base_mac,
			     mrpsim_read(sw, MRPSIM_REG_MAC_LO),
			     mrpsim_read(sw, MRPSIM_REG_MAC_HI));
	if (!is_valid_ether_addr(sw->base_mac)) {
		dev_warn(dev, "invalid base MAC %pM, using a random switch id\n",
			 sw->base_mac);
		eth_random_addr(sw->base_mac);
	}

	if (mrpsim_reset(sw)) {
		dev_err(dev, "device reset timed out\n");
		return -EIO;
	}

	return 0;
}

static void mrpsim_hw_stop(struct mrpsim *sw)
{
	mrpsim_write(sw, MRPSIM_REG_IRQ_MASK_SET,
		     GENMASK(MRPSIM_NUM_VECS(sw->num_ports) - 1, 0));
	mrpsim_write(sw, MRPSIM_REG_EVQ_CTRL, 0);
	/* Stops every ring, timer and DMA of the device. */
	if (mrpsim_reset(sw))
		dev_warn(&sw->pdev->dev, "device reset timed out\n");
}

/* Unregisters every port in one batch, so that the grace periods and
 * the wait for references are paid once per switch rather than once per
 * port.  Unregistering stops the ports and takes them out of their
 * bridges.
 */
static void mrpsim_ports_destroy(struct mrpsim *sw)
{
	LIST_HEAD(list);
	int i;

	for (i = 0; i < sw->num_ports; i++)
		if (sw->ports[i])
			mrpsim_devlink_port_netdev_unregistering(sw->ports[i]);
	rtnl_lock();
	for (i = 0; i < sw->num_ports; i++)
		if (sw->ports[i])
			unregister_netdevice_queue(sw->ports[i]->netdev, &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();

	for (i = sw->num_ports - 1; i >= 0; i--) {
		if (!sw->ports[i])
			continue;
		mrpsim_port_free(sw->ports[i]);
		sw->ports[i] = NULL;
	}
}

static int mrpsim_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	unsigned int nvecs, i;
	struct mrpsim *sw;
	int err;

	BUILD_BUG_ON(sizeof(struct mrpsim_desc) != MRPSIM_DESC_SIZE);
	BUILD_BUG_ON(sizeof(struct mrpsim_event) != MRPSIM_EVENT_SIZE);
	BUILD_BUG_ON(!is_power_of_2(MRPSIM_EVQ_SIZE) ||
		     MRPSIM_EVQ_SIZE > MRPSIM_RING_MAX);
	BUILD_BUG_ON(MRPSIM_NUM_VECS(MRPSIM_MAX_PORTS) > 32);

	sw = mrpsim_devlink_alloc(dev);
	if (!sw)
		return -ENOMEM;
	sw->pdev = pdev;
	spin_lock_init(&sw->cnt_lock);
	mutex_init(&sw->mrp_lock);
	INIT_WORK(&sw->mrp_work, mrpsim_mrp_work);
	INIT_WORK(&sw->assist_work, mrpsim_mrp_assist_work);
	mrpsim_mrp_init(sw);
	pci_set_drvdata(pdev, sw);

	err = pcim_enable_device(pdev);
	if (err)
		return dev_err_probe(dev, err, "cannot enable device\n");

	err = pcim_iomap_regions(pdev, BIT(MRPSIM_BAR_REGS), KBUILD_MODNAME);
	if (err)
		return dev_err_probe(dev, err, "cannot map registers\n");
	sw->regs = pcim_iomap_table(pdev)[MRPSIM_BAR_REGS];
	if (pci_resource_len(pdev, MRPSIM_BAR_REGS) < MRPSIM_BAR_SIZE)
		return dev_err_probe(dev, -ENODEV, "register BAR too small\n");

	err = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (err)
		return dev_err_probe(dev, err, "no usable DMA configuration\n");
	pci_set_master(pdev);

	err = mrpsim_hw_init(sw);
	if (err)
		return err;
	err = mrpsim_fdb_init(sw);
	if (err)
		return err;

	/* There is no INTx: the device needs one vector per port plus one. */
	nvecs = MRPSIM_NUM_VECS(sw->num_ports);
	err = pci_alloc_irq_vectors(pdev, nvecs, nvecs, PCI_IRQ_MSIX);
	if (err < 0)
		return dev_err_probe(dev, err,
				     "cannot allocate %u MSI-X vectors\n",
				     nvecs);

	err = mrpsim_evq_init(sw);
	if (err)
		goto err_stop_hw;

	/* devlink takes parameters only before the instance is registered
	 * (6.1).
	 */
	err = mrpsim_devlink_params_register(sw);
	if (err) {
		dev_err(dev, "cannot register devlink parameters: %d\n", err);
		goto err_stop_hw;
	}

	for (i = 0; i < sw->num_ports; i++) {
		err = mrpsim_port_create(sw, i);
		if (err)
			goto err_destroy_ports;
	}

	sw->ev_irq = pci_irq_vector(pdev, MRPSIM_VEC_EVENT);
	err = request_threaded_irq(sw->ev_irq, NULL, mrpsim_event_thread,
				   IRQF_ONESHOT, dev_name(dev), sw);
	if (err) {
		dev_err(dev, "cannot request the event interrupt: %d\n", err);
		goto err_destroy_ports;
	}
	mrpsim_irq_unmask(sw, MRPSIM_VEC_EVENT);
	mrpsim_debugfs_init(sw);
	mrpsim_devlink_register(sw);

	/* What the devlink parameters mrp_offload and l2_offload start as */
	dev_info(dev, "%u ports, switch id %pM, version %u.%u, MRP %s, L2 forwarding %s\n",
		 sw->num_ports, sw->base_mac, MRPSIM_VER_MAJOR(sw->version),
		 MRPSIM_VER_MINOR(sw->version),
		 sw->mrp_engine ? "offloaded" : "in software",
		 sw->l2 ? "offloaded" : "in software");

	return 0;

err_destroy_ports:
	mrpsim_ports_destroy(sw);
	mrpsim_devlink_params_unregister(sw);
err_stop_hw:
	mrpsim_hw_stop(sw);
	pci_free_irq_vectors(pdev);
	return err;
}

static void mrpsim_remove(struct pci_dev *pdev)
{
	struct mrpsim *sw = pci_get_drvdata(pdev);

	mrpsim_devlink_unregister(sw);
	debugfs_remove(sw->debugfs);
	/* No more events, hence no more work: then the works can go. */
	mrpsim_irq_mask(sw, MRPSIM_VEC_EVENT);
	free_irq(sw->ev_irq, sw);
	cancel_work_sync(&sw->mrp_work);
	cancel_work_sync(&sw->assist_work);
	cancel_work_sync(&sw->fdb.work);

	/* Unregistering the ports takes them out of their bridges, which
	 * deletes their MRP rings through switchdev.
	 */
	mrpsim_ports_destroy(sw);
	mrpsim_devlink_params_unregister(sw);
	mrpsim_hw_stop(sw);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id mrpsim_pci_tbl[] = {
	{ PCI_DEVICE(MRPSIM_PCI_VENDOR_ID, MRPSIM_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, mrpsim_pci_tbl);

static struct pci_driver mrpsim_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= mrpsim_pci_tbl,
	.probe		= mrpsim_probe,
	.remove		= mrpsim_remove,
};

static int __init mrpsim_init(void)
{
	int err;

	err = mrpsim_fdb_module_init();
	if (err)
		return err;

	err = mrpsim_switchdev_register();
	if (err)
		goto err_fdb;

	mrpsim_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	err = pci_register_driver(&mrpsim_pci_driver);
	if (err)
		goto err_switchdev;

	return 0;

err_switchdev:
	debugfs_remove(mrpsim_debugfs_root);
	mrpsim_switchdev_unregister();
err_fdb:
	mrpsim_fdb_module_exit();
	return err;
}
module_init(mrpsim_init);

static void __exit mrpsim_exit(void)
{
	pci_unregister_driver(&mrpsim_pci_driver);
	debugfs_remove(mrpsim_debugfs_root);
	mrpsim_switchdev_unregister();
	mrpsim_fdb_module_exit();
}
module_exit(mrpsim_exit);

MODULE_DESCRIPTION("mrpsim MRP offload switch driver");
MODULE_LICENSE("GPL");
