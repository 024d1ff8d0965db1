/*
 * rxm_atomic_peer — a libfabric RDM peer (tcp;ofi_rxm) for JOFI's atomic interop test.
 *
 * It opens an RDM endpoint of libfabric's "tcp" provider (libfabric 1.17 layers ofi_rxm over
 * tcp for FI_EP_RDM) with FI_ATOMIC and FI_RMA, registers a 64-byte region (eight int64 words,
 * all 0) for remote read and write, prints one line
 *
 *   ready NAME_HEX KEY ADDR      (ADDR: what a peer targets: the region's address with
 *                                 FI_MR_VIRT_ADDR, else 0)
 *
 * and then reads commands from stdin, one per line, driving progress (fi_cq_read) while it
 * waits for input, so a peer's atomics into its region are served at any time:
 *
 *   peer NAME_HEX                        insert the peer's name in the AV    -> OK
 *   atomic OP OPERAND ADDR KEY           fi_atomic (int64)                   -> OK | E errno
 *   fetch OP OPERAND ADDR KEY            fi_fetch_atomic (int64)             -> OLD v | E errno
 *   cswap COMPARE SWAP ADDR KEY          fi_compare_atomic FI_CSWAP (int64)  -> OLD v | E errno
 *   get INDEX                            word INDEX of the region            -> VALUE v
 *   typed KIND DT OP COUNT BUF CMP ADDR KEY                                  -> OK | OLD hex | E errno
 *                                        KIND a (fi_atomic), f (fi_fetch_atomic), c (fi_compare_atomic);
 *                                        DT libfabric's enum fi_datatype number; BUF and CMP the
 *                                        COUNT elements' bytes in hex as in memory ("-": none);
 *                                        OLD the fetched elements' bytes in hex
 *   quit
 *
 * OP is libfabric's enum fi_op number. Every wait is bounded (10 s). The exit status is 0 on
 * quit, 1 on a setup failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_av *av;
static struct fid_mr *mr;
static int64_t region[8];
static int64_t operand_buf, compare_buf, result_buf;
/* the typed command's elements: at most 64 bytes each */
static unsigned char typed_buf[64], typed_cmp[64], typed_res[64];
static fi_addr_t peer = FI_ADDR_UNSPEC;

static void die(const char *what, int ret)
{
	printf("FAIL %s: %d (%s)\n", what, ret, fi_strerror(-ret));
	fflush(stdout);
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct fi_context op_context;

/*
 * Reads the CQ until the completion or error of the operation posted with op_context comes
 * (bounded); 0 or -errno. Error entries of no operation are skipped: libfabric 1.17's rxm writes
 * one more (op_context NULL) after the error entry of an atomic whose response had an error.
 */
static int wait_completion(void)
{
	struct fi_cq_entry entry;
	uint64_t deadline = now_ms() + 10000;
	while (now_ms() < deadline) {
		ssize_t n = fi_cq_read(cq, &entry, 1);
		if (n == 1 && entry.op_context == &op_context)
			return 0;
		if (n == -FI_EAVAIL) {
			struct fi_cq_err_entry err = {0};
			fi_cq_readerr(cq, &err, 0);
			if (err.op_context == &op_context)
				return -err.err;
			fprintf(stderr, "rxm_atomic_peer: skipped an error entry of no operation (err %d)\n", err.err);
		} else if (n != -FI_EAGAIN && n != 1) {
			return (int) n;
		}
	}
	return -FI_ETIMEDOUT;
}

static void setup(void)
{
	struct fi_info *hints = fi_allocinfo();
	hints->caps = FI_ATOMIC | FI_RMA | FI_MSG;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = strdup("tcp");
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->addr_format = FI_SOCKADDR_IN;
	int ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "0", FI_SOURCE, hints, &info);
	if (ret)
		die("fi_getinfo", ret);
	if ((ret = fi_fabric(info->fabric_attr, &fabric, NULL)))
		die("fi_fabric", ret);
	if ((ret = fi_domain(fabric, info, &domain, NULL)))
		die("fi_domain", ret);
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 64};
	if ((ret = fi_cq_open(domain, &cq_attr, &cq, NULL)))
		die("fi_cq_open", ret);
	struct fi_av_attr av_attr = {.type = FI_AV_MAP};
	if ((ret = fi_av_open(domain, &av_attr, &av, NULL)))
		die("fi_av_open", ret);
	if ((ret = fi_endpoint(domain, info, &ep, NULL)))
		die("fi_endpoint", ret);
	if ((ret = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)))
		die("fi_ep_bind cq", ret);
	if ((ret = fi_ep_bind(ep, &av->fid, 0)))
		die("fi_ep_bind av", ret);
	if ((ret = fi_enable(ep)))
		die("fi_enable", ret);
	if ((ret = fi_mr_reg(domain, region, sizeof(region), FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
			     0, 0x5a17, 0, &mr, NULL)))
		die("fi_mr_reg", ret);
	char name[64];
	size_t len = sizeof(name);
	if ((ret = fi_getname(&ep->fid, name, &len)))
		die("fi_getname", ret);
	printf("ready ");
	for (size_t i = 0; i < len; i++)
		printf("%02x", (unsigned char) name[i]);
	uint64_t addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) region : 0;
	printf(" %" PRIu64 " %" PRIu64 "\n", fi_mr_key(mr), addr);
	fflush(stdout);
	fi_freeinfo(hints);
}

static int unhex(const char *s, unsigned char *out, size_t cap)
{
	size_t n = strlen(s) / 2;
	if (n > cap)
		return -1;
	for (size_t i = 0; i < n; i++)
		sscanf(s + 2 * i, "%2hhx", &out[i]);
	return (int) n;
}

/* Posts until not -FI_EAGAIN (driving progress), then waits for the completion. */
#define POST(call)                                                         \
	do {                                                               \
		ssize_t r_;                                                \
		uint64_t d_ = now_ms() + 10000;                            \
		while ((r_ = (call)) == -FI_EAGAIN && now_ms() < d_)       \
			fi_cq_read(cq, NULL, 0);                           \
		rc = r_ ? (int) r_ : wait_completion();                    \
	} while (0)

static void command(char *line)
{
	char word[32], arg[256];
	long long a, b;
	unsigned long long addr, key;
	int op, rc;
	if (sscanf(line, "%31s", word) != 1)
		return;
	if (!strcmp(word, "peer") && sscanf(line, "%*s %255s", arg) == 1) {
		unsigned char name[128];
		int n = unhex(arg, name, sizeof(name));
		rc = fi_av_insert(av, name, 1, &peer, 0, NULL);
		printf(rc == 1 && n > 0 ? "OK\n" : "E %d\n", rc);
	} else if (!strcmp(word, "atomic") && sscanf(line, "%*s %d %lld %llu %llu", &op, &a, &addr, &key) == 4) {
		operand_buf = a;
		POST(fi_atomic(ep, &operand_buf, 1, NULL, peer, addr, key, FI_INT64, op, &op_context));
		if (rc)
			printf("E %d\n", -rc);
		else
			printf("OK\n");
	} else if (!strcmp(word, "fetch") && sscanf(line, "%*s %d %lld %llu %llu", &op, &a, &addr, &key) == 4) {
		operand_buf = a;
		POST(fi_fetch_atomic(ep, &operand_buf, 1, NULL, &result_buf, NULL, peer, addr, key, FI_INT64, op, &op_context));
		if (rc)
			printf("E %d\n", -rc);
		else
			printf("OLD %lld\n", (long long) result_buf);
	} else if (!strcmp(word, "cswap") && sscanf(line, "%*s %lld %lld %llu %llu", &a, &b, &addr, &key) == 4) {
		compare_buf = a;
		operand_buf = b;
		POST(fi_compare_atomic(ep, &operand_buf, 1, NULL, &compare_buf, NULL, &result_buf, NULL, peer, addr, key,
				       FI_INT64, FI_CSWAP, &op_context));
		if (rc)
			printf("E %d\n", -rc);
		else
			printf("OLD %lld\n", (long long) result_buf);
	} else if (!strcmp(word, "typed")) {
		char kind, hbuf[160], hcmp[160];
		int dt, cnt;
		if (sscanf(line, "%*s %c %d %d %d %159s %159s %llu %llu", &kind, &dt, &op, &cnt, hbuf, hcmp, &addr,
			   &key) != 8) {
			printf("E usage: %s\n", line);
		} else {
			int nres = 0;
			if (strcmp(hbuf, "-"))
				unhex(hbuf, typed_buf, sizeof(typed_buf));
			if (strcmp(hcmp, "-"))
				unhex(hcmp, typed_cmp, sizeof(typed_cmp));
			memset(typed_res, 0, sizeof(typed_res));
			if (kind == 'a') {
				POST(fi_atomic(ep, typed_buf, cnt, NULL, peer, addr, key, dt, op, &op_context));
			} else if (kind == 'f') {
				POST(fi_fetch_atomic(ep, typed_buf, cnt, NULL, typed_res, NULL, peer, addr, key, dt, op,
						     &op_context));
				nres = 1;
			} else {
				POST(fi_compare_atomic(ep, typed_buf, cnt, NULL, typed_cmp, NULL, typed_res, NULL, peer, addr,
						       key, dt, op, &op_context));
				nres = 1;
			}
			size_t size = 0;
			if (!rc && nres) {
				size_t one = 0;
				switch (dt) {
				case FI_INT8: case FI_UINT8: one = 1; break;
				case FI_INT16: case FI_UINT16: one = 2; break;
				case FI_INT32: case FI_UINT32: case FI_FLOAT: one = 4; break;
				case FI_DOUBLE_COMPLEX: one = 16; break;
				default: one = 8;
				}
				size = one * (size_t) cnt;
			}
			if (rc) {
				printf("E %d\n", -rc);
			} else if (!nres) {
				printf("OK\n");
			} else {
				printf("OLD ");
				for (size_t i = 0; i < size && i < sizeof(typed_res); i++)
					printf("%02x", typed_res[i]);
				printf("\n");
			}
		}
	} else if (!strcmp(word, "get") && sscanf(line, "%*s %lld", &a) == 1 && a >= 0 && a < 8) {
		printf("VALUE %lld\n", (long long) region[a]);
	} else if (!strcmp(word, "quit")) {
		exit(0);
	} else {
		printf("E usage: %s", line);
	}
	fflush(stdout);
}

int main(void)
{
	setup();
	char line[512];
	size_t used = 0;
	for (;;) {
		/* progress: a peer's atomics into our region are served inside fi_cq_read */
		fi_cq_read(cq, NULL, 0);
		struct pollfd p = {.fd = 0, .events = POLLIN};
		if (poll(&p, 1, 1) <= 0)
			continue;
		ssize_t n = read(0, line + used, sizeof(line) - 1 - used);
		if (n <= 0)
			return 0;
		used += (size_t) n;
		line[used] = 0;
		char *nl;
		while ((nl = strchr(line, '\n')) != NULL) {
			*nl = 0;
			command(line);
			size_t rest = used - (size_t) (nl + 1 - line);
			memmove(line, nl + 1, rest);
			used = rest;
			line[used] = 0;
		}
	}
}
