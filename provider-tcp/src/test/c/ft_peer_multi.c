/*
 * ft_peer_multi: the project's C stand-in for fabtests 1.17's fi_bw, fi_rdm -U and
 * fi_rdm_multi_client, on libfabric's own tcp (MSG) and tcp;ofi_rxm (RDM), for the tests that run
 * `./jofi ft PROGRAM` against C where fabtests is not built. Same choreography as fabtests:
 *
 * - set-up: the receive posted before the connection (MSG) or before the in-band address exchange
 *   (RDM: the client sends its fi_getname, the server answers 1 byte);
 * - fi_rdm [-U]: the client's greeting "Hello from Client!" with its NUL, checked by the server;
 * - fi_bw [-v] [-T S] [-W N] [-S SIZE] [-U]: one byte each way, then per size (fabtests' defaults
 *   64, 256, 1k, 4k, 64k, 1m, or -S) a window: the server sleeps -T seconds, posts N receives and
 *   checks each with -v; the client sends N messages of fabtests' pattern; a 1-byte sync each way;
 * - fi_rdm_multi_client -C N [-I ITERS] [-U] [-R]: the server plays ITERS pingpongs of 1024 bytes with
 *   each of N clients, one after the other, each announced by a new address exchange on the same
 *   endpoint; the client side opens, plays and closes a whole fabric per client (-R: the later
 *   clients' endpoints take the first one's name as their source address, as fabtests' -R).
 *
 * - fi_multi_ep -E OOB_PORT [-c N] [-v]: fabtests' out-of-band socket (the server listens on -s at
 *   OOB_PORT, 0: any, and prints "listening PORT" for it); besides the first endpoint N more (default
 *   3) with CQs of their own, MSG ones connected one by one, RDM ones named over the socket; a
 *   256-byte message each way on each (-v: the pattern, checked), then 4 bytes each way on the first.
 *
 * - fi_av_xfer -E OOB_PORT (RDM, FI_TAGGED, tags as fabtests' tx_seq/rx_seq): two tests on fresh
 *   fabrics over one out-of-band socket, names exchanged and syncs done over it: "AV address removal"
 *   (a message client to server, the peer's address removed on both sides, a sync, the names
 *   exchanged again, a message server to client) and "AV re-insertion address" (both client to server).
 *
 * -U asks tx_attr->op_flags = FI_DELIVERY_COMPLETE in the hints, as fabtests.
 *
 *   ft_peer_multi PROGRAM -t SECONDS [-e msg|rdm] [-s ADDR] [-B PORT] [-P PORT] [OPTIONS] [HOST]
 *
 * Without HOST it is the server; with -B 0 it prints "listening PORT" once it listens. Exit
 * status: 0 every check held, 1 one failed, 2 bad usage, 3 the watchdog (-t) fired.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define CTRL 256
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
static char *tx_buf, *rx_buf;
static size_t buf_size = 1024 > CTRL ? 1024 : CTRL;
static int timeout_ms, rdm = 1;
static char *src = "127.0.0.1", *src_port = "9228", *dst_port = "9228", *host;

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
	fprintf(stderr, "ft_peer_multi: watchdog fired\n");
	_exit(3);
}

/* waits for n completions of cq */
static void cq_wait(struct fid_cq *cq, int n)
{
	struct fi_cq_entry comp;
	while (n > 0) {
		int r = fi_cq_sread(cq, &comp, 1, NULL, timeout_ms);
		if (r == 1) {
			n--;
			continue;
		}
		if (r == -FI_EAVAIL) {
			struct fi_cq_err_entry err = {0};
			fi_cq_readerr(cq, &err, 0);
			fprintf(stderr, "completion error %d (%s)\n", err.err, fi_strerror(err.err));
		} else {
			fprintf(stderr, "fi_cq_sread: %d (%s)\n", r, fi_strerror(-r));
		}
		exit(1);
	}
}

static void eq_wait(uint32_t want, struct fi_eq_cm_entry *entry)
{
	uint32_t event;
	ssize_t r = fi_eq_sread(eq, &event, entry, sizeof *entry, timeout_ms, 0);
	if (r != sizeof *entry || event != want) {
		fprintf(stderr, "fi_eq_sread: %zd event %u (want %u)\n", r, event, want);
		exit(1);
	}
}

static int tagged;
static uint64_t tx_seq, rx_seq;

static void post_rx_into(char *buf, size_t len)
{
	ssize_t r;
	while ((r = tagged ? fi_trecv(ep, buf, len, NULL, FI_ADDR_UNSPEC, rx_seq, 0, buf)
			   : fi_recv(ep, buf, len, NULL, remote, buf)) == -FI_EAGAIN)
		fi_cq_read(rxcq, NULL, 0);
	CHECK(r);
	rx_seq++;
}

static void post_rx(void)
{
	post_rx_into(rx_buf, buf_size);
}

/* a send that rxm may answer -FI_EAGAIN while it connects: progress and retry, as FT_POST */
static void post_tx(char *buf, size_t len)
{
	ssize_t r;
	while ((r = tagged ? fi_tsend(ep, buf, len, NULL, remote, tx_seq, buf)
			   : fi_send(ep, buf, len, NULL, remote, buf)) == -FI_EAGAIN)
		fi_cq_read(txcq, NULL, 0);
	CHECK(r);
	tx_seq++;
}

static void tx(size_t len)
{
	post_tx(tx_buf, len);
	cq_wait(txcq, 1);
}

static int port_of(fid_t fid)
{
	struct sockaddr_storage ss;
	size_t len = sizeof ss;
	CHECK(fi_getname(fid, &ss, &len));
	return ntohs(((struct sockaddr_in *) &ss)->sin_port);
}

static void open_active(struct fi_info *info)
{
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_UNSPEC};
	struct fi_av_attr av_attr = {.type = FI_AV_UNSPEC, .count = 1};

	if (!domain)
		CHECK(fi_domain(fabric, info, &domain, NULL));
	cq_attr.size = info->tx_attr->size;
	CHECK(fi_cq_open(domain, &cq_attr, &txcq, NULL));
	cq_attr.size = info->rx_attr->size;
	CHECK(fi_cq_open(domain, &cq_attr, &rxcq, NULL));
	if (rdm)
		CHECK(fi_av_open(domain, &av_attr, &av, NULL));
	CHECK(fi_endpoint(domain, info, &ep, NULL));
	CHECK(fi_ep_bind(ep, rdm ? &av->fid : &eq->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
	post_rx();
}

/* the server side of the in-band address exchange: the client's name in the posted receive */
static void server_av(void)
{
	cq_wait(rxcq, 1);
	CHECK(fi_av_insert(av, rx_buf, 1, &remote, 0, NULL) != 1);
	post_rx();
	tx(1);
}

/* fi_getinfo, fi_fabric, fi_eq_open */
static void init_fabric_only(void)
{
	struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};

	CHECK(fi_getinfo(FI_VERSION(1, 17), host ? host : src, host ? dst_port : src_port, host ? 0 : FI_SOURCE,
			 hints, &fi));
	CHECK(fi_fabric(fi->fabric_attr, &fabric, NULL));
	CHECK(fi_eq_open(fabric, &eq_attr, &eq, NULL));
}

/* fi_rdm_multi_client -R: the first client's name, which the later clients bind */
static int reuse;
static char reuse_name[CTRL];
static size_t reuse_len;

/* fi_getinfo .. connected (MSG) or addresses exchanged (RDM); prints "listening PORT" as a server */
static void init(void)
{
	struct fi_eq_cm_entry entry;

	init_fabric_only();
	if (!rdm && !host) {
		CHECK(fi_passive_ep(fabric, fi, &pep, NULL));
		CHECK(fi_pep_bind(pep, &eq->fid, 0));
		CHECK(fi_listen(pep));
		printf("listening %d\n", port_of(&pep->fid));
		eq_wait(FI_CONNREQ, &entry);
		open_active(entry.info);
		fi_freeinfo(entry.info);
		CHECK(fi_accept(ep, NULL, 0));
		eq_wait(FI_CONNECTED, &entry);
	} else if (!rdm) {
		open_active(fi);
		CHECK(fi_connect(ep, fi->dest_addr, NULL, 0));
		eq_wait(FI_CONNECTED, &entry);
	} else if (host) {
		size_t len = CTRL;
		if (reuse && reuse_len) {
			/* fi_rdm_multi_client -R: a later client takes the first one's address */
			if (!fi->src_addr)
				fi->src_addr = malloc(reuse_len);
			memcpy(fi->src_addr, reuse_name, reuse_len);
			fi->src_addrlen = reuse_len;
		}
		open_active(fi);
		if (reuse && !reuse_len) {
			reuse_len = sizeof(reuse_name);
			CHECK(fi_getname(&ep->fid, reuse_name, &reuse_len));
		}
		CHECK(fi_av_insert(av, fi->dest_addr, 1, &remote, 0, NULL) != 1);
		CHECK(fi_getname(&ep->fid, tx_buf, &len));
		tx(len);
		cq_wait(rxcq, 1); /* the server's 1 byte */
		post_rx();
	} else {
		open_active(fi);
		printf("listening %d\n", port_of(&ep->fid));
		server_av();
	}
}

static void fini(void)
{
	if (!rdm)
		fi_shutdown(ep, 0);
	fi_close(&ep->fid);
	if (av)
		fi_close(&av->fid);
	fi_close(&rxcq->fid);
	fi_close(&txcq->fid);
	if (pep)
		fi_close(&pep->fid);
	fi_close(&domain->fid);
	fi_close(&eq->fid);
	fi_close(&fabric->fid);
	fi_freeinfo(fi);
	ep = NULL, av = NULL, pep = NULL, domain = NULL, eq = NULL, fabric = NULL, fi = NULL;
	remote = FI_ADDR_UNSPEC;
}

static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static void fill(char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = alphabet[i % (sizeof alphabet - 1)];
}

static int check(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (b[i] != alphabet[i % (sizeof alphabet - 1)]) {
			printf("Data check error (%c!=%c) at byte %zu for buffer size %zu\n",
			       alphabet[i % (sizeof alphabet - 1)], b[i], i, n);
			return 1;
		}
	}
	return 0;
}

static int greeting(void)
{
	if (host) {
		printf("Sending message...\n");
		strcpy(tx_buf, GREETING);
		tx(strlen(GREETING) + 1);
		printf("Send completion received\n");
		return 0;
	}
	printf("Waiting for message from client...\n");
	cq_wait(rxcq, 1);
	if (strcmp(rx_buf, GREETING)) {
		fprintf(stderr, "Received message does not match expected message.\n");
		return 1;
	}
	printf("Data check OK\nReceived data from client: %s\n", rx_buf);
	return 0;
}

static int bw(int verify, int sleep_s, int window, size_t only)
{
	static const size_t sizes[] = {64, 256, 1024, 4096, 65536, 1048576};
	size_t largest = only ? only : sizes[5], slot = largest > CTRL ? largest : CTRL;
	char *win = malloc(slot * window);

	tx(1);
	cq_wait(rxcq, 1); /* the peer's byte, in the receive posted at the set-up */
	for (int s = 0; s < (only ? 1 : 6); s++) {
		size_t size = only ? only : sizes[s];
		size_t len = size > CTRL ? size : CTRL;
		if (host) {
			if (verify)
				fill(win, size);
			for (int i = 0; i < window; i++)
				post_tx(win, size);
			cq_wait(txcq, window);
		} else {
			sleep(sleep_s);
			for (int i = 0; i < window; i++)
				post_rx_into(win + i * len, len);
			cq_wait(rxcq, window);
			for (int i = 0; verify && i < window; i++)
				if (check(win + i * len, size))
					return 1;
		}
		post_rx();
		if (host) {
			tx(1);
			cq_wait(rxcq, 1);
		} else {
			cq_wait(rxcq, 1);
			tx(1);
		}
		printf("bytes %zu window %d ok\n", size, window);
	}
	free(win);
	return 0;
}

static void pingpong(int iters)
{
	printf("Start ping-pong.\n");
	for (int i = 0; i < iters; i++) {
		if (host) {
			tx(1024);
			cq_wait(rxcq, 1);
			post_rx();
		} else {
			cq_wait(rxcq, 1);
			post_rx();
			tx(1024);
		}
	}
	printf("Ping-pong succeeds.\n");
}

/* ---- fi_multi_ep ---- */

static int oob_fd = -1;

static void sock_io(void *buf, size_t len, int out)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = out ? send(oob_fd, (char *) buf + done, len - done, 0)
				: recv(oob_fd, (char *) buf + done, len - done, 0);
		if (r <= 0) {
			fprintf(stderr, "out-of-band socket: %zd\n", r);
			exit(1);
		}
		done += r;
	}
}

/* ft_init_oob: the server listens at src:port (printing its port) and accepts one; the client connects */
static void oob_open(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1;

	inet_pton(AF_INET, host ? host : src, &sa.sin_addr);
	if (host) {
		oob_fd = socket(AF_INET, SOCK_STREAM, 0);
		CHECK(connect(oob_fd, (struct sockaddr *) &sa, sizeof sa));
	} else {
		socklen_t len = sizeof sa;
		int l = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		CHECK(bind(l, (struct sockaddr *) &sa, sizeof sa));
		CHECK(listen(l, 1));
		CHECK(getsockname(l, (struct sockaddr *) &sa, &len));
		printf("listening %d\n", ntohs(sa.sin_port));
		oob_fd = accept(l, NULL, NULL);
		CHECK(oob_fd < 0);
		close(l);
	}
}

/* ft_exchange_addresses_oob: each side's name in a 256-byte message, the peer's inserted */
static fi_addr_t oob_exchange(struct fid_ep *e)
{
	char name[CTRL] = {0};
	size_t len = CTRL;
	fi_addr_t addr;

	CHECK(fi_getname(&e->fid, name, &len));
	sock_io(name, CTRL, 1);
	sock_io(name, CTRL, 0);
	CHECK(fi_av_insert(av, name, 1, &addr, 0, NULL) != 1);
	return addr;
}

static void open_extra(struct fi_info *info, struct fid_ep **e, struct fid_cq **tc, struct fid_cq **rc)
{
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_UNSPEC};

	CHECK(fi_endpoint(domain, info, e, NULL));
	cq_attr.size = info->tx_attr->size;
	CHECK(fi_cq_open(domain, &cq_attr, tc, NULL));
	cq_attr.size = info->rx_attr->size;
	CHECK(fi_cq_open(domain, &cq_attr, rc, NULL));
	CHECK(fi_ep_bind(*e, rdm ? &av->fid : &eq->fid, 0));
	CHECK(fi_ep_bind(*e, &(*tc)->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(*e, &(*rc)->fid, FI_RECV));
	CHECK(fi_enable(*e));
}

static int multi_ep(int oob_port, int n, int verify)
{
	struct fid_ep *eps[n];
	struct fid_cq *tcs[n], *rcs[n];
	struct fi_eq_cm_entry entry;
	fi_addr_t addrs[n];
	char *bufs = calloc(2 * n, 256);
	ssize_t r;

	if (!rdm && !host) {
		/* listening before the out-of-band accept: a client's connect never beats the listen */
		init_fabric_only();
		CHECK(fi_passive_ep(fabric, fi, &pep, NULL));
		CHECK(fi_pep_bind(pep, &eq->fid, 0));
		CHECK(fi_listen(pep));
		oob_open(oob_port);
	} else {
		oob_open(oob_port);
		init_fabric_only();
	}
	if (rdm) {
		open_active(fi);
		remote = oob_exchange(ep);
	} else if (host) {
		open_active(fi);
		CHECK(fi_connect(ep, fi->dest_addr, NULL, 0));
		eq_wait(FI_CONNECTED, &entry);
	} else {
		eq_wait(FI_CONNREQ, &entry);
		open_active(entry.info);
		fi_freeinfo(entry.info);
		CHECK(fi_accept(ep, NULL, 0));
		eq_wait(FI_CONNECTED, &entry);
	}
	printf("Creating %d EPs\n", n);
	for (int i = 0; i < n; i++) {
		addrs[i] = FI_ADDR_UNSPEC;
		if (rdm) {
			struct fi_info *h = fi_dupinfo(fi), *info;
			free(h->src_addr);
			h->src_addr = NULL;
			h->src_addrlen = 0;
			CHECK(fi_getinfo(FI_VERSION(1, 17), src, NULL, 0, h, &info));
			open_extra(info, &eps[i], &tcs[i], &rcs[i]);
			fi_freeinfo(info);
			fi_freeinfo(h);
		} else if (host) {
			open_extra(fi, &eps[i], &tcs[i], &rcs[i]);
			CHECK(fi_connect(eps[i], fi->dest_addr, NULL, 0));
			eq_wait(FI_CONNECTED, &entry);
		} else {
			eq_wait(FI_CONNREQ, &entry);
			open_extra(entry.info, &eps[i], &tcs[i], &rcs[i]);
			fi_freeinfo(entry.info);
			CHECK(fi_accept(eps[i], NULL, 0));
			eq_wait(FI_CONNECTED, &entry);
		}
	}
	for (int i = 0; rdm && i < n; i++)
		addrs[i] = oob_exchange(eps[i]);
	for (int i = 0; i < n; i++)
		CHECK(fi_recv(eps[i], bufs + (n + i) * 256, 256, NULL, FI_ADDR_UNSPEC, NULL));
	printf("Send to all %d remote EPs\n", n);
	for (int i = 0; i < n; i++) {
		if (verify)
			fill(bufs + i * 256, 256);
		while ((r = fi_send(eps[i], bufs + i * 256, 256, NULL, addrs[i], NULL)) == -FI_EAGAIN)
			fi_cq_read(tcs[i], NULL, 0);
		CHECK(r);
	}
	printf("Wait for all messages from peer\n");
	for (int i = 0; i < n; i++) {
		cq_wait(tcs[i], 1);
		cq_wait(rcs[i], 1);
	}
	for (int i = 0; verify && i < n; i++)
		if (check(bufs + (n + i) * 256, 256))
			return 1;
	if (verify)
		printf("Data check OK\n");
	tx(4);
	cq_wait(rxcq, 1);
	printf("PASSED multi ep\n");
	for (int i = 0; i < n; i++) {
		if (!rdm)
			fi_shutdown(eps[i], 0);
		fi_close(&eps[i]->fid);
		fi_close(&tcs[i]->fid);
		fi_close(&rcs[i]->fid);
	}
	free(bufs);
	return 0;
}

/* ---- fi_av_xfer ---- */

static void oob_sync(void)
{
	char c = 0;
	sock_io(&c, 1, host != NULL);
	sock_io(&c, 1, host == NULL);
}

static int av_xfer(int oob_port)
{
	const char *titles[] = {"AV address removal: ", "AV re-insertion address: "};

	oob_open(oob_port);
	for (int t = 0; t < 2; t++) {
		printf("%s", titles[t]);
		tx_seq = rx_seq = 0;
		init_fabric_only();
		open_active(fi);
		remote = oob_exchange(ep);
		if (host) {
			tx(1024);
		} else {
			cq_wait(rxcq, 1);
			post_rx();
		}
		CHECK(fi_av_remove(av, &remote, 1, 0));
		oob_sync();
		remote = oob_exchange(ep);
		if ((host != NULL) == (t == 0)) {
			cq_wait(rxcq, 1);
			post_rx();
		} else {
			tx(1024);
		}
		oob_sync();
		printf("PASS\n");
		fini();
		if (host && t == 0)
			sleep(1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *program;
	int op, seconds = 25, verify = 0, sleep_s = 0, window = 64, clients = 1, iters = 1000, ret = 0;
	int oob_port = 3000, eps = 3;
	size_t only = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ft_peer_multi fi_bw|fi_rdm|fi_rdm_multi_client|fi_multi_ep|fi_av_xfer -t SECONDS [OPTIONS] [HOST]\n");
		return 2;
	}
	program = argv[1];
	if (strcmp(program, "fi_bw") && strcmp(program, "fi_rdm") && strcmp(program, "fi_rdm_multi_client")
	    && strcmp(program, "fi_multi_ep") && strcmp(program, "fi_av_xfer")) {
		fprintf(stderr, "unknown program %s\n", program);
		return 2;
	}
	hints = fi_allocinfo();
	optind = 2;
	while ((op = getopt(argc, argv, "t:e:s:B:P:URvT:W:S:C:I:E:c:")) != -1) {
		switch (op) {
		case 't': seconds = atoi(optarg); break;
		case 'e': rdm = !strcmp(optarg, "rdm"); break;
		case 's': src = optarg; break;
		case 'B': src_port = optarg; break;
		case 'P': dst_port = optarg; break;
		case 'U': hints->tx_attr->op_flags |= FI_DELIVERY_COMPLETE; break;
		case 'R': reuse = 1; break;
		case 'v': verify = 1; break;
		case 'T': sleep_s = atoi(optarg); break;
		case 'W': window = atoi(optarg); break;
		case 'S': only = strtoul(optarg, NULL, 10); break;
		case 'C': clients = atoi(optarg); break;
		case 'I': iters = atoi(optarg); break;
		case 'E': oob_port = atoi(optarg); break;
		case 'c': eps = atoi(optarg); break;
		default: return 2;
		}
	}
	if (optind < argc)
		host = argv[optind];
	signal(SIGALRM, watchdog);
	alarm(seconds);
	timeout_ms = seconds * 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(program, "fi_bw") && strcmp(program, "fi_multi_ep"))
		rdm = 1;
	hints->ep_attr->type = rdm ? FI_EP_RDM : FI_EP_MSG;
	hints->caps = FI_MSG;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	if (verify) {
		hints->tx_attr->msg_order |= FI_ORDER_SAS;
		hints->rx_attr->msg_order |= FI_ORDER_SAS;
	}
	hints->fabric_attr->prov_name = strdup(rdm ? "tcp;ofi_rxm" : "tcp");
	tx_buf = calloc(1, buf_size);
	rx_buf = calloc(1, buf_size);

	if (!strcmp(program, "fi_av_xfer")) {
		tagged = 1;
		hints->caps = FI_TAGGED;
		ret = av_xfer(oob_port);
		fi_freeinfo(hints);
		return ret;
	}
	if (!strcmp(program, "fi_multi_ep")) {
		ret = multi_ep(oob_port, eps, verify);
		fini();
		fi_freeinfo(hints);
		return ret;
	}
	if (!strcmp(program, "fi_rdm_multi_client") && host) {
		for (int i = 0; i < clients; i++) {
			printf("Starting client: %d\n", i);
			init();
			pingpong(iters);
			fini();
		}
		fi_freeinfo(hints);
		return 0;
	}
	init();
	if (!strcmp(program, "fi_rdm")) {
		ret = greeting();
	} else if (!strcmp(program, "fi_bw")) {
		ret = bw(verify, sleep_s, window, only);
	} else {
		for (int left = clients; left > 0;) {
			pingpong(iters);
			if (--left > 0)
				server_av();
		}
	}
	fini();
	fi_freeinfo(hints);
	return ret;
}
