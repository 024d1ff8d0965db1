/*
 * ft_peer_more: the project's C stand-in for four more fabtests 1.17 functional programs, for the
 * tests that run `./jofi ft PROGRAM` against C where fabtests is not built (ft_peer.c has the
 * others). It plays each program's choreography on libfabric's own providers:
 *
 *   ft_peer_more fi_rdm_tagged_peek -t SECONDS [-s ADDR -B PORT | [-F] -P PORT HOST]
 *   ft_peer_more fi_recv_cancel     -t SECONDS [-s ADDR -B PORT | -P PORT HOST]
 *   ft_peer_more fi_msg_inject      -t SECONDS -A inject|inj_complete [-N] [-s ADDR -B PORT | -P PORT HOST]
 *   ft_peer_more fi_msg_sockets     -t SECONDS -s ADDR [-B PORT] [-P PORT HOST]
 *
 * The RDM programs (tcp;ofi_rxm, FI_TAGGED, FI_CONTEXT, FI_RM_ENABLED) start as fabtests'
 * ft_init_fabric does with tagged messages: each side posts a receive (tag 0), the client sends
 * its fi_getname (tag 0), the server inserts it, posts the next receive (tag 1) and answers one
 * byte (tag 0), the client posts its next receive (tag 1). Then:
 *
 * fi_rdm_tagged_peek: the server sends five messages (tags 0x900d + i), waits for their
 * completions and for the client's 1-byte 0xabc; the client searches them with fi_trecvmsg:
 * FI_PEEK and FI_PEEK|FI_CLAIM of 0xbad (FI_ENOMSG), peek then receive the first, peek-claim then
 * claim the second, peek-discard the third (a second peek: FI_ENOMSG), peek-claim then
 * claim-discard the fourth, receive the fifth; both end with fabtests' ft_finalize (4 bytes, tag
 * 1, FI_TRANSMIT_COMPLETE, into the standing receive).
 *
 * fi_recv_cancel: the server posts receives 0xC and 0xA, cancels 0xC (one FI_ECANCELED error entry
 * with FI_RECV, no second), sends the 1-byte sync (tag 1), then takes 0xA and, posted again, 0xC;
 * the client waits for the sync and sends 0xA and 0xC (1024 bytes each).
 *
 * fi_msg_inject: the client sends one tagged message (0xabcd) with FI_INJECT (0 bytes: fabtests
 * cuts the size to the hints' inject_size, which it leaves 0) or FI_INJECT_COMPLETE (1024 bytes
 * of fabtests' pattern), in the hints' tx op_flags or with -N in fi_tsendmsg's flags, and
 * overwrites its buffer before (inject) or after (inj_complete) the completion; the server
 * receives it and checks the pattern.
 *
 * fi_msg_sockets (tcp, MSG): each side opens a passive endpoint, fi_setname's it to -s with -B
 * (the client's default 9229) and prints bound_addr; the server listens ("listening PORT") and
 * accepts, the client's endpoint takes the pep's address (hints->handle) and connects to HOST:-P;
 * each checks its endpoint's name is the bound address; the client sends the greeting, which the
 * server checks.
 *
 * A server prints "listening PORT" once it listens (with -B 0: the port it got). Exit status: 0
 * every check held, 1 one failed, 2 bad usage, 3 the watchdog (-t) fired.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define CTRL 256
#define SIZE 1024
#define GREETING "Hello from Client!"

static struct fi_info *hints, *fi;
static struct fid_fabric *fabric;
static struct fid_eq *eq;
static struct fid_domain *domain;
static struct fid_pep *pep;
static struct fid_ep *ep;
static struct fid_cq *txcq, *rxcq;
static struct fid_av *av;
static fi_addr_t remote = FI_ADDR_UNSPEC;
static char tx_buf[SIZE], rx_buf[SIZE], rx_ctrl[CTRL];
static struct fi_context tx_ctx, rx_ctx;
static int timeout_ms;

#define CHECK(call)                                                                     \
	do {                                                                            \
		int _r = (int) (call);                                                  \
		if (_r) {                                                               \
			fprintf(stderr, "%s: %d (%s)\n", #call, _r, fi_strerror(-_r)); \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

static void watchdog(int sig)
{
	(void) sig;
	fprintf(stderr, "ft_peer_more: watchdog fired\n");
	_exit(3);
}

static void fail(const char *what, int ret)
{
	fprintf(stderr, "%s: %d (%s)\n", what, ret, fi_strerror(ret < 0 ? -ret : ret));
	exit(1);
}

/* One completion by fi_cq_sread: 1, or -err of the error entry read in its place. */
static int cq_one(struct fid_cq *cq, struct fi_cq_tagged_entry *comp)
{
	int r = fi_cq_sread(cq, comp, 1, NULL, timeout_ms);
	if (r == -FI_EAVAIL) {
		struct fi_cq_err_entry err = {0};
		r = fi_cq_readerr(cq, &err, 0);
		return r < 0 ? r : -err.err;
	}
	return r;
}

static void cq_wait(struct fid_cq *cq, struct fi_cq_tagged_entry *comp)
{
	int r = cq_one(cq, comp);
	if (r != 1)
		fail("completion", r);
}

static void tsend(void *buf, size_t len, uint64_t tag, void *ctx)
{
	ssize_t r;
	/* rxm answers EAGAIN while it connects: progress and retry, as fabtests' FT_POST */
	while ((r = fi_tsend(ep, buf, len, NULL, remote, tag, ctx)) == -FI_EAGAIN)
		fi_cq_read(txcq, NULL, 0);
	CHECK(r);
}

static void trecv(void *buf, size_t len, uint64_t tag, void *ctx)
{
	CHECK(fi_trecv(ep, buf, len, NULL, remote, tag, 0, ctx));
}

static int port_of(fid_t fid)
{
	struct sockaddr_storage ss;
	size_t len = sizeof ss;
	CHECK(fi_getname(fid, &ss, &len));
	return ntohs(((struct sockaddr_in *) &ss)->sin_port);
}

/* ft_init_fabric with tagged messages: the receives, the in-band address exchange. */
static void init_rdm(char *src, char *src_port, char *host, char *dst_port)
{
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_UNSPEC};
	struct fi_av_attr av_attr = {.type = FI_AV_UNSPEC, .count = 1};
	struct fi_cq_tagged_entry comp;

	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_TAGGED;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->resource_mgmt = FI_RM_ENABLED;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK(fi_getinfo(FI_VERSION(1, 17), host ? host : src, host ? dst_port : src_port, host ? 0 : FI_SOURCE,
			 hints, &fi));
	CHECK(fi_fabric(fi->fabric_attr, &fabric, NULL));
	CHECK(fi_domain(fabric, fi, &domain, NULL));
	cq_attr.size = fi->tx_attr->size;
	CHECK(fi_cq_open(domain, &cq_attr, &txcq, NULL));
	cq_attr.size = fi->rx_attr->size;
	CHECK(fi_cq_open(domain, &cq_attr, &rxcq, NULL));
	CHECK(fi_av_open(domain, &av_attr, &av, NULL));
	CHECK(fi_endpoint(domain, fi, &ep, NULL));
	CHECK(fi_ep_bind(ep, &av->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
	trecv(rx_ctrl, CTRL, 0, &rx_ctx);
	if (host) {
		size_t len = CTRL;
		CHECK(fi_av_insert(av, fi->dest_addr, 1, &remote, 0, NULL) != 1);
		CHECK(fi_getname(&ep->fid, tx_buf, &len));
		tsend(tx_buf, len, 0, &tx_ctx);
		cq_wait(txcq, &comp);
		cq_wait(rxcq, &comp); /* the server's 1 byte */
	} else {
		printf("listening %d\n", port_of(&ep->fid));
		cq_wait(rxcq, &comp);
		CHECK(fi_av_insert(av, rx_ctrl, 1, &remote, 0, NULL) != 1);
	}
	trecv(rx_ctrl, CTRL, 1, &rx_ctx);
	if (!host) {
		tsend(tx_buf, 1, 0, &tx_ctx);
		cq_wait(txcq, &comp);
	}
}

/* ft_finalize: 4 bytes with FI_TRANSMIT_COMPLETE (tag 1), then the peer's, in the standing receive. */
static void finalize(void)
{
	struct fi_cq_tagged_entry comp;
	struct iovec iov = {.iov_base = tx_buf, .iov_len = 4};
	struct fi_msg_tagged msg = {.msg_iov = &iov, .iov_count = 1, .addr = remote, .tag = 1, .context = &tx_ctx};
	ssize_t r;

	while ((r = fi_tsendmsg(ep, &msg, FI_TRANSMIT_COMPLETE)) == -FI_EAGAIN)
		fi_cq_read(txcq, NULL, 0);
	CHECK(r);
	cq_wait(txcq, &comp);
	cq_wait(rxcq, &comp);
	if (comp.tag != 1)
		fail("finalize: the peer's tag", (int) comp.tag);
}

/* ---- fi_rdm_tagged_peek ---- */

static struct fi_context peek_ctx;

static int trecv_op(uint64_t tag, uint64_t flags, int ignore_nomsg)
{
	struct fi_cq_tagged_entry comp;
	struct iovec iov = {.iov_base = rx_buf, .iov_len = SIZE};
	struct fi_msg_tagged msg = {0};
	int r;

	if (!(flags & (FI_PEEK | FI_DISCARD))) {
		msg.msg_iov = &iov;
		msg.iov_count = 1;
	}
	msg.addr = remote;
	msg.tag = tag;
	msg.context = &peek_ctx;
	do {
		CHECK(fi_trecvmsg(ep, &msg, flags));
		r = cq_one(rxcq, &comp);
	} while (ignore_nomsg && r == -FI_ENOMSG);
	if (r == 1 && comp.tag != tag)
		fail("trecvmsg: the completion's tag", (int) comp.tag);
	return r;
}

static void step(const char *line, uint64_t tag, uint64_t flags, int ignore_nomsg, int want)
{
	int r;
	printf("%s\n", line);
	r = trecv_op(tag, flags, ignore_nomsg);
	if (r != want)
		fail(line, r);
}

/*
 * With -F the client sends its ft_finalize message before the sync, as a fast client's can arrive
 * in fabtests' race (docs/FABTESTS.md item 18): the server's sync read then takes the finalize
 * message's completion and its ft_finalize the sync's, which it prints, exiting 0 as fabtests does.
 */
static int finalize_first;

static void finalize_then_sync(void)
{
	struct fi_cq_tagged_entry comp;
	struct iovec iov = {.iov_base = tx_buf, .iov_len = 4};
	struct fi_msg_tagged msg = {.msg_iov = &iov, .iov_count = 1, .addr = remote, .tag = 1, .context = &tx_ctx};

	CHECK(fi_tsendmsg(ep, &msg, FI_TRANSMIT_COMPLETE));
	cq_wait(txcq, &comp);
	tsend(tx_buf, 1, 0xabc, &tx_ctx);
	cq_wait(txcq, &comp);
	cq_wait(rxcq, &comp);
	if (comp.tag != 1)
		fail("finalize: the peer's tag", (int) comp.tag);
}

static int tagged_peek(char *host)
{
	struct fi_cq_tagged_entry comp;
	static struct fi_context send_ctx[5];
	int i;

	if (host) {
		step("Searching for a bad msg", 0xbad, FI_PEEK, 0, -FI_ENOMSG);
		step("Searching for a bad msg with claim", 0xbad, FI_PEEK | FI_CLAIM, 0, -FI_ENOMSG);
		step("Searching for first msg", 0x900d, FI_PEEK, 1, 1);
		step("Receiving first msg", 0x900d, 0, 0, 1);
		step("Searching for second msg to claim", 0x900d + 1, FI_PEEK | FI_CLAIM, 1, 1);
		step("Receiving second msg", 0x900d + 1, FI_CLAIM, 0, 1);
		step("Searching for third msg to peek and discard", 0x900d + 2, FI_PEEK | FI_DISCARD, 1, 1);
		step("Checking to see if third msg was discarded", 0x900d + 2, FI_PEEK, 0, -FI_ENOMSG);
		step("Searching for fourth msg to claim and discard", 0x900d + 3, FI_PEEK | FI_CLAIM, 1, 1);
		step("Discarding fourth msg", 0x900d + 3, FI_CLAIM | FI_DISCARD, 0, 1);
		step("Retrieving fifth message", 0x900d + 4, 0, 0, 1);
		if (finalize_first) {
			finalize_then_sync();
			return 0;
		}
		tsend(tx_buf, 1, 0xabc, &send_ctx[0]);
		cq_wait(txcq, &comp);
	} else {
		printf("Sending five tagged messages\n");
		for (i = 0; i < 5; i++)
			tsend(tx_buf, SIZE, 0x900d + i, &send_ctx[i]);
		printf("Waiting for messages to complete\n");
		for (i = 0; i < 5; i++)
			cq_wait(txcq, &comp);
		trecv(rx_buf, SIZE, 0xabc, &peek_ctx);
		cq_wait(rxcq, &comp);
		if (comp.tag != 0xabc)
			fail("sync: the completion's tag", (int) comp.tag);
	}
	finalize();
	return 0;
}

/* ---- fi_recv_cancel ---- */

static int recv_cancel(char *host)
{
	struct fi_cq_tagged_entry comp;
	struct fi_cq_err_entry err = {0};
	struct fi_context cancel_ctx, standard_ctx;
	int r, tries = 0;

	if (host) {
		cq_wait(rxcq, &comp); /* the server's sync, tag 1 */
		tsend(tx_buf, SIZE, 0xA, &tx_ctx);
		printf("STANDARD msg posted to server\n");
		tsend(tx_buf, SIZE, 0xC, &tx_ctx);
		printf("CANCEL msg posted to server\n");
		cq_wait(txcq, &comp);
		cq_wait(txcq, &comp);
		return 0;
	}
	trecv(rx_buf, SIZE, 0xC, &cancel_ctx);
	trecv(rx_buf, SIZE, 0xA, &standard_ctx);
	CHECK(fi_cancel(&ep->fid, &cancel_ctx));
	while ((r = fi_cq_read(rxcq, &comp, 1)) == -FI_EAGAIN && ++tries < 500)
		usleep(1000);
	if (r != -FI_EAVAIL)
		fail("no error entry after fi_cancel", r);
	printf("GOOD: detected error cq entry\n");
	if (fi_cq_readerr(rxcq, &err, 0) != 1 || err.err != FI_ECANCELED || !(err.flags & FI_RECV)
	    || err.op_context != &cancel_ctx)
		fail("the cancelled receive's error entry", err.err);
	printf("GOOD: error entry has expected values\n");
	if ((r = fi_cq_readerr(rxcq, &err, 0)) != -FI_EAGAIN)
		fail("a second error entry", r);
	printf("GOOD: no extra error entries detected\n");
	tsend(tx_buf, 1, 1, &tx_ctx);
	cq_wait(txcq, &comp);
	cq_wait(rxcq, &comp);
	if (comp.op_context != &standard_ctx)
		fail("the standard receive's completion", 0);
	printf("GOOD: Completed uncancelled recv\n");
	trecv(rx_buf, SIZE, 0xC, &cancel_ctx);
	cq_wait(rxcq, &comp);
	if (comp.op_context != &cancel_ctx)
		fail("the reposted receive's completion", 0);
	printf("GOOD: Completed reposted cancelled recv\n");
	printf("GOOD: Completed Recv Cancel Test\n");
	return 0;
}

/* ---- fi_msg_inject ---- */

/* fabtests' ft_fill_buf pattern */
static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static int msg_inject(char *host, uint64_t flag, int use_sendmsg)
{
	struct fi_cq_tagged_entry comp;
	size_t size = flag & FI_INJECT ? 0 : SIZE, i;
	const char *name = flag & FI_INJECT ? "FI_INJECT" : "FI_INJECT_COMPLETE";

	printf("Start testing %s\n", name);
	if (host) {
		for (i = 0; i < size; i++)
			tx_buf[i] = alphabet[i % (sizeof alphabet - 1)];
		if (use_sendmsg) {
			struct iovec iov = {.iov_base = tx_buf, .iov_len = size};
			struct fi_msg_tagged msg = {.msg_iov = &iov, .iov_count = 1, .addr = remote, .tag = 0xabcd,
						    .context = &tx_ctx};
			ssize_t r;
			while ((r = fi_tsendmsg(ep, &msg, flag)) == -FI_EAGAIN)
				fi_cq_read(txcq, NULL, 0);
			CHECK(r);
		} else {
			tsend(tx_buf, size, 0xabcd, &tx_ctx);
		}
		if (flag & FI_INJECT)
			memset(tx_buf, 0xb, size);
		cq_wait(txcq, &comp);
		if (comp.op_context != &tx_ctx)
			fail("the send's completion context", 0);
		memset(tx_buf, 0xb, size);
	} else {
		trecv(rx_buf, SIZE, 0xabcd, &tx_ctx);
		cq_wait(rxcq, &comp);
		if (comp.tag != 0xabcd || comp.op_context != &tx_ctx || comp.len != size)
			fail("the injected message's completion", (int) comp.len);
		for (i = 0; i < size; i++)
			if (rx_buf[i] != alphabet[i % (sizeof alphabet - 1)])
				fail("Data check error", (int) i);
	}
	printf("GOOD: Completed %s Testing\n", name);
	return 0;
}

/* ---- fi_msg_sockets ---- */

static struct sockaddr_storage bound;
static size_t bound_len = sizeof bound;

static void check_address(fid_t fid, const char *when)
{
	struct sockaddr_storage name = {0};
	size_t len = sizeof name;
	CHECK(fi_getname(fid, &name, &len));
	if (len != bound_len || memcmp(&name, &bound, len)) {
		fprintf(stderr, "address changed after %s\n", when);
		exit(1);
	}
}

static int msg_sockets(char *src, char *src_port, char *host, char *dst_port)
{
	struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_UNSPEC};
	struct fi_eq_cm_entry entry;
	struct fi_cq_tagged_entry comp;
	struct fi_info *fi_pep, *info;
	struct addrinfo aihints = {.ai_flags = AI_PASSIVE}, *ai;
	char text[INET6_ADDRSTRLEN];
	uint32_t event;

	if (!src_port)
		src_port = host ? "9229" : "9228";
	if (getaddrinfo(src, src_port, &aihints, &ai))
		fail("getaddrinfo", -FI_ENODATA);
	hints->ep_attr->type = FI_EP_MSG;
	hints->caps = FI_MSG;
	hints->addr_format = ai->ai_family == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp");
	CHECK(fi_getinfo(FI_VERSION(1, 17), src, NULL, FI_SOURCE, hints, &fi_pep));
	free(fi_pep->src_addr); /* the passive endpoint opens without an address: fi_setname gives it */
	fi_pep->src_addr = NULL;
	fi_pep->src_addrlen = 0;
	CHECK(fi_fabric(fi_pep->fabric_attr, &fabric, NULL));
	CHECK(fi_eq_open(fabric, &eq_attr, &eq, NULL));
	CHECK(fi_passive_ep(fabric, fi_pep, &pep, NULL));
	CHECK(fi_setname(&pep->fid, ai->ai_addr, ai->ai_addrlen));
	CHECK(fi_getname(&pep->fid, &bound, &bound_len));
	inet_ntop(bound.ss_family, bound.ss_family == AF_INET6 ? (void *) &((struct sockaddr_in6 *) &bound)->sin6_addr
			: (void *) &((struct sockaddr_in *) &bound)->sin_addr, text, sizeof text);
	printf("bound_addr: \"[%s]:%d\"\n", text, port_of(&pep->fid));
	freeaddrinfo(ai);
	if (!host) {
		CHECK(fi_pep_bind(pep, &eq->fid, 0));
		CHECK(fi_listen(pep));
		printf("listening %d\n", port_of(&pep->fid));
		if (fi_eq_sread(eq, &event, &entry, sizeof entry, timeout_ms, 0) != sizeof entry || event != FI_CONNREQ)
			fail("the connection request", 0);
		info = entry.info;
	} else {
		hints->handle = &pep->fid;
		CHECK(fi_getinfo(FI_VERSION(1, 17), host, dst_port, 0, hints, &info));
		hints->handle = NULL;
	}
	CHECK(fi_domain(fabric, info, &domain, NULL));
	CHECK(fi_cq_open(domain, &cq_attr, &txcq, NULL));
	CHECK(fi_cq_open(domain, &cq_attr, &rxcq, NULL));
	CHECK(fi_endpoint(domain, info, &ep, NULL));
	if (host) {
		fi_close(&pep->fid);
		pep = NULL;
	}
	CHECK(fi_ep_bind(ep, &eq->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
	CHECK(fi_recv(ep, rx_buf, SIZE, NULL, FI_ADDR_UNSPEC, &rx_ctx));
	if (host) {
		check_address(&ep->fid, "fi_endpoint (ep)");
		CHECK(fi_connect(ep, info->dest_addr, NULL, 0));
	} else {
		CHECK(fi_accept(ep, NULL, 0));
	}
	if (fi_eq_sread(eq, &event, &entry, sizeof entry, timeout_ms, 0) != sizeof entry || event != FI_CONNECTED)
		fail("FI_CONNECTED", 0);
	check_address(&ep->fid, host ? "connect" : "accept");
	if (host) {
		printf("Sending message...\n");
		strcpy(tx_buf, GREETING);
		CHECK(fi_send(ep, tx_buf, strlen(GREETING) + 1, NULL, FI_ADDR_UNSPEC, &tx_ctx));
		cq_wait(txcq, &comp);
		printf("Send completion received\n");
	} else {
		printf("Waiting for message from client...\n");
		cq_wait(rxcq, &comp);
		if (strcmp(rx_buf, GREETING))
			fail("Received message does not match expected message.", 0);
		printf("Data check OK\nReceived data from client: %s\n", rx_buf);
	}
	fi_shutdown(ep, 0);
	return 0;
}

int main(int argc, char **argv)
{
	char *src = "127.0.0.1", *src_port = NULL, *dst_port = "9228", *host = NULL, *program;
	int op, seconds = 25, use_sendmsg = 0, ret;
	uint64_t flag = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ft_peer_more PROGRAM -t SECONDS [-A inject|inj_complete] [-N] "
				"[-s ADDR] [-B PORT] [-P PORT] [HOST]\n");
		return 2;
	}
	program = argv[1];
	optind = 2;
	while ((op = getopt(argc, argv, "t:s:B:P:A:NF")) != -1) {
		switch (op) {
		case 't': seconds = atoi(optarg); break;
		case 's': src = optarg; break;
		case 'B': src_port = optarg; break;
		case 'P': dst_port = optarg; break;
		case 'A': flag = strncmp(optarg, "inj_complete", 12) ? FI_INJECT : FI_INJECT_COMPLETE; break;
		case 'N': use_sendmsg = 1; break;
		case 'F': finalize_first = 1; break;
		default: return 2;
		}
	}
	if (optind < argc)
		host = argv[optind];
	signal(SIGALRM, watchdog);
	alarm(seconds);
	timeout_ms = seconds * 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	hints = fi_allocinfo();

	if (!strcmp(program, "fi_msg_sockets"))
		return msg_sockets(src, src_port, host, dst_port);
	if (!strcmp(program, "fi_msg_inject")) {
		if (!flag)
			return 2;
		if (!use_sendmsg)
			hints->tx_attr->op_flags = flag;
	} else if (strcmp(program, "fi_rdm_tagged_peek") && strcmp(program, "fi_recv_cancel")) {
		fprintf(stderr, "unknown program %s\n", program);
		return 2;
	}
	init_rdm(src, src_port ? src_port : "9228", host, dst_port);
	if (!strcmp(program, "fi_rdm_tagged_peek"))
		ret = tagged_peek(host);
	else if (!strcmp(program, "fi_recv_cancel"))
		ret = recv_cancel(host);
	else
		ret = msg_inject(host, flag, use_sendmsg);
	fi_close(&ep->fid);
	fi_close(&av->fid);
	fi_close(&rxcq->fid);
	fi_close(&txcq->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	return ret;
}
