/*
 * A test shim (LD_PRELOAD) for VerbsCmEventCloseRaceTest: every ibv_modify_qp made on JOFI's
 * connection-management thread (threads named "jofi-verbs-cm-…") sleeps JOFI_CM_DELAY_MS
 * milliseconds first, then calls libibverbs' own. librdmacm's rdma_get_cm_event makes that call
 * on the event's id's queue pair (a REJECTED moves it to the error state; on InfiniBand and
 * RoCE the active side's CONNECT_RESPONSE to RTR and RTS): the delay holds the CM thread inside
 * the event read, with the queue pair's address in hand, long enough for a concurrent close to
 * destroy that queue pair. Without the provider's exclusion of the two, the call after the sleep
 * uses freed memory and the JVM crashes; with it, the close waits for the read.
 *
 * Built on the host by provider-verbs/vm/run-tests (gcc, libibverbs-dev) and injected into the
 * guest as libjofi_cm_delay.so; not linked into anything else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#undef ibv_modify_qp

typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	static modify_qp_fn real;
	char name[16] = "";

	if (!real)
		real = (modify_qp_fn) dlsym(RTLD_NEXT, "ibv_modify_qp");
	pthread_getname_np(pthread_self(), name, sizeof name);
	if (strncmp(name, "jofi-verbs-cm", 13) == 0) {
		const char *ms = getenv("JOFI_CM_DELAY_MS");
		long delay = ms ? atol(ms) : 0;
		struct timespec ts = { delay / 1000, (delay % 1000) * 1000000L };

		if (delay > 0)
			nanosleep(&ts, NULL);
	}
	return real(qp, attr, attr_mask);
}
