// SPDX-License-Identifier: GPL-2.0
/*
 * splat_test - provoke one kernel bug report on request
 *
 * The test harness fails a guest run when the guest log shows a kernel
 * splat.  A net that never fires reads as safety, so tests/cases/test_nets.py
 * loads this module in a guest of its own, provokes each kind of report the
 * harness looks for and checks that the harness sees it.
 *
 *   echo warn > /sys/kernel/debug/splat_test/trigger
 *
 * Every trigger returns: the bugs are real but bounded (the leak is a few
 * bytes, the stall and the hung task last as long as asked).  Load it only
 * into a guest that is meant to splat; the one exception is
 *
 *   echo 'rtnl 3000' > /sys/kernel/debug/splat_test/trigger
 *
 * which holds RTNL for 3 s and reports nothing, for a test of what must not
 * wait for RTNL (tests/cases/test_mrp_hw.py).
 */

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>

static struct dentry *splat_dir;

/* lockdep: take A then B, later B then A (no deadlock, one thread) */
static DEFINE_MUTEX(splat_lock_a);
static DEFINE_MUTEX(splat_lock_b);

static void splat_lockdep(void)
{
	mutex_lock(&splat_lock_a);
	mutex_lock(&splat_lock_b);
	mutex_unlock(&splat_lock_b);
	mutex_unlock(&splat_lock_a);

	mutex_lock(&splat_lock_b);
	mutex_lock(&splat_lock_a);
	mutex_unlock(&splat_lock_a);
	mutex_unlock(&splat_lock_b);
}

/* kmemleak: objects nobody points to */
static void splat_leak(void)
{
	int i;

	for (i = 0; i < 8; i++) {
		char *p = kmalloc(64, GFP_KERNEL);

		if (p)
			memset(p, 0x5a, 64);
	}
}

/* debugobjects: free an object whose timer is still pending */
struct splat_timer {
	struct timer_list timer;
};

static void splat_timer_fn(struct timer_list *t)
{
}

static void splat_odebug(void)
{
	struct splat_timer *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (!st)
		return;
	timer_setup(&st->timer, splat_timer_fn, 0);
	mod_timer(&st->timer, jiffies + 60 * HZ);
	/* debugobjects reports this and deactivates the timer */
	kfree(st);
}

/*
 * UBSAN: an array index out of bounds, into memory that is still valid (the
 * next member), so that KASAN stays quiet: it reports once per boot.
 */
static struct {
	int array[4];
	int next;
} splat_bounds;

static void splat_ubsan(void)
{
	int i = ARRAY_SIZE(splat_bounds.array);

	OPTIMIZER_HIDE_VAR(i);	/* or the compiler sees the bug too */
	pr_info("splat_test: array[%d] = %d\n", i, splat_bounds.array[i]);
}

/* KASAN: read past the end of a slab object */
static void splat_kasan(void)
{
	char *p = kmalloc(8, GFP_KERNEL);
	int i = 8;

	OPTIMIZER_HIDE_VAR(i);
	if (!p)
		return;
	pr_info("splat_test: p[%d] = %d\n", i, p[i]);
	kfree(p);
}

/* DEBUG_LIST: insert between two entries that do not point at each other */
static void splat_list(void)
{
	struct list_head a, b, c;

	INIT_LIST_HEAD(&a);
	INIT_LIST_HEAD(&b);
	a.next = &b;		/* but b.prev still points to b */
	list_add(&c, &a);
}

/* hung task: sleep uninterruptibly for @secs */
static void splat_hung(unsigned int secs)
{
	schedule_timeout_uninterruptible(secs * HZ);
}

/*
 * soft lockup and RCU stall: keep this CPU busy, preemption off, @ms long.
 * A callback queued first makes sure a grace period is waiting for us.
 */
static struct rcu_head splat_rcu;
static atomic_t splat_rcu_queued = ATOMIC_INIT(0);

static void splat_rcu_fn(struct rcu_head *head)
{
	atomic_set(&splat_rcu_queued, 0);
}

static void splat_spin(unsigned int ms)
{
	if (!atomic_xchg(&splat_rcu_queued, 1))
		call_rcu(&splat_rcu, splat_rcu_fn);
	preempt_disable();
	while (ms--)
		mdelay(1);
	preempt_enable();
}

/* Not a bug: RTNL held for a while, as a busy system holds it. */
static void splat_rtnl(unsigned int ms)
{
	rtnl_lock();
	msleep(ms);
	rtnl_unlock();
}

static ssize_t splat_trigger_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned int arg = 0;
	char buf[32], *nl;
	char *val;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	val = strchr(buf, ' ');
	if (val) {
		*val++ = '\0';
		if (kstrtouint(val, 0, &arg))
			return -EINVAL;
	}

	pr_info("splat_test: provoking '%s'\n", buf);
	if (!strcmp(buf, "warn"))
		WARN(1, "splat_test: warning on request\n");
	else if (!strcmp(buf, "lockdep"))
		splat_lockdep();
	else if (!strcmp(buf, "leak"))
		splat_leak();
	else if (!strcmp(buf, "odebug"))
		splat_odebug();
	else if (!strcmp(buf, "ubsan"))
		splat_ubsan();
	else if (!strcmp(buf, "kasan"))
		splat_kasan();
	else if (!strcmp(buf, "list"))
		splat_list();
	else if (!strcmp(buf, "hung") && arg && arg <= 600)
		splat_hung(arg);
	else if (!strcmp(buf, "spin") && arg && arg <= 60000)
		splat_spin(arg);
	else if (!strcmp(buf, "rtnl") && arg && arg <= 60000)
		splat_rtnl(arg);
	else
		return -EINVAL;
	return len;
}

static const struct file_operations splat_trigger_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = splat_trigger_write,
	.llseek = noop_llseek,
};

static int __init splat_init(void)
{
	splat_dir = debugfs_create_dir("splat_test", NULL);
	debugfs_create_file("trigger", 0200, splat_dir, NULL,
			    &splat_trigger_fops);
	return 0;
}

static void __exit splat_exit(void)
{
	debugfs_remove_recursive(splat_dir);
	rcu_barrier();		/* splat_rcu_fn is ours */
}

module_init(splat_init);
module_exit(splat_exit);
MODULE_DESCRIPTION("Provoke kernel bug reports to test a test harness");
MODULE_LICENSE("GPL");
