/*
 * jofi_peer — a libfabric tcp-provider peer for JOFI's interop tests.
 *
 * It uses libfabric exactly as an application would (fi_getinfo with prov_name "tcp" and
 * FI_EP_MSG, fabric, domain, EQ, CQs in FI_CQ_FORMAT_DATA, passive endpoint / endpoint) and
 * plays one of two roles:
 *
 *   jofi_peer server [-f PROVIDER] [-a ADDR] [-p PORT] [-t SECONDS] ACTION...
 *   jofi_peer client [-f PROVIDER]  -a ADDR   -p PORT  [-t SECONDS] ACTION...
 *   jofi_peer pingpong|bw|rma_bw [fabtests options] [-e msg|rdm] [--tagged] [SERVER_ADDR]
 *
 * -f names the libfabric provider (default tcp). With -f verbs (provider-verbs' interop tests in
 * the soft-RoCE VM) the hints add the FI_RX_CQ_DATA mode the verbs provider requires, and when
 * the domain asks for FI_MR_LOCAL every send and receive buffer is registered and its desc
 * passed (verbs cannot send from or receive into unregistered memory; tcp does not ask for it).
 *
 * The server prints "listening <port>" once its passive endpoint listens (PORT 0 picks a free
 * port). Every action prints one line; a line starting with "FAIL" says which expectation did
 * not hold. The exit status is 0 only when every expectation held (1 = an expectation failed,
 * 2 = bad usage, 3 = the watchdog fired).
 *
 * Actions (one argument each; DATA is a literal string, "@N" for N pattern bytes, or empty
 * for no data):
 *   expect-connreq:DATA    wait for FI_CONNREQ and check its connection data
 *   accept:DATA            accept the pending request with DATA, wait for FI_CONNECTED
 *   reject:DATA            reject the pending request with DATA
 *   connect:DATA           open an endpoint and connect with DATA
 *   expect-connected:DATA  wait for FI_CONNECTED and check its connection data
 *   expect-refused:DATA    wait for an EQ error ECONNREFUSED whose err_data is DATA
 *   send:SIZE[:dc]         send SIZE pattern bytes (FI_DELIVERY_COMPLETE with ":dc"), wait
 *                          for the send completion
 *   senddata:SIZE:CQDATA[:dc]  the same with remote CQ data CQDATA (fi_senddata / fi_sendmsg)
 *   inject:SIZE            fi_inject SIZE pattern bytes (no completion)
 *   recv:SIZE[:CAPACITY]   post a receive of CAPACITY (default SIZE) bytes, wait for its
 *                          completion, check length SIZE, no remote CQ data, the pattern
 *   recvdata:SIZE:CQDATA[:CAPACITY]  the same, expecting FI_REMOTE_CQ_DATA with CQDATA
 *   mr:SIZE                register SIZE bytes holding the SIZE-byte pattern for remote read
 *                          and write; prints "mr ADDR KEY" (ADDR: what a peer targets, the
 *                          virtual address with FI_MR_VIRT_ADDR, else 0)
 *   expect-mem:SIZE        check that the first SIZE bytes of that region hold the SIZE-byte
 *                          pattern (written by the peer)
 *   expect-writedata:CQDATA  wait for the rx completion of a peer's fi_writedata:
 *                          FI_REMOTE_CQ_DATA (and FI_REMOTE_WRITE|FI_RMA) with CQDATA
 *   write:SIZE:ADDR:KEY[:CQDATA]  fi_write (fi_writedata with CQDATA) of the SIZE-byte
 *                          pattern to the peer's ADDR/KEY; wait for the completion
 *   read:SIZE:ADDR:KEY     fi_read of SIZE bytes from the peer's ADDR/KEY; wait for the
 *                          completion; check the SIZE-byte pattern
 *   shutdown               fi_shutdown from this side
 *   expect-shutdown        wait for FI_SHUTDOWN
 *   quiet:MS               poll MS milliseconds; any EQ event or completion is a failure
 *   sleep:MS               progress for MS milliseconds, accepting nothing
 *
 * The pattern of a SIZE-byte message: byte i = (i * 131 + (i >> 8) + SIZE * 7 + 1) mod 256
 * (io.jofi.provider.tcp.interop.NativePeer#pattern computes the same bytes).
 *
 * The pingpong, bw and rma_bw modes play fabtests' (1.17) fi_msg_pingpong, fi_msg_bw and
 * fi_rma_bw -e msg choreographies as the project's TCP-WIRE.md and tools/README.md describe
 * them, with their options -p -e -S (a size, all, or r:START,INC,END) -I -w -W -v (fabtests'
 * data check with its 0-9a-zA-Z pattern; a mismatch prints "FAIL Data check error ..."; -X
 * sends byte 5 of every message wrong, to test a peer's check) -o -U
 * -B -P -s, and print the header and table on stdout; diagnostics go to stderr.
 *
 * With -e rdm they play the same choreographies over an FI_EP_RDM endpoint, as fabtests'
 * fi_rdm_pingpong, fi_rdm_tagged_pingpong, fi_rdm_tagged_bw and fi_rma_bw -e rdm (libfabric
 * gives "tcp;ofi_rxm" for provider tcp): an AV of type map, no connection events, and
 * fabtests' in-band address exchange (ft_init_av) before the first sync — the client inserts
 * the server's address, sends its own name (fi_getname) and waits for a 1-byte answer; the
 * server takes the name from its first receive, inserts it and answers. The server prints
 * "listening <port>" once its endpoint is enabled. --tagged (spelled as ./jofi spells it;
 * fabtests has separate programs instead) makes every message a tagged one whose tag is its
 * ordinal in its direction (fabtests' tx_seq / rx_seq; receives match the tag exactly), and
 * checks each received tag as fabtests does: pingpong the receive ordinal exactly, bw within
 * the window ("FAIL Tag mismatch ..."). bw without --tagged is the same loop untagged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sched.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#define EXIT_EXPECTATION 1
#define EXIT_USAGE 2
#define EXIT_WATCHDOG 3

#define CM_DATA_MAX 256
#define FIFO_CAP 64

/* ---------------------------------------------------------------- output and failure */

static volatile const char *current_step = "start";
static const char *current_step_copy(void);

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("FAIL ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
	exit(EXIT_EXPECTATION);
}

static void usage(const char *msg)
{
	fprintf(stderr, "usage error: %s\n"
		"  jofi_peer server [-f PROVIDER] [-a ADDR] [-p PORT] [-t SECONDS] ACTION...\n"
		"  jofi_peer client [-f PROVIDER] -a ADDR -p PORT [-t SECONDS] ACTION...\n"
		"  jofi_peer pingpong|bw|rma_bw [-p tcp] [-e msg|rdm] [--tagged] [-S SIZE|all|r:START,INC,END] [-I ITERS]\n"
		"                     [-w WARMUP] [-W WINDOW] [-v] [-o write|read|writedata] [-U]\n"
		"                     [-B PORT] [-P PORT] [-s ADDR] [-t SECONDS] [SERVER_ADDR]\n", msg);
	exit(EXIT_USAGE);
}

/* The watchdog: whatever hangs, the process ends. Only async-signal-safe calls here. */
static void on_alarm(int sig)
{
	(void) sig;
	static const char head[] = "FAIL watchdog fired during ";
	const char *step = (const char *) current_step;
	ssize_t ignored = write(STDOUT_FILENO, head, sizeof(head) - 1);
	ignored = write(STDOUT_FILENO, step, strlen(step));
	ignored = write(STDOUT_FILENO, "\n", 1);
	(void) ignored;
	_exit(EXIT_WATCHDOG);
}

static void start_watchdog(unsigned seconds)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

#define CHECK(call) do { \
		int check_ret_ = (int) (call); \
		if (check_ret_ < 0) \
			fail("%s = %d (%s)", #call, check_ret_, fi_strerror(-check_ret_)); \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* ---------------------------------------------------------------- pattern and data */

static uint8_t pattern_byte(size_t i, size_t size)
{
	return (uint8_t) (i * 131u + (i >> 8) + size * 7u + 1u);
}

static void fill_pattern(uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern_byte(i, size);
}

/* Returns the index of the first wrong byte, or size when all are right. */
static size_t check_pattern(const uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (buf[i] != pattern_byte(i, size))
			return i;
	return size;
}

struct blob {
	uint8_t bytes[CM_DATA_MAX + 1];
	size_t len;
};

static void parse_blob(const char *text, struct blob *out)
{
	if (text[0] == '@') {
		char *end;
		unsigned long n = strtoul(text + 1, &end, 10);
		if (*end || n > CM_DATA_MAX)
			usage("@N data needs 0 <= N <= 256");
		fill_pattern(out->bytes, n);
		out->len = n;
		return;
	}
	size_t n = strlen(text);
	if (n > CM_DATA_MAX)
		usage("connection data longer than 256 bytes");
	memcpy(out->bytes, text, n);
	out->len = n;
}

/* Printable form: the text itself when printable, otherwise its length and a checksum. */
static const char *show_blob(const void *data, size_t len, char *buf, size_t cap)
{
	const uint8_t *b = data;
	int printable = 1;
	for (size_t i = 0; i < len; i++)
		if (b[i] < 0x20 || b[i] > 0x7e || b[i] == '"')
			printable = 0;
	if (printable) {
		snprintf(buf, cap, "\"%.*s\"", (int) len, (const char *) data);
	} else {
		uint32_t sum = 0;
		for (size_t i = 0; i < len; i++)
			sum = sum * 31u + b[i];
		snprintf(buf, cap, "<%zu bytes, sum %08" PRIx32 ">", len, sum);
	}
	return buf;
}

static void expect_blob(const char *what, const void *got, size_t got_len, const struct blob *want)
{
	char g[CM_DATA_MAX * 2 + 64], w[CM_DATA_MAX * 2 + 64];
	show_blob(got, got_len, g, sizeof(g));
	if (got_len != want->len || (want->len && memcmp(got, want->bytes, want->len)))
		fail("%s data %s, expected %s", what, g, show_blob(want->bytes, want->len, w, sizeof(w)));
	printf("%s data=%s OK\n", what, g);
}

static size_t parse_size(const char *text)
{
	char *end;
	unsigned long long v = strtoull(text, &end, 0);
	if (end == text)
		usage("a size is not a number");
	if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
	else if (*end == 'm' || *end == 'M') { v <<= 20; end++; }
	if (*end)
		usage("a size has trailing characters");
	return (size_t) v;
}

static uint64_t parse_u64(const char *text)
{
	char *end;
	errno = 0;
	uint64_t v = strtoull(text, &end, 0);
	if (end == text || *end || errno)
		usage("not a 64-bit number");
	return v;
}

/* ---------------------------------------------------------------- fabric objects */

static struct fi_info *hints;
static struct fi_info *base_info;     /* from fi_getinfo */
static struct fi_info *conn_info;     /* from the pending FI_CONNREQ */
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_eq *eq;
static struct fid_cq *txcq, *rxcq;
static struct fid_pep *pep;
static struct fid_ep *ep;
static size_t inject_size;
static const char *provider_name = "tcp";   /* -f PROVIDER */
static int mr_local;                        /* the domain asks for FI_MR_LOCAL */
static uint64_t tx_op_flags;                /* fi_rma_bw -U: FI_DELIVERY_COMPLETE as the default op flag */
static enum fi_cq_format cq_format = FI_CQ_FORMAT_DATA;   /* FI_CQ_FORMAT_TAGGED with --tagged */

static struct fi_info *make_hints(void)
{
	struct fi_info *h = fi_allocinfo();
	if (!h)
		fail("fi_allocinfo");
	h->ep_attr->type = FI_EP_MSG;
	h->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
	h->mode = FI_CONTEXT;
	/* verbs' MSG endpoints require FI_RX_CQ_DATA (a write with immediate data consumes a
	 * receive); tcp's hints stay as they were */
	if (strcmp(provider_name, "tcp"))
		h->mode |= FI_RX_CQ_DATA;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	h->fabric_attr->prov_name = strdup(provider_name);
	h->tx_attr->op_flags |= tx_op_flags;
	return h;
}

static void open_fabric_and_eq(struct fi_info *info)
{
	struct fi_eq_attr eq_attr = { .size = 64, .wait_obj = FI_WAIT_UNSPEC };
	CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
	CHECK(fi_eq_open(fabric, &eq_attr, &eq, NULL));
}

static void open_domain_and_cqs(struct fi_info *info)
{
	if (domain)
		return;
	struct fi_cq_attr cq_attr = { .size = 128, .format = cq_format, .wait_obj = FI_WAIT_NONE };
	CHECK(fi_domain(fabric, info, &domain, NULL));
	CHECK(fi_cq_open(domain, &cq_attr, &txcq, NULL));
	CHECK(fi_cq_open(domain, &cq_attr, &rxcq, NULL));
	inject_size = info->tx_attr->inject_size;
	mr_local = (info->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
}

static void open_endpoint(struct fi_info *info)
{
	if (ep) {
		CHECK(fi_close(&ep->fid));
		ep = NULL;
	}
	open_domain_and_cqs(info);
	CHECK(fi_endpoint(domain, info, &ep, NULL));
	CHECK(fi_ep_bind(ep, &eq->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
}

/* The port of a listening passive endpoint, or of an enabled RDM endpoint (which listens too); 0 for a non-IP one. */
static int listen_port(struct fid *listener)
{
	struct sockaddr_storage ss;
	size_t len = sizeof(ss);
	CHECK(fi_getname(listener, &ss, &len));
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *) &ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *) &ss)->sin6_port);
	return 0; /* not an IP endpoint (a shm name): no port to announce */
}

static void start_server(const char *addr, const char *port, FILE *announce)
{
	hints = make_hints();
	CHECK(fi_getinfo(FI_VERSION(1, 17), addr, port, FI_SOURCE, hints, &base_info));
	open_fabric_and_eq(base_info);
	CHECK(fi_passive_ep(fabric, base_info, &pep, NULL));
	CHECK(fi_pep_bind(pep, &eq->fid, 0));
	CHECK(fi_listen(pep));
	fprintf(announce, "listening %d\n", listen_port(&pep->fid));
	fflush(announce);
}

static void start_client(const char *addr, const char *port)
{
	hints = make_hints();
	CHECK(fi_getinfo(FI_VERSION(1, 17), addr, port, 0, hints, &base_info));
	open_fabric_and_eq(base_info);
	open_domain_and_cqs(base_info);
}

/* ---------------------------------------------------------------- events */

/* One EQ event or one completion, copied out of libfabric so that it can wait in a FIFO. */
struct item {
	int error;                   /* 0, or the positive errno of an error entry */
	uint32_t event;              /* EQ event type */
	struct fi_info *info;        /* FI_CONNREQ info */
	uint8_t data[CM_DATA_MAX];   /* connection data or err_data */
	size_t data_len;
	struct fi_cq_tagged_entry comp;   /* tag: 0 unless the CQ format is FI_CQ_FORMAT_TAGGED */
	int prov_errno;
};

struct fifo {
	struct item items[FIFO_CAP];
	unsigned head, tail;
};

static struct fifo eq_fifo, tx_fifo, rx_fifo;

static struct item *fifo_push(struct fifo *f, const char *name)
{
	if (f->tail - f->head == FIFO_CAP)
		fail("more than %d unconsumed %s entries", FIFO_CAP, name);
	struct item *it = &f->items[f->tail++ % FIFO_CAP];
	memset(it, 0, sizeof(*it));
	return it;
}

static int fifo_empty(const struct fifo *f)
{
	return f->head == f->tail;
}

static struct item *fifo_pop(struct fifo *f)
{
	return &f->items[f->head++ % FIFO_CAP];
}

static const char *event_name(uint32_t event)
{
	switch (event) {
	case FI_CONNREQ: return "FI_CONNREQ";
	case FI_CONNECTED: return "FI_CONNECTED";
	case FI_SHUTDOWN: return "FI_SHUTDOWN";
	case FI_NOTIFY: return "FI_NOTIFY";
	case FI_MR_COMPLETE: return "FI_MR_COMPLETE";
	case FI_AV_COMPLETE: return "FI_AV_COMPLETE";
	case FI_JOIN_COMPLETE: return "FI_JOIN_COMPLETE";
	default: return "unknown event";
	}
}

static void describe(const struct item *it, char *buf, size_t cap)
{
	if (it->error)
		snprintf(buf, cap, "error %d (%s)", it->error, fi_strerror(it->error));
	else
		snprintf(buf, cap, "%s", event_name(it->event));
}

static void poll_eq(void)
{
	union {
		struct fi_eq_cm_entry cm;
		uint8_t raw[sizeof(struct fi_eq_cm_entry) + CM_DATA_MAX];
	} buf;
	uint32_t event;
	ssize_t ret = fi_eq_read(eq, &event, &buf, sizeof(buf), 0);
	if (ret == -FI_EAGAIN)
		return;
	if (ret == -FI_EAVAIL) {
		struct fi_eq_err_entry err = { 0 };
		CHECK(fi_eq_readerr(eq, &err, 0));
		struct item *it = fifo_push(&eq_fifo, "EQ");
		it->error = err.err;
		it->prov_errno = err.prov_errno;
		it->data_len = err.err_data_size < CM_DATA_MAX ? err.err_data_size : CM_DATA_MAX;
		if (it->data_len)
			memcpy(it->data, err.err_data, it->data_len);
		return;
	}
	if (ret < 0)
		fail("fi_eq_read = %zd (%s)", ret, fi_strerror((int) -ret));
	struct item *it = fifo_push(&eq_fifo, "EQ");
	it->event = event;
	if (event == FI_CONNREQ || event == FI_CONNECTED || event == FI_SHUTDOWN) {
		if ((size_t) ret < sizeof(struct fi_eq_cm_entry))
			fail("EQ event %s of %zd bytes", event_name(event), ret);
		it->info = buf.cm.info;
		it->data_len = (size_t) ret - sizeof(struct fi_eq_cm_entry);
		memcpy(it->data, buf.cm.data, it->data_len);
	}
}

static void poll_cq(struct fid_cq *cq, struct fifo *f, const char *name)
{
	struct fi_cq_tagged_entry comp = { 0 };
	ssize_t ret = fi_cq_read(cq, &comp, 1);
	if (ret == -FI_EAGAIN || ret == 0)
		return;
	if (ret == -FI_EAVAIL) {
		struct fi_cq_err_entry err = { 0 };
		ret = fi_cq_readerr(cq, &err, 0);
		if (ret < 0)
			fail("fi_cq_readerr = %zd (%s)", ret, fi_strerror((int) -ret));
		struct item *it = fifo_push(f, name);
		it->error = err.err;
		it->prov_errno = err.prov_errno;
		it->comp.op_context = err.op_context;
		it->comp.flags = err.flags;
		it->comp.len = err.len;
		it->comp.data = err.data;
		it->comp.tag = err.tag;
		return;
	}
	if (ret < 0)
		fail("fi_cq_read(%s) = %zd (%s)", name, ret, fi_strerror((int) -ret));
	fifo_push(f, name)->comp = comp;
}

/* One pass over everything that can make progress and report. */
static void progress_once(void)
{
	if (eq)
		poll_eq();
	if (txcq) {
		poll_cq(txcq, &tx_fifo, "tx CQ");
		poll_cq(rxcq, &rx_fifo, "rx CQ");
	}
}

/* Waits for an entry in f. An EQ event seen while waiting for a completion is not consumed
 * but, if the completion still has not come after a grace of further passes, fails the run
 * (a shutdown or error would otherwise only be noticed by the watchdog). */
static struct item *wait_for(struct fifo *f, const char *what)
{
	long grace = -1;
	for (;;) {
		progress_once();
		if (!fifo_empty(f))
			return fifo_pop(f);
		if (f != &eq_fifo && !fifo_empty(&eq_fifo)) {
			if (grace < 0)
				grace = 20000;
			else if (--grace == 0) {
				char d[96];
				describe(&eq_fifo.items[eq_fifo.head % FIFO_CAP], d, sizeof(d));
				fail("%s: EQ reported %s instead", what, d);
			}
		}
		sched_yield();
	}
}

static struct item *wait_eq(const char *what)
{
	return wait_for(&eq_fifo, what);
}

static struct item *wait_event(uint32_t event, const char *what)
{
	struct item *it = wait_eq(what);
	if (it->error || it->event != event) {
		char d[96];
		describe(it, d, sizeof(d));
		if (it->error && it->data_len) {
			char b[CM_DATA_MAX * 2 + 64];
			fail("%s: expected %s, got %s with err_data %s", what, event_name(event), d,
			     show_blob(it->data, it->data_len, b, sizeof(b)));
		}
		fail("%s: expected %s, got %s", what, event_name(event), d);
	}
	return it;
}

/* ---------------------------------------------------------------- data transfer */

static uint8_t *alloc_buffer(size_t size)
{
	uint8_t *b = malloc(size ? size : 1);
	if (!b)
		fail("out of memory for %zu bytes", size);
	return b;
}

/* Posts with retry on -FI_EAGAIN (driving progress), as applications do. */
#define POST(call) do { \
		ssize_t post_ret_; \
		while ((post_ret_ = (call)) == -FI_EAGAIN) \
			progress_once(); \
		if (post_ret_ < 0) \
			fail("%s = %zd (%s)", #call, post_ret_, fi_strerror((int) -post_ret_)); \
	} while (0)

static void need_ep(const char *what)
{
	if (!ep)
		fail("%s: no endpoint (connect or accept first)", what);
}

static void check_send_completion(struct item *it, void *ctx, const char *what)
{
	if (it->error)
		fail("%s: send completed with error %d (%s)", what, it->error, fi_strerror(it->error));
	if (it->comp.op_context != ctx)
		fail("%s: completion for context %p, expected %p", what, it->comp.op_context, ctx);
	if (!(it->comp.flags & FI_SEND))
		fail("%s: completion flags 0x%" PRIx64 " lack FI_SEND", what, it->comp.flags);
}

static void *local_desc(void *buf, size_t size, uint64_t access, struct fid_mr **mr);

static void do_send(size_t size, int with_data, uint64_t cq_data, int delivery_complete)
{
	static struct fi_context ctx;
	const char *what = current_step_copy();
	need_ep(what);
	uint8_t *buf = alloc_buffer(size);
	fill_pattern(buf, size);
	struct fid_mr *mr = NULL;
	void *desc = mr_local ? local_desc(buf, size, FI_SEND, &mr) : NULL;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct fi_msg msg = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = 0,
			      .context = &ctx, .data = cq_data };
	uint64_t flags = FI_COMPLETION | (with_data ? FI_REMOTE_CQ_DATA : 0)
		| (delivery_complete ? FI_DELIVERY_COMPLETE : 0);
	POST(fi_sendmsg(ep, &msg, flags));
	check_send_completion(wait_for(&tx_fifo, what), &ctx, what);
	printf("%s OK\n", what);
	if (mr)
		CHECK(fi_close(&mr->fid));
	free(buf);
}

static void do_inject(size_t size)
{
	const char *what = current_step_copy();
	need_ep(what);
	if (size > inject_size)
		fail("%s: %zu bytes exceed the inject size %zu", what, size, inject_size);
	uint8_t *buf = alloc_buffer(size);
	fill_pattern(buf, size);
	POST(fi_inject(ep, buf, size, 0));
	printf("%s OK\n", what);
	free(buf);
}

static void do_recv(size_t size, size_t capacity, int with_data, uint64_t cq_data)
{
	static struct fi_context ctx;
	const char *what = current_step_copy();
	need_ep(what);
	uint8_t *buf = alloc_buffer(capacity);
	memset(buf, 0xee, capacity ? capacity : 1);
	struct fid_mr *mr = NULL;
	void *desc = mr_local ? local_desc(buf, capacity, FI_RECV, &mr) : NULL;
	POST(fi_recv(ep, buf, capacity, desc, 0, &ctx));
	struct item *it = wait_for(&rx_fifo, what);
	if (it->error)
		fail("%s: receive completed with error %d (%s), len %zu", what, it->error,
		     fi_strerror(it->error), it->comp.len);
	if (it->comp.op_context != &ctx)
		fail("%s: completion for context %p, expected %p", what, it->comp.op_context, (void *) &ctx);
	if ((it->comp.flags & (FI_RECV | FI_MSG)) != (FI_RECV | FI_MSG))
		fail("%s: completion flags 0x%" PRIx64 " lack FI_RECV|FI_MSG", what, it->comp.flags);
	if (it->comp.len != size)
		fail("%s: received %zu bytes, expected %zu", what, it->comp.len, size);
	int has_data = (it->comp.flags & FI_REMOTE_CQ_DATA) != 0;
	if (with_data && !has_data)
		fail("%s: no FI_REMOTE_CQ_DATA (flags 0x%" PRIx64 ")", what, it->comp.flags);
	if (!with_data && has_data)
		fail("%s: unexpected FI_REMOTE_CQ_DATA 0x%" PRIx64, what, it->comp.data);
	if (with_data && it->comp.data != cq_data)
		fail("%s: CQ data 0x%" PRIx64 ", expected 0x%" PRIx64, what, it->comp.data, cq_data);
	size_t bad = check_pattern(buf, size);
	if (bad != size)
		fail("%s: byte %zu is 0x%02x, expected 0x%02x", what, bad, buf[bad], pattern_byte(bad, size));
	for (size_t i = size; i < capacity; i++)
		if (buf[i] != 0xee)
			fail("%s: byte %zu beyond the message was written", what, i);
	printf("%s OK\n", what);
	if (mr)
		CHECK(fi_close(&mr->fid));
	free(buf);
}

/* ---------------------------------------------------------------- RMA */

static uint8_t *rma_region;
static size_t rma_region_size;
static struct fid_mr *rma_mr;

/* A local buffer registered for FI_MR_LOCAL (the domain may ask for it); returns its desc. */
static void *local_desc(void *buf, size_t size, uint64_t access, struct fid_mr **mr)
{
	static uint64_t next_key = 1000; /* requested keys must be unique (scalable MR mode) */
	CHECK(fi_mr_reg(domain, buf, size ? size : 1, access, 0, next_key++, 0, mr, NULL));
	return fi_mr_desc(*mr);
}

static void do_mr(size_t size)
{
	const char *what = current_step_copy();
	need_ep(what);
	rma_region = alloc_buffer(size);
	rma_region_size = size;
	fill_pattern(rma_region, size);
	CHECK(fi_mr_reg(domain, rma_region, size, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &rma_mr, NULL));
	uint64_t addr = (base_info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) rma_region : 0;
	printf("mr %" PRIu64 " %" PRIu64 "\n", addr, fi_mr_key(rma_mr));
	printf("%s OK\n", what);
}

static void do_expect_mem(size_t size)
{
	const char *what = current_step_copy();
	if (!rma_region || size > rma_region_size)
		fail("%s: no region of %zu bytes (mr:SIZE first)", what, size);
	size_t bad = check_pattern(rma_region, size);
	if (bad != size)
		fail("%s: byte %zu is 0x%02x, expected 0x%02x", what, bad, rma_region[bad], pattern_byte(bad, size));
	printf("%s OK\n", what);
}

static void do_expect_writedata(uint64_t cq_data)
{
	const char *what = current_step_copy();
	need_ep(what);
	struct item *it = wait_for(&rx_fifo, what);
	if (it->error)
		fail("%s: completion with error %d (%s)", what, it->error, fi_strerror(it->error));
	if (!(it->comp.flags & FI_REMOTE_CQ_DATA))
		fail("%s: no FI_REMOTE_CQ_DATA (flags 0x%" PRIx64 ")", what, it->comp.flags);
	if (it->comp.data != cq_data)
		fail("%s: CQ data 0x%" PRIx64 ", expected 0x%" PRIx64, what, it->comp.data, cq_data);
	printf("%s OK flags 0x%" PRIx64 "\n", what, it->comp.flags);
}

static void check_rma_completion(struct item *it, void *ctx, uint64_t flag, const char *what)
{
	if (it->error)
		fail("%s: completed with error %d (%s)", what, it->error, fi_strerror(it->error));
	if (it->comp.op_context != ctx)
		fail("%s: completion for context %p, expected %p", what, it->comp.op_context, ctx);
	if ((it->comp.flags & (FI_RMA | flag)) != (FI_RMA | flag))
		fail("%s: completion flags 0x%" PRIx64 " lack FI_RMA and 0x%" PRIx64, what, it->comp.flags, flag);
}

static void do_write(size_t size, uint64_t addr, uint64_t key, int with_data, uint64_t cq_data)
{
	static struct fi_context ctx;
	const char *what = current_step_copy();
	need_ep(what);
	uint8_t *buf = alloc_buffer(size);
	fill_pattern(buf, size);
	struct fid_mr *mr;
	void *desc = local_desc(buf, size, FI_WRITE, &mr);
	if (with_data)
		POST(fi_writedata(ep, buf, size, desc, cq_data, 0, addr, key, &ctx));
	else
		POST(fi_write(ep, buf, size, desc, 0, addr, key, &ctx));
	check_rma_completion(wait_for(&tx_fifo, what), &ctx, FI_WRITE, what);
	CHECK(fi_close(&mr->fid));
	free(buf);
	printf("%s OK\n", what);
}

static void do_read(size_t size, uint64_t addr, uint64_t key)
{
	static struct fi_context ctx;
	const char *what = current_step_copy();
	need_ep(what);
	uint8_t *buf = alloc_buffer(size);
	memset(buf, 0xee, size ? size : 1);
	struct fid_mr *mr;
	void *desc = local_desc(buf, size, FI_READ, &mr);
	POST(fi_read(ep, buf, size, desc, 0, addr, key, &ctx));
	check_rma_completion(wait_for(&tx_fifo, what), &ctx, FI_READ, what);
	size_t bad = check_pattern(buf, size);
	if (bad != size)
		fail("%s: byte %zu is 0x%02x, expected 0x%02x", what, bad, buf[bad], pattern_byte(bad, size));
	CHECK(fi_close(&mr->fid));
	free(buf);
	printf("%s OK\n", what);
}

/* ---------------------------------------------------------------- script actions */

static char step_text[512];

/* The current action's text, for the messages of the action being run. */
static const char *current_step_copy(void)
{
	return step_text;
}

static int split(char *text, char **parts, int max)
{
	int n = 0;
	parts[n++] = text;
	for (char *p = text; *p && n < max; p++)
		if (*p == ':') {
			*p = '\0';
			parts[n++] = p + 1;
		}
	return n;
}

static void run_action(const char *action, int is_server)
{
	char copy[512];
	char *parts[5];
	struct blob blob;
	snprintf(step_text, sizeof(step_text), "%s", action);
	current_step = step_text;
	snprintf(copy, sizeof(copy), "%s", action);
	int n = split(copy, parts, 5);
	const char *verb = parts[0];
	const char *arg = n > 1 ? parts[1] : "";

	if (!strcmp(verb, "expect-connreq")) {
		if (!is_server)
			usage("expect-connreq is a server action");
		parse_blob(arg, &blob);
		struct item *it = wait_event(FI_CONNREQ, action);
		if (conn_info)
			fi_freeinfo(conn_info);
		conn_info = it->info;
		expect_blob("FI_CONNREQ", it->data, it->data_len, &blob);
	} else if (!strcmp(verb, "accept")) {
		if (!conn_info)
			usage("accept needs a preceding expect-connreq");
		parse_blob(arg, &blob);
		open_endpoint(conn_info);
		CHECK(fi_accept(ep, blob.len ? blob.bytes : NULL, blob.len));
		fi_freeinfo(conn_info);
		conn_info = NULL;
		struct item *it = wait_event(FI_CONNECTED, action);
		if (it->info)
			fi_freeinfo(it->info);
		printf("%s FI_CONNECTED OK\n", action);
	} else if (!strcmp(verb, "reject")) {
		if (!conn_info)
			usage("reject needs a preceding expect-connreq");
		parse_blob(arg, &blob);
		CHECK(fi_reject(pep, conn_info->handle, blob.len ? blob.bytes : NULL, blob.len));
		fi_freeinfo(conn_info);
		conn_info = NULL;
		printf("%s OK\n", action);
	} else if (!strcmp(verb, "connect")) {
		if (is_server)
			usage("connect is a client action");
		parse_blob(arg, &blob);
		open_endpoint(base_info);
		CHECK(fi_connect(ep, base_info->dest_addr, blob.len ? blob.bytes : NULL, blob.len));
		printf("%s OK\n", action);
	} else if (!strcmp(verb, "expect-connected")) {
		parse_blob(arg, &blob);
		struct item *it = wait_event(FI_CONNECTED, action);
		if (it->info)
			fi_freeinfo(it->info);
		expect_blob("FI_CONNECTED", it->data, it->data_len, &blob);
	} else if (!strcmp(verb, "expect-refused")) {
		parse_blob(arg, &blob);
		struct item *it = wait_eq(action);
		if (it->error != ECONNREFUSED) {
			char d[96];
			describe(it, d, sizeof(d));
			fail("%s: expected error ECONNREFUSED, got %s", action, d);
		}
		expect_blob("ECONNREFUSED err", it->data, it->data_len, &blob);
	} else if (!strcmp(verb, "send")) {
		if (n < 2 || n > 3 || (n == 3 && strcmp(parts[2], "dc")))
			usage("send:SIZE[:dc]");
		do_send(parse_size(arg), 0, 0, n == 3);
	} else if (!strcmp(verb, "senddata")) {
		if (n < 3 || n > 4 || (n == 4 && strcmp(parts[3], "dc")))
			usage("senddata:SIZE:CQDATA[:dc]");
		do_send(parse_size(arg), 1, parse_u64(parts[2]), n == 4);
	} else if (!strcmp(verb, "inject")) {
		if (n != 2)
			usage("inject:SIZE");
		do_inject(parse_size(arg));
	} else if (!strcmp(verb, "recv")) {
		if (n < 2 || n > 3)
			usage("recv:SIZE[:CAPACITY]");
		size_t size = parse_size(arg);
		do_recv(size, n == 3 ? parse_size(parts[2]) : size, 0, 0);
	} else if (!strcmp(verb, "recvdata")) {
		if (n < 3 || n > 4)
			usage("recvdata:SIZE:CQDATA[:CAPACITY]");
		size_t size = parse_size(arg);
		do_recv(size, n == 4 ? parse_size(parts[3]) : size, 1, parse_u64(parts[2]));
	} else if (!strcmp(verb, "mr")) {
		if (n != 2)
			usage("mr:SIZE");
		do_mr(parse_size(arg));
	} else if (!strcmp(verb, "expect-mem")) {
		if (n != 2)
			usage("expect-mem:SIZE");
		do_expect_mem(parse_size(arg));
	} else if (!strcmp(verb, "expect-writedata")) {
		if (n != 2)
			usage("expect-writedata:CQDATA");
		do_expect_writedata(parse_u64(arg));
	} else if (!strcmp(verb, "write")) {
		if (n < 4 || n > 5)
			usage("write:SIZE:ADDR:KEY[:CQDATA]");
		do_write(parse_size(arg), parse_u64(parts[2]), parse_u64(parts[3]), n == 5, n == 5 ? parse_u64(parts[4]) : 0);
	} else if (!strcmp(verb, "read")) {
		if (n != 4)
			usage("read:SIZE:ADDR:KEY");
		do_read(parse_size(arg), parse_u64(parts[2]), parse_u64(parts[3]));
	} else if (!strcmp(verb, "shutdown")) {
		need_ep(action);
		CHECK(fi_shutdown(ep, 0));
		printf("%s OK\n", action);
	} else if (!strcmp(verb, "expect-shutdown")) {
		need_ep(action);
		struct item *it = wait_event(FI_SHUTDOWN, action);
		if (it->info)
			fi_freeinfo(it->info);
		printf("%s FI_SHUTDOWN OK\n", action);
	} else if (!strcmp(verb, "quiet") || !strcmp(verb, "sleep")) {
		int strict = !strcmp(verb, "quiet");
		uint64_t end = now_ns() + (uint64_t) parse_size(arg) * 1000000ull;
		while (now_ns() < end) {
			progress_once();
			if (strict) {
				struct fifo *fs[3] = { &eq_fifo, &tx_fifo, &rx_fifo };
				for (int i = 0; i < 3; i++)
					if (!fifo_empty(fs[i])) {
						char d[96];
						describe(fifo_pop(fs[i]), d, sizeof(d));
						fail("%s: unexpected %s%s", action, i ? "completion " : "", d);
					}
			}
			sched_yield();
		}
		printf("%s OK\n", action);
	} else {
		fprintf(stderr, "unknown action '%s'\n", action);
		usage("unknown action");
	}
	fflush(stdout);
}

static int run_script(int is_server, int argc, char **argv)
{
	const char *addr = NULL, *port = NULL;
	unsigned timeout = 30;
	int opt;
	optind = 2;
	while ((opt = getopt(argc, argv, "+a:p:t:f:")) != -1) {
		switch (opt) {
		case 'f': provider_name = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 't': timeout = (unsigned) parse_size(optarg); break;
		default: usage("unknown option");
		}
	}
	start_watchdog(timeout);
	if (is_server) {
		start_server(addr, port ? port : "0", stdout);
	} else {
		if (!addr || !port)
			usage("a client needs -a ADDR and -p PORT");
		start_client(addr, port);
	}
	for (int i = optind; i < argc; i++)
		run_action(argv[i], is_server);
	current_step = "close";
	if (ep)
		CHECK(fi_close(&ep->fid));
	if (pep)
		CHECK(fi_close(&pep->fid));
	printf("done OK\n");
	return 0;
}

/* ---------------------------------------------------------------- fabtests choreographies */

/* fabtests 1.17's benchmarks as the project's TCP-WIRE.md and tools/README.md describe them:
 * fi_msg_pingpong (pingpong), fi_msg_bw (bw) and fi_rma_bw -e msg (rma_bw), with fabtests'
 * option letters. Written from the facts, not from fabtests' code. */

enum ft_mode { FT_PINGPONG, FT_BW, FT_RMA_BW };
enum ft_rma { FT_WRITE, FT_READ, FT_WRITEDATA };

struct pp_opts {
	const char *src_addr, *dst_addr;
	const char *src_port, *dst_port;
	size_t size;           /* 0 with sizes_all or default sizes */
	int size_given, sizes_all;
	size_t range_start, range_inc, range_end;   /* -S r:START,INC,END */
	int range_given;
	long iterations;       /* -1: fabtests' default per size */
	long warmup;
	long window;           /* -W */
	int verify;            /* -v */
	int corrupt;           /* -X: byte 5 of every message sent is wrong (to test the peer's check) */
	int rdm;               /* -e rdm */
	enum ft_mode mode;
	enum ft_rma rma_op;    /* -o */
};

#define FT_CTRL_MSG 256
#define FT_ACK_BYTES 4
#define FT_CQ_DATA 0x0123456789abcdefULL

static uint8_t *pp_tx_buf, *pp_rx_buf;
static size_t pp_buf_size;
static struct fi_context pp_tx_ctx, pp_rx_ctx;
static int pp_active;          /* fabtests' FT_OPT_ACTIVE: between the start and the end of the timed part */
static struct fid_mr *pp_rx_mr, *pp_tx_mr;
static void *pp_rx_desc, *pp_tx_desc;
static uint64_t pp_remote_addr, pp_remote_key;
static int rx_cq_data_mode;    /* the endpoint has FI_RX_CQ_DATA: a write with CQ data consumes a receive */
static fi_addr_t pp_peer;      /* every operation's peer: 0 on a connected endpoint, the AV's fi_addr on RDM */
static struct fid_av *pp_av;   /* -e rdm */
static int pp_tagged;          /* --tagged */
static uint64_t pp_tx_seq, pp_rx_seq;   /* fabtests' tx_seq / rx_seq: the tag of the next send / receive */
static uint64_t pp_rx_cq_cntr; /* fabtests' rx_cq_cntr: receive completions so far, the tag the next should carry */
static long pp_tag_window;     /* fabtests' FT_OPT_BW tag check: within this window; 0: exactly */

static const char ft_alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static void ft_fill(uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t) ft_alphabet[i % (sizeof(ft_alphabet) - 1)];
}

/* fabtests' data check: the message must be the alphabet pattern; else its error line. */
static void ft_check(const uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		char want = ft_alphabet[i % (sizeof(ft_alphabet) - 1)];
		if (buf[i] != (uint8_t) want)
			fail("Data check error (%c!=%c) at byte %zu for buffer size %zu",
			     want, buf[i], i, size);
	}
}

/* One receive of the whole buffer; tagged, the tag is the next receive ordinal (no ignore
 * bits: fabtests' exact match). The ordinal counts only posts that succeeded. */
static ssize_t pp_try_recv(void)
{
	ssize_t ret = pp_tagged
		? fi_trecv(ep, pp_rx_buf, pp_buf_size, pp_rx_desc, pp_peer, pp_rx_seq, 0, &pp_rx_ctx)
		: fi_recv(ep, pp_rx_buf, pp_buf_size, pp_rx_desc, pp_peer, &pp_rx_ctx);
	if (!ret)
		pp_rx_seq++;
	return ret;
}

/* One send of the first size bytes of the transmit buffer; tagged, with the next send ordinal. */
static ssize_t pp_try_send(size_t size)
{
	ssize_t ret = pp_tagged
		? fi_tsend(ep, pp_tx_buf, size, pp_tx_desc, pp_peer, pp_tx_seq, &pp_tx_ctx)
		: fi_send(ep, pp_tx_buf, size, pp_tx_desc, pp_peer, &pp_tx_ctx);
	if (!ret)
		pp_tx_seq++;
	return ret;
}

static ssize_t pp_try_inject(size_t size)
{
	ssize_t ret = pp_tagged
		? fi_tinject(ep, pp_tx_buf, size, pp_peer, pp_tx_seq)
		: fi_inject(ep, pp_tx_buf, size, pp_peer);
	if (!ret)
		pp_tx_seq++;
	return ret;
}

static void pp_post_rx(void)
{
	POST(pp_try_recv());
}

/* fabtests' ft_tag_is_valid: the k-th receive completion carries tag k (bw: within the window). */
static void pp_check_tag(uint64_t tag)
{
	uint64_t want = pp_rx_cq_cntr++;
	int valid = pp_tag_window
		? want < tag + (uint64_t) pp_tag_window && tag < want + (uint64_t) pp_tag_window
		: tag == want;
	if (!valid)
		fail("Tag mismatch!. Expected: %" PRIu64 ", actual: %" PRIu64, want, tag);
}

/* Spins on the CQ (fabtests' default -c spin). */
static void pp_wait(struct fifo *f, const char *what)
{
	for (;;) {
		poll_cq(f == &tx_fifo ? txcq : rxcq, f, what);
		if (!fifo_empty(f)) {
			struct item *it = fifo_pop(f);
			if (it->error)
				fail("%s: completion error %d (%s)", what, it->error, fi_strerror(it->error));
			if (pp_tagged && f == &rx_fifo)
				pp_check_tag(it->comp.tag);
			return;
		}
	}
}

/* Receive one message (checked while timed with -v, as ft_rx), then repost. */
static void pp_rx(size_t size, int verify)
{
	pp_wait(&rx_fifo, "receive");
	if (verify && pp_active)
		ft_check(pp_rx_buf, size);
	pp_post_rx();
}

/* ft_tx: a plain send, waited for. */
static void pp_tx_plain(size_t size)
{
	POST(pp_try_send(size));
	pp_wait(&tx_fifo, "send");
}

/* Inject below the inject size (no completion); returns whether a completion follows. */
static int pp_post_tx(size_t size)
{
	if (size < inject_size) {
		POST(pp_try_inject(size));
		return 0;
	}
	POST(pp_try_send(size));
	return 1;
}

/* fabtests' sync: a 1-byte plain send (always with a completion) and a 1-byte receive. */
static void pp_sync(int client)
{
	if (client) {
		pp_tx_plain(1);
		pp_rx(1, 0);
	} else {
		pp_rx(1, 0);
		pp_tx_plain(1);
	}
}

static void size_text(char *buf, size_t cap, long long size)
{
	long long base = 1;
	const char *mag = "";
	if (size >= (1LL << 30)) { base = 1LL << 30; mag = "g"; }
	else if (size >= (1LL << 20)) { base = 1LL << 20; mag = "m"; }
	else if (size >= (1LL << 10)) { base = 1LL << 10; mag = "k"; }
	long long whole = size / base, tenth = 0;
	if (whole < 10)
		tenth = (size % base) * 10 / base;
	if (tenth)
		snprintf(buf, cap, "%lld.%lld%s", whole, tenth, mag);
	else
		snprintf(buf, cap, "%lld%s", whole, mag);
}

static void count_text(char *buf, size_t cap, long long n)
{
	if (n >= 1000000000LL) snprintf(buf, cap, "%lldb", n / 1000000000LL);
	else if (n >= 1000000LL) snprintf(buf, cap, "%lldm", n / 1000000LL);
	else if (n >= 1000LL) snprintf(buf, cap, "%lldk", n / 1000LL);
	else snprintf(buf, cap, "%lld", n);
}

static void pp_show(size_t size, long iterations, int xfers, uint64_t elapsed_ns)
{
	static int header_done;
	char a[32], b[32], c[32];
	if (!header_done) {
		printf("%-8s%-8s%-8s%8s %10s%13s%13s\n", "bytes", "iters", "total", "time",
		       "MB/sec", "usec/xfer", "Mxfers/sec");
		header_done = 1;
	}
	long long total = (long long) xfers * iterations * (long long) size;
	double usec = (double) (elapsed_ns / 1000);
	if (usec <= 0)
		usec = 1;       /* a timer too coarse for the run: avoid a division by zero */
	double per_xfer = usec / iterations / xfers;
	size_text(a, sizeof(a), (long long) size);
	count_text(b, sizeof(b), iterations);
	size_text(c, sizeof(c), total);
	printf("%-8s%-8s%-8s%8.2fs%10.2f%11.2f%11.2f\n", a, b, c, usec / 1000000.0,
	       total / usec, per_xfer, 1.0 / per_xfer);
	fflush(stdout);
}

static uint64_t pp_start;

static void pp_timer_start(void)
{
	pp_active = 1;
	pp_start = now_ns();
}

static uint64_t pp_timer_stop(void)
{
	pp_active = 0;
	return now_ns() - pp_start;
}

static void pp_pingpong(int client, size_t size, long iterations, const struct pp_opts *o)
{
	for (long i = 0; i < iterations + o->warmup; i++) {
		if (i == o->warmup)
			pp_timer_start();
		if (client) {
			if (pp_post_tx(size))
				pp_wait(&tx_fifo, "pingpong send");
			pp_rx(size, o->verify);
		} else {
			pp_rx(size, o->verify);
			if (pp_post_tx(size))
				pp_wait(&tx_fifo, "pingpong send");
		}
	}
	pp_show(size, iterations, 2, pp_timer_stop());
}

/* The client's end of a window: its send completions, then the server's 4-byte ack. */
static void bw_client_window(long *pending, int verify)
{
	for (; *pending > 0; (*pending)--)
		pp_wait(&tx_fifo, "bw send");
	pp_rx(FT_ACK_BYTES, verify);
}

/* The server's end of a window: the completions of what arrived, the check, the ack. */
static void bw_server_window(long *arrived, size_t size, int verify, int remote_writes)
{
	for (; *arrived > 0; (*arrived)--)
		pp_wait(&rx_fifo, remote_writes ? "writedata completion" : "bw receive");
	if (verify)
		ft_check(pp_rx_buf, size);
	pp_tx_plain(FT_ACK_BYTES);
}

/* fi_msg_bw: the client sends, an ack after every window and one at the end. */
static void pp_bw(int client, size_t size, long iterations, const struct pp_opts *o)
{
	long in_window = 0, pending = 0;
	for (long i = 0; i < iterations + o->warmup; i++) {
		if (i == o->warmup)
			pp_timer_start();
		if (client) {
			pending += pp_post_tx(size);
		} else {
			/* as fabtests: a receive per message, posted ahead; one more stays posted */
			pp_post_rx();
			pending++;
		}
		if (++in_window == o->window) {
			if (client)
				bw_client_window(&pending, o->verify);
			else
				bw_server_window(&pending, size, o->verify, 0);
			in_window = 0;
		}
	}
	if (client)
		bw_client_window(&pending, o->verify);
	else
		bw_server_window(&pending, size, o->verify, 0);
	pp_show(size, iterations, 1, pp_timer_stop());
}

static void rma_post(enum ft_rma op, size_t size, long *pending)
{
	switch (op) {
	case FT_WRITE:
		if (size < inject_size && !(tx_op_flags & FI_DELIVERY_COMPLETE)) {
			POST(fi_inject_write(ep, pp_tx_buf, size, pp_peer, pp_remote_addr, pp_remote_key));
			return;
		}
		POST(fi_write(ep, pp_tx_buf, size, pp_tx_desc, pp_peer, pp_remote_addr, pp_remote_key, &pp_tx_ctx));
		break;
	case FT_WRITEDATA:
		if (size < inject_size && !(tx_op_flags & FI_DELIVERY_COMPLETE)) {
			POST(fi_inject_writedata(ep, pp_tx_buf, size, FT_CQ_DATA, pp_peer, pp_remote_addr, pp_remote_key));
			return;
		}
		POST(fi_writedata(ep, pp_tx_buf, size, pp_tx_desc, FT_CQ_DATA, pp_peer, pp_remote_addr,
				  pp_remote_key, &pp_tx_ctx));
		break;
	case FT_READ:
		POST(fi_read(ep, pp_rx_buf, size, pp_rx_desc, pp_peer, pp_remote_addr, pp_remote_key, &pp_tx_ctx));
		break;
	}
	(*pending)++;
}

/* fi_rma_bw: write and read both ways at once, windows of completions; writedata from the
 * client only, the server acking each window of remote-write completions. */
static void pp_rma_bw(int client, size_t size, long iterations, const struct pp_opts *o)
{
	long in_window = 0, pending = 0;
	int writedata = o->rma_op == FT_WRITEDATA;
	for (long i = 0; i < iterations + o->warmup; i++) {
		if (i == o->warmup)
			pp_timer_start();
		if (!writedata || client)
			rma_post(o->rma_op, size, &pending);
		else {
			/* a remote write with CQ data to wait for; it consumes a receive only where
			 * the provider asks for FI_RX_CQ_DATA (verbs), as fabtests posts one then */
			if (rx_cq_data_mode)
				POST(fi_recv(ep, pp_rx_buf, 0, pp_rx_desc, pp_peer, &pp_rx_ctx));
			pending++;
		}
		if (++in_window == o->window) {
			if (writedata && client)
				bw_client_window(&pending, o->verify);
			else if (writedata)
				bw_server_window(&pending, size, o->verify, 1);
			else
				for (; pending > 0; pending--)
					pp_wait(&tx_fifo, "rma completion");
			in_window = 0;
		}
	}
	if (writedata && client)
		bw_client_window(&pending, o->verify);
	else if (writedata)
		bw_server_window(&pending, size, o->verify, 1);
	else
		for (; pending > 0; pending--)
			pp_wait(&tx_fifo, "rma completion");
	pp_show(size, iterations, 1, pp_timer_stop());
}

/* ft_exchange_keys: both send {addr, len, key} of their receive buffer (addr: its virtual
 * address with FI_MR_VIRT_ADDR, else 0), read the peer's before reposting, then sync. */
static void pp_exchange_keys(int client, uint64_t mr_mode)
{
	struct { uint64_t addr, len, key; } mine = {
		(mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) pp_rx_buf : 0,
		pp_buf_size, fi_mr_key(pp_rx_mr) }, theirs;
	current_step = "rma_bw key exchange";
	memcpy(pp_tx_buf, &mine, sizeof(mine));
	pp_tx_plain(sizeof(mine));
	ft_fill(pp_tx_buf, sizeof(mine));
	pp_wait(&rx_fifo, "the peer's keys");
	memcpy(&theirs, pp_rx_buf, sizeof(theirs));
	pp_post_rx();
	pp_remote_addr = theirs.addr;
	pp_remote_key = theirs.key;
	fprintf(stderr, "peer region addr 0x%" PRIx64 " key 0x%" PRIx64 "\n", pp_remote_addr, pp_remote_key);
	pp_sync(client);
}

static void pp_one_size(int client, size_t size, const struct pp_opts *o)
{
	long iterations = o->iterations;
	int bw = o->mode != FT_PINGPONG;
	if (iterations < 0)
		iterations = (size >= (1u << 20) ? 100 : size >= (1u << 16) ? 1000 : 10000) * (bw ? 2 : 1);
	snprintf(step_text, sizeof(step_text), "size %zu", size);
	current_step = step_text;
	pp_sync(client);
	switch (o->mode) {
	case FT_PINGPONG: pp_pingpong(client, size, iterations, o); break;
	case FT_BW: pp_bw(client, size, iterations, o); break;
	case FT_RMA_BW: pp_rma_bw(client, size, iterations, o); break;
	}
}

/* fabtests' finalize: a 4-byte FI_TRANSMIT_COMPLETE message from both sides at once (tagged:
 * fi_tsendmsg with the next send ordinal); wait for its completion (the peer's ack) and then
 * for the peer's 4 bytes. The provider keeps reading and acking the peer's message while this
 * side waits on its transmit CQ. */
static void pp_finalize(void)
{
	current_step = "finalize";
	struct iovec iov = { .iov_base = pp_tx_buf, .iov_len = 4 };
	if (pp_tagged) {
		struct fi_msg_tagged msg = { .msg_iov = &iov, .desc = &pp_tx_desc, .iov_count = 1,
					     .addr = pp_peer, .tag = pp_tx_seq, .context = &pp_tx_ctx };
		POST(fi_tsendmsg(ep, &msg, FI_TRANSMIT_COMPLETE | FI_COMPLETION));
	} else {
		struct fi_msg msg = { .msg_iov = &iov, .desc = &pp_tx_desc, .iov_count = 1,
				      .addr = pp_peer, .context = &pp_tx_ctx };
		POST(fi_sendmsg(ep, &msg, FI_TRANSMIT_COMPLETE | FI_COMPLETION));
	}
	pp_tx_seq++;
	pp_wait(&tx_fifo, "finalize send");
	pp_wait(&rx_fifo, "finalize receive");
}

static void pp_register(uint64_t mr_mode, int rma)
{
	if (!rma && !mr_local)
		return;
	uint64_t rx_access = FI_RECV | (rma ? FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ : 0);
	uint64_t tx_access = FI_SEND | (rma ? FI_WRITE : 0);
	CHECK(fi_mr_reg(domain, pp_rx_buf, pp_buf_size, rx_access, 0, 11, 0, &pp_rx_mr, NULL));
	CHECK(fi_mr_reg(domain, pp_tx_buf, pp_buf_size, tx_access, 0, 12, 0, &pp_tx_mr, NULL));
	if (mr_mode & FI_MR_ENDPOINT) {
		/* as fabtests' ft_reg_mr: a region of such a domain is bound to the endpoint */
		CHECK(fi_mr_bind(pp_rx_mr, &ep->fid, 0));
		CHECK(fi_mr_enable(pp_rx_mr));
		CHECK(fi_mr_bind(pp_tx_mr, &ep->fid, 0));
		CHECK(fi_mr_enable(pp_tx_mr));
	}
	if (mr_local) {
		pp_rx_desc = fi_mr_desc(pp_rx_mr);
		pp_tx_desc = fi_mr_desc(pp_tx_mr);
	}
}

static size_t max_size(const struct pp_opts *o)
{
	if (o->size_given)
		return o->size;
	if (o->range_given)
		return o->range_start + (o->range_end - o->range_start) / o->range_inc * o->range_inc;
	return 8u << 20;
}

/* ---------------------------------------------------------------- -e rdm */

/* fabtests' hints of fi_rdm_pingpong (FI_MSG), fi_rdm_tagged_pingpong / fi_rdm_tagged_bw
 * (FI_TAGGED) and fi_rma_bw -e rdm (FI_MSG | FI_RMA), with fabtests' default MR mode. */
static struct fi_info *make_rdm_hints(enum ft_mode mode)
{
	struct fi_info *h = fi_allocinfo();
	if (!h)
		fail("fi_allocinfo");
	h->ep_attr->type = FI_EP_RDM;
	h->caps = mode == FT_RMA_BW ? FI_MSG | FI_RMA : pp_tagged ? FI_TAGGED : FI_MSG;
	h->mode = FI_CONTEXT;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ENDPOINT | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED
		| FI_MR_PROV_KEY;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	if (mode != FT_PINGPONG)
		h->domain_attr->resource_mgmt = FI_RM_ENABLED;
	h->tx_attr->tclass = mode == FT_PINGPONG ? FI_TC_LOW_LATENCY : FI_TC_BULK_DATA;
	h->tx_attr->op_flags |= tx_op_flags;
	h->fabric_attr->prov_name = strdup(provider_name);
	return h;
}

static void pp_av_insert(const void *name, const char *whose)
{
	int inserted = fi_av_insert(pp_av, name, 1, &pp_peer, 0, NULL);
	if (inserted != 1)
		fail("fi_av_insert of %s = %d (%s)", whose, inserted,
		     inserted < 0 ? fi_strerror(-inserted) : "not inserted");
}

/* fabtests' ft_init_av: the client inserts the server's address, sends its own name and waits
 * for the 1-byte answer; the server inserts the name its first message carries, reposts that
 * receive and answers at the inserted address. */
static void rdm_exchange_addresses(int client)
{
	current_step = "address exchange";
	if (client) {
		pp_av_insert(base_info->dest_addr, "the server's address");
		size_t len = FT_CTRL_MSG;
		CHECK(fi_getname(&ep->fid, pp_tx_buf, &len));
		pp_tx_plain(len);
		ft_fill(pp_tx_buf, len);   /* the pattern back for the data messages */
		pp_rx(1, 0);
	} else {
		uint8_t name[FT_CTRL_MSG];
		pp_wait(&rx_fifo, "the client's address");
		memcpy(name, pp_rx_buf, sizeof(name));
		pp_av_insert(name, "the client's name");
		pp_post_rx();
		pp_tx_plain(1);
	}
}

/* fabtests' ft_init_fabric for an RDM endpoint: getinfo (the server with FI_SOURCE on -s/-B,
 * the client towards SERVER_ADDR/-P), fabric, domain, CQs, an AV of type map, the endpoint,
 * the registered buffers and the first receive; then the address exchange. */
static struct fi_info *rdm_setup(const struct pp_opts *o, int client)
{
	hints = make_rdm_hints(o->mode);
	if (client)
		CHECK(fi_getinfo(FI_VERSION(1, 17), o->dst_addr, o->dst_port, 0, hints, &base_info));
	else
		CHECK(fi_getinfo(FI_VERSION(1, 17), o->src_addr, o->src_port, FI_SOURCE, hints, &base_info));
	fprintf(stderr, "provider %s\n", base_info->fabric_attr->prov_name);
	CHECK(fi_fabric(base_info->fabric_attr, &fabric, NULL));
	if (pp_tagged)
		cq_format = FI_CQ_FORMAT_TAGGED;
	open_domain_and_cqs(base_info);
	struct fi_av_attr av_attr = { .type = FI_AV_MAP, .count = 1 };
	if (base_info->domain_attr->av_type != FI_AV_UNSPEC)
		av_attr.type = base_info->domain_attr->av_type;
	CHECK(fi_av_open(domain, &av_attr, &pp_av, NULL));
	CHECK(fi_endpoint(domain, base_info, &ep, NULL));
	CHECK(fi_ep_bind(ep, &pp_av->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
	pp_register(base_info->domain_attr->mr_mode, o->mode == FT_RMA_BW);
	pp_peer = FI_ADDR_UNSPEC;
	pp_post_rx();
	if (!client) {
		fprintf(stderr, "listening %d\n", listen_port(&ep->fid));
		fflush(stderr);
	}
	rdm_exchange_addresses(client);
	return base_info;
}

/* fabtests' connection of an MSG endpoint: receives posted before connect / accept. */
static struct fi_info *msg_setup(const struct pp_opts *o, int client)
{
	enum ft_mode mode = o->mode;
	struct fi_info *info;
	if (client) {
		start_client(o->dst_addr, o->dst_port);
		info = base_info;
		open_endpoint(info);
		pp_register(info->domain_attr->mr_mode, mode == FT_RMA_BW);
		pp_post_rx();
		CHECK(fi_connect(ep, base_info->dest_addr, NULL, 0));
		struct item *it = wait_event(FI_CONNECTED, "connect");
		if (it->info)
			fi_freeinfo(it->info);
	} else {
		start_server(o->src_addr, o->src_port, stderr);
		struct item *it = wait_event(FI_CONNREQ, "accept");
		conn_info = it->info;
		info = conn_info;
		open_endpoint(conn_info);
		pp_register(conn_info->domain_attr->mr_mode, mode == FT_RMA_BW);
		pp_post_rx();
		CHECK(fi_accept(ep, NULL, 0));
		it = wait_event(FI_CONNECTED, "accept");
		if (it->info)
			fi_freeinfo(it->info);
	}
	return info;
}

static int run_fabtests(enum ft_mode mode, int argc, char **argv)
{
	struct pp_opts o = { .src_port = "9228", .dst_port = "9228", .iterations = -1,
			     .warmup = 10, .window = 64, .mode = mode, .rma_op = FT_WRITE };
	unsigned timeout = 120;
	int opt;
	optind = 2;
	static const struct option long_options[] = {
		{ "tagged", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	while ((opt = getopt_long(argc, argv, "p:e:S:I:w:W:vXo:UB:P:s:t:", long_options, NULL)) != -1) {
		switch (opt) {
		case 'p':
			provider_name = optarg; /* tcp, or verbs in provider-verbs' VM */
			break;
		case 'e':
			if (!strcmp(optarg, "rdm"))
				o.rdm = 1;
			else if (strcmp(optarg, "msg"))
				usage("-e msg|rdm");
			break;
		case 'T': pp_tagged = 1; break;
		case 'S':
			if (!strncasecmp(optarg, "all", 3)) {
				o.sizes_all = 1;
			} else if (!strncasecmp(optarg, "r:", 2)) {
				if (sscanf(optarg, "r:%zu,%zu,%zu", &o.range_start, &o.range_inc, &o.range_end) != 3
				    || o.range_inc == 0 || o.range_end < o.range_start || o.range_start == 0)
					usage("-S r:START,INC,END");
				o.range_given = 1;
			} else {
				o.size = parse_size(optarg);
				o.size_given = 1;
			}
			break;
		case 'I': o.iterations = (long) parse_size(optarg); break;
		case 'w': o.warmup = (long) parse_size(optarg); break;
		case 'W': o.window = (long) parse_size(optarg); break;
		case 'v': o.verify = 1; break;
		case 'X': o.corrupt = 1; break;
		case 'o':
			if (!strcmp(optarg, "write")) o.rma_op = FT_WRITE;
			else if (!strcmp(optarg, "read")) o.rma_op = FT_READ;
			else if (!strcmp(optarg, "writedata")) o.rma_op = FT_WRITEDATA;
			else usage("-o write|read|writedata");
			break;
		case 'U': tx_op_flags |= FI_DELIVERY_COMPLETE; break;
		case 'B': o.src_port = optarg; break;
		case 'P': o.dst_port = optarg; break;
		case 's': o.src_addr = optarg; break;
		case 't': timeout = (unsigned) parse_size(optarg); break;
		default: usage("unknown fabtests option");
		}
	}
	if (optind < argc)
		o.dst_addr = argv[optind++];
	if (optind < argc)
		usage("more than one server address");
	if (o.window < 1)
		usage("-W must be >= 1");
	if (pp_tagged && (!o.rdm || mode == FT_RMA_BW))
		usage("--tagged is for pingpong and bw with -e rdm (fabtests' fi_rdm_tagged_*)");
	pp_tag_window = mode == FT_PINGPONG ? 0 : o.window;
	start_watchdog(timeout);
	int client = o.dst_addr != NULL;

	size_t largest = max_size(&o);
	pp_buf_size = largest > FT_CTRL_MSG ? largest : FT_CTRL_MSG;
	pp_tx_buf = alloc_buffer(pp_buf_size);
	pp_rx_buf = alloc_buffer(pp_buf_size);
	memset(pp_rx_buf, 0, pp_buf_size);
	/* the pattern once: every message sent is a prefix of it, as fabtests' ft_fill_buf makes */
	ft_fill(pp_tx_buf, pp_buf_size);
	if (o.corrupt)
		pp_tx_buf[5] = '#';

	current_step = "connect";
	struct fi_info *info = o.rdm ? rdm_setup(&o, client) : msg_setup(&o, client);
	fprintf(stderr, "connected\n");
	rx_cq_data_mode = (info->mode & FI_RX_CQ_DATA) != 0;
	if (mode == FT_RMA_BW)
		pp_exchange_keys(client, info->domain_attr->mr_mode);

	if (o.size_given) {
		pp_one_size(client, o.size, &o);
	} else if (o.range_given) {
		for (size_t s = o.range_start; s <= o.range_end; s += o.range_inc)
			pp_one_size(client, s, &o);
	} else if (o.sizes_all) {
		/* fabtests' full table: powers of two and the 1.5x steps between, up to 8 MiB */
		for (size_t s = 1; s <= (8u << 20); s <<= 1) {
			pp_one_size(client, s, &o);
			if (s >= 2 && s + s / 2 < (8u << 20))
				pp_one_size(client, s + s / 2, &o);
		}
	} else {
		static const size_t sizes[] = { 64, 256, 1024, 4096, 65536, 1048576 };
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			pp_one_size(client, sizes[i], &o);
	}
	pp_finalize();
	current_step = "shutdown";
	if (!o.rdm)
		fi_shutdown(ep, 0);   /* an RDM endpoint has no connection to shut down */
	fprintf(stderr, "done OK\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage("no role");
	if (!strcmp(argv[1], "server"))
		return run_script(1, argc, argv);
	if (!strcmp(argv[1], "client"))
		return run_script(0, argc, argv);
	if (!strcmp(argv[1], "pingpong"))
		return run_fabtests(FT_PINGPONG, argc, argv);
	if (!strcmp(argv[1], "bw"))
		return run_fabtests(FT_BW, argc, argv);
	if (!strcmp(argv[1], "rma_bw"))
		return run_fabtests(FT_RMA_BW, argc, argv);
	usage("role must be server, client, pingpong, bw or rma_bw");
	return EXIT_USAGE;
}
