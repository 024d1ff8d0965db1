/*
 * ft_peer: the project's C stand-in for fabtests' functional programs fi_msg, fi_rdm and
 * fi_cq_data (-e msg|rdm), on libfabric's own tcp provider (MSG) and tcp;ofi_rxm (RDM), for the
 * tests that run `./jofi ft PROGRAM` against C where fabtests is not built. It plays the same
 * choreography as fabtests 1.17: the receive posted before the connection (MSG) or before the
 * in-band address exchange (RDM: the client sends its fi_getname, the server answers 1 byte),
 * then the client's greeting "Hello from Client!" with its NUL (fi_msg, fi_rdm) or 1000 bytes
 * with remote CQ data 0x0123456789abcdef cut to cq_data_size (fi_cq_data), checked by the server,
 * printing fabtests' lines.
 *
 *   ft_peer PROGRAM -t SECONDS [-e msg|rdm] [-s ADDR] [-B PORT] [-P PORT] [-X] [HOST]
 *   ft_peer fi_unexpected_msg -t SECONDS -s ADDR -b OOB_PORT [-I ITERS] [HOST]
 *   ft_peer fi_cm_data -t SECONDS -q SOCK_PORT [-s ADDR -B PORT | -P PORT HOST]
 *
 * fi_cm_data (tcp, MSG): connection data of 1, 2, 4 ... FI_OPT_CM_DATA_SIZE bytes of fabtests'
 * pattern; per size the server rejects the first request with the pattern (the client checks it
 * in its ECONNREFUSED error entry) and accepts the second with it (checked in FI_CONNECTED), both
 * shut down and read FI_SHUTDOWN, a 4-byte sync over the management socket (-q); last the client
 * connects with one byte too many and expects -FI_EINVAL. The server prints "listening PORT" (its
 * fabric port) once the management socket listens too.
 *
 * fi_poll (tcp;ofi_rxm): fi_rdm's address exchange, then one 1024-byte message each way.
 *
 * fi_unexpected_msg (-e rdm, tcp;ofi_rxm, FI_TAGGED): fabtests' out-of-band socket (the server
 * listens on -s at OOB_PORT, 0: any, and prints "listening PORT"); over it each side's name in a
 * 256-byte message and the 1-byte syncs; per iteration five tagged 1024-byte messages (tags
 * 0x1234 + j) sent before the sync, received after it in the reverse tag order, each receive's
 * tag checked, then the five send completions; a last sync.
 *
 * -X: a client that gets it wrong: its greeting says "Klient", its CQ data is one more.
 * Without HOST it is the server; with -B 0 it prints "listening PORT" once it listens. Exit
 * status: 0 every check held, 1 one failed, 2 bad usage, 3 the watchdog (-t) fired.
 */
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

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
static char tx_buf[SIZE], rx_buf[SIZE];
static int timeout_ms;
static int rdm, cq_data, wrong, tagged, poll_mode;

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
	fprintf(stderr, "ft_peer: watchdog fired\n");
	_exit(3);
}

static void cq_wait(struct fid_cq *cq, struct fi_cq_data_entry *comp)
{
	int r = fi_cq_sread(cq, comp, 1, NULL, timeout_ms);
	if (r == 1)
		return;
	if (r == -FI_EAVAIL) {
		struct fi_cq_err_entry err = {0};
		fi_cq_readerr(cq, &err, 0);
		fprintf(stderr, "completion error %d (%s)\n", err.err, fi_strerror(err.err));
	} else {
		fprintf(stderr, "fi_cq_sread: %d (%s)\n", r, fi_strerror(-r));
	}
	exit(1);
}

static void eq_wait(uint32_t want, struct fi_eq_cm_entry *entry)
{
	uint32_t event;
	ssize_t r = fi_eq_sread(eq, &event, entry, sizeof *entry, timeout_ms, 0);
	if (r != sizeof *entry || event != want) {
		struct fi_eq_err_entry err = {0};
		if (r == -FI_EAVAIL)
			fi_eq_readerr(eq, &err, 0);
		fprintf(stderr, "fi_eq_sread: %zd event %u (want %u), err %d\n", r, event, want, err.err);
		exit(1);
	}
}

static void post_rx(void)
{
	CHECK(fi_recv(ep, rx_buf, SIZE, NULL, remote, rx_buf));
}

static void tx(size_t len, uint64_t data, int with_data)
{
	struct fi_cq_data_entry comp;
	ssize_t r;
	/* rxm answers EAGAIN while it connects: progress and retry, as fabtests' FT_POST */
	while ((r = with_data ? fi_senddata(ep, tx_buf, len, NULL, data, remote, tx_buf)
			      : fi_send(ep, tx_buf, len, NULL, remote, tx_buf)) == -FI_EAGAIN)
		fi_cq_read(txcq, NULL, 0);
	CHECK(r);
	cq_wait(txcq, &comp);
}

static void open_active(struct fi_info *info)
{
	struct fi_cq_attr cq_attr = {.format = tagged ? FI_CQ_FORMAT_TAGGED : cq_data ? FI_CQ_FORMAT_DATA : FI_CQ_FORMAT_CONTEXT,
				     .wait_obj = FI_WAIT_UNSPEC};
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
	if (rdm)
		CHECK(fi_ep_bind(ep, &av->fid, 0));
	else
		CHECK(fi_ep_bind(ep, &eq->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
	if (!tagged)
		post_rx();
}

/* ---- fi_unexpected_msg ---- */

static void sock_io(int fd, void *buf, size_t len, int out)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = out ? send(fd, (char *) buf + done, len - done, 0) : recv(fd, (char *) buf + done, len - done, 0);
		if (r <= 0) {
			fprintf(stderr, "out-of-band %s failed\n", out ? "send" : "recv");
			exit(1);
		}
		done += r;
	}
}

static void oob_sync(int fd, int client)
{
	char b = 0;
	sock_io(fd, &b, 1, client);
	sock_io(fd, &b, 1, !client);
}

static int unexpected_msg(char *src, char *host, int oob_port, int iters)
{
	enum { M = 5, LEN = 1024 };
	static char txb[M][LEN], rxb[M][LEN];
	struct fi_cq_tagged_entry comp;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(oob_port)};
	char name[CTRL] = {0}, peer[CTRL];
	size_t len = CTRL;
	int fd, one = 1, i, j, got;

	inet_pton(AF_INET, host ? host : src, &sa.sin_addr);
	if (host) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		CHECK(connect(fd, (struct sockaddr *) &sa, sizeof sa));
	} else {
		socklen_t sl = sizeof sa;
		int l = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		CHECK(bind(l, (struct sockaddr *) &sa, sizeof sa));
		CHECK(listen(l, 1));
		getsockname(l, (struct sockaddr *) &sa, &sl);
		printf("listening %d\n", ntohs(sa.sin_port));
		fd = accept(l, NULL, NULL);
		close(l);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

	hints->caps = FI_TAGGED;
	hints->mode = FI_CONTEXT;
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->resource_mgmt = FI_RM_ENABLED;
	CHECK(fi_getinfo(FI_VERSION(1, 17), src, NULL, FI_SOURCE, hints, &fi));
	CHECK(fi_fabric(fi->fabric_attr, &fabric, NULL));
	open_active(fi);
	CHECK(fi_getname(&ep->fid, name, &len));
	sock_io(fd, name, CTRL, 1);
	sock_io(fd, peer, CTRL, 0);
	CHECK(fi_av_insert(av, peer, 1, &remote, 0, NULL) != 1);

	for (i = 0; i < iters; i++) {
		for (j = 0; j < M; j++) {
			ssize_t r;
			while ((r = fi_tsend(ep, txb[j], LEN, NULL, remote, 0x1234 + j, txb[j])) == -FI_EAGAIN)
				fi_cq_read(txcq, NULL, 0);
			CHECK(r);
			fi_cq_read(txcq, NULL, 0);
		}
		oob_sync(fd, host != NULL);
		for (j = 0; j < M; j++) {
			uint64_t tag = 0x1234 + (M - 1) - j;
			CHECK(fi_trecv(ep, rxb[j], LEN, NULL, remote, tag, 0, rxb[j]));
			fi_cq_read(txcq, NULL, 0);
			cq_wait(rxcq, (struct fi_cq_data_entry *) &comp);
			if (comp.tag != tag || comp.op_context != rxb[j]) {
				fprintf(stderr, "receive %d: tag 0x%" PRIx64 ", want 0x%" PRIx64 "\n", j, comp.tag, tag);
				return 1;
			}
		}
		for (got = 0; got < M; got++)
			cq_wait(txcq, (struct fi_cq_data_entry *) &comp);
		if (i % 100 == 0)
			printf("PID %d GOOD iter %d/%d completed\n", getpid(), i, iters);
	}
	oob_sync(fd, host != NULL);
	printf("PID %d GOOD all done\n", getpid());
	close(fd);
	return 0;
}

static int port_of(fid_t fid)
{
	struct sockaddr_storage ss;
	size_t len = sizeof ss;
	CHECK(fi_getname(fid, &ss, &len));
	return ntohs(((struct sockaddr_in *) &ss)->sin_port);
}

/* ---- fi_cm_data ---- */

static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static void fill(char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = alphabet[i % (sizeof alphabet - 1)];
}

static int check(const char *b, size_t n, const char *where)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != alphabet[i % (sizeof alphabet - 1)]) {
			fprintf(stderr, "%s: wrong byte %zu of %zu\n", where, i, n);
			return 1;
		}
	return 0;
}

static struct fi_eq_cm_entry *cm_entry;

static ssize_t cm_read(uint32_t *event, size_t len)
{
	memset(cm_entry, 0, len);
	return fi_eq_sread(eq, event, cm_entry, len, timeout_ms, 0);
}

static void cm_new_ep(struct fi_info *info)
{
	if (ep)
		fi_close(&ep->fid);
	CHECK(fi_endpoint(domain, info, &ep, NULL));
	CHECK(fi_ep_bind(ep, &eq->fid, 0));
	CHECK(fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT));
	CHECK(fi_ep_bind(ep, &rxcq->fid, FI_RECV));
	CHECK(fi_enable(ep));
}

static int cm_expect(uint32_t want, ssize_t r, uint32_t event, size_t len, const char *what)
{
	if (r != (ssize_t) len || event != want) {
		fprintf(stderr, "%s: fi_eq_sread %zd event %u, want %zu event %u\n", what, r, event, len, want);
		return 1;
	}
	return 0;
}

static int cm_data(char *src, char *src_port, char *host, char *dst_port, int sock_port)
{
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_UNSPEC};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(sock_port)};
	struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
	char data[1024];
	size_t cm_size = 0, opt = sizeof cm_size, i;
	uint32_t event;
	int fd, one = 1, value = 0;
	ssize_t r;

	hints->ep_attr->type = FI_EP_MSG;
	hints->caps = FI_MSG;
	hints->fabric_attr->prov_name = strdup("tcp");
	CHECK(fi_getinfo(FI_VERSION(1, 17), host ? host : src, host ? dst_port : src_port, host ? 0 : FI_SOURCE, hints, &fi));
	CHECK(fi_fabric(fi->fabric_attr, &fabric, NULL));
	CHECK(fi_eq_open(fabric, &eq_attr, &eq, NULL));
	inet_pton(AF_INET, host ? host : src, &sa.sin_addr);
	if (host) {
		CHECK(fi_domain(fabric, fi, &domain, NULL));
		CHECK(fi_cq_open(domain, &cq_attr, &txcq, NULL));
		CHECK(fi_cq_open(domain, &cq_attr, &rxcq, NULL));
		cm_new_ep(fi);
		CHECK(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE, &cm_size, &opt));
		fd = socket(AF_INET, SOCK_STREAM, 0);
		CHECK(connect(fd, (struct sockaddr *) &sa, sizeof sa));
	} else {
		int l = socket(AF_INET, SOCK_STREAM, 0);
		CHECK(fi_passive_ep(fabric, fi, &pep, NULL));
		CHECK(fi_pep_bind(pep, &eq->fid, 0));
		CHECK(fi_listen(pep));
		CHECK(fi_getopt(&pep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE, &cm_size, &opt));
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		CHECK(bind(l, (struct sockaddr *) &sa, sizeof sa));
		CHECK(listen(l, 1));
		printf("listening %d\n", port_of(&pep->fid));
		fd = accept(l, NULL, NULL);
		close(l);
	}
	if (cm_size > sizeof data - 1)
		return 1;
	cm_entry = calloc(1, sizeof *cm_entry + cm_size);
	for (i = 1; i <= cm_size; i <<= 1) {
		printf("trying with data size: %zu\n", i);
		fill(data, i);
		if (host) {
			struct fi_eq_err_entry err = {0};
			CHECK(fi_connect(ep, fi->dest_addr, data, i));
			r = cm_read(&event, sizeof *cm_entry);
			if (r != -FI_EAVAIL) {
				fprintf(stderr, "size %zu: a rejection expected, fi_eq_sread %zd\n", i, r);
				return 1;
			}
			fi_eq_readerr(eq, &err, 0);
			if (err.err != FI_ECONNREFUSED || err.err_data_size != i || check(err.err_data, err.err_data_size, "reject data"))
				return 1;
			cm_new_ep(fi);
			CHECK(fi_connect(ep, fi->dest_addr, data, i));
			r = cm_read(&event, sizeof *cm_entry + i);
			if (cm_expect(FI_CONNECTED, r, event, sizeof *cm_entry + i, "connect") || check((char *) cm_entry->data, i, "accept data"))
				return 1;
			fi_shutdown(ep, 0);
			r = cm_read(&event, sizeof *cm_entry);
			if (cm_expect(FI_SHUTDOWN, r, event, sizeof *cm_entry, "shutdown"))
				return 1;
			cm_new_ep(fi);
		} else {
			struct fi_info *req;
			r = cm_read(&event, sizeof *cm_entry + i);
			if (cm_expect(FI_CONNREQ, r, event, sizeof *cm_entry + i, "listen") || check((char *) cm_entry->data, i, "request data"))
				return 1;
			CHECK(fi_reject(pep, cm_entry->info->handle, data, i));
			fi_freeinfo(cm_entry->info);
			r = cm_read(&event, sizeof *cm_entry + i);
			if (cm_expect(FI_CONNREQ, r, event, sizeof *cm_entry + i, "listen") || check((char *) cm_entry->data, i, "request data"))
				return 1;
			req = cm_entry->info;
			CHECK(fi_domain(fabric, req, &domain, NULL));
			CHECK(fi_cq_open(domain, &cq_attr, &txcq, NULL));
			CHECK(fi_cq_open(domain, &cq_attr, &rxcq, NULL));
			cm_new_ep(req);
			CHECK(fi_accept(ep, data, i));
			r = cm_read(&event, sizeof *cm_entry);
			if (cm_expect(FI_CONNECTED, r, event, sizeof *cm_entry, "accept"))
				return 1;
			fi_shutdown(ep, 0);
			r = cm_read(&event, sizeof *cm_entry);
			if (cm_expect(FI_SHUTDOWN, r, event, sizeof *cm_entry, "shutdown"))
				return 1;
			fi_close(&ep->fid);
			ep = NULL;
			fi_close(&rxcq->fid);
			fi_close(&txcq->fid);
			fi_close(&domain->fid);
			fi_freeinfo(req);
		}
		sock_io(fd, &value, sizeof value, host != NULL);
		sock_io(fd, &value, sizeof value, host == NULL);
		if (value)
			return 1;
	}
	if (host) {
		printf("trying with data size exceeding maximum: %zu\n", cm_size + 1);
		r = fi_connect(ep, fi->dest_addr, data, cm_size + 1);
		if (r != -FI_EINVAL) {
			fprintf(stderr, "expected -FI_EINVAL, got: [%zd]\n", r);
			return 1;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
	struct fi_eq_cm_entry entry;
	struct fi_cq_data_entry comp;
	char *src = NULL, *src_port = "9228", *dst_port = "9228", *host = NULL, *program;
	int op, seconds = 25, oob_port = 0, iters = 600, sock_port = 2710;
	uint64_t flags = 0, remote_cq_data;

	if (argc < 2) {
		fprintf(stderr, "usage: ft_peer fi_msg|fi_rdm|fi_cq_data -t SECONDS [-e msg|rdm] [-s ADDR] [-B PORT] [-P PORT] [HOST]\n");
		return 2;
	}
	program = argv[1];
	rdm = strcmp(program, "fi_msg") != 0;
	cq_data = strcmp(program, "fi_cq_data") == 0;
	tagged = strcmp(program, "fi_unexpected_msg") == 0;
	poll_mode = strcmp(program, "fi_poll") == 0;
	if (strcmp(program, "fi_cm_data") && !cq_data && !tagged && !poll_mode && strcmp(program, "fi_msg") && strcmp(program, "fi_rdm")) {
		fprintf(stderr, "unknown program %s\n", program);
		return 2;
	}
	optind = 2;
	while ((op = getopt(argc, argv, "t:e:s:B:P:Xb:I:q:")) != -1) {
		switch (op) {
		case 't': seconds = atoi(optarg); break;
		case 'e': rdm = !strcmp(optarg, "rdm"); break;
		case 's': src = optarg; break;
		case 'B': src_port = optarg; break;
		case 'P': dst_port = optarg; break;
		case 'X': wrong = 1; break;
		case 'b': oob_port = atoi(optarg); break;
		case 'I': iters = atoi(optarg); break;
		case 'q': sock_port = atoi(optarg); break;
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
	if (!strcmp(program, "fi_cm_data"))
		return cm_data(src ? src : "127.0.0.1", src_port, host, dst_port, sock_port);
	if (tagged) {
		hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
		return unexpected_msg(src ? src : "127.0.0.1", host, oob_port, iters);
	}
	hints->ep_attr->type = rdm ? FI_EP_RDM : FI_EP_MSG;
	hints->caps = FI_MSG;
	hints->mode = FI_CONTEXT | (cq_data ? FI_RX_CQ_DATA : 0);
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	if (cq_data)
		hints->domain_attr->cq_data_size = 4;
	hints->fabric_attr->prov_name = strdup(rdm ? "tcp;ofi_rxm" : "tcp");
	if (!host)
		flags = FI_SOURCE;
	CHECK(fi_getinfo(FI_VERSION(1, 17), host ? host : src, host ? dst_port : src_port, flags, hints, &fi));
	CHECK(fi_fabric(fi->fabric_attr, &fabric, NULL));
	CHECK(fi_eq_open(fabric, &eq_attr, &eq, NULL));
	remote_cq_data = fi->domain_attr->cq_data_size >= 8 ? 0x0123456789abcdefULL
		: 0x0123456789abcdefULL & ((1ULL << (fi->domain_attr->cq_data_size * 8)) - 1);

	if (!rdm && !host) {
		CHECK(fi_passive_ep(fabric, fi, &pep, NULL));
		CHECK(fi_pep_bind(pep, &eq->fid, 0));
		CHECK(fi_listen(pep));
		printf("listening %d\n", port_of(&pep->fid));
		eq_wait(FI_CONNREQ, &entry);
		open_active(entry.info);
		CHECK(fi_accept(ep, NULL, 0));
		eq_wait(FI_CONNECTED, &entry);
	} else if (!rdm) {
		open_active(fi);
		CHECK(fi_connect(ep, fi->dest_addr, NULL, 0));
		eq_wait(FI_CONNECTED, &entry);
	} else {
		open_active(fi);
		if (host) {
			size_t len = CTRL;
			CHECK(fi_av_insert(av, fi->dest_addr, 1, &remote, 0, NULL) != 1);
			CHECK(fi_getname(&ep->fid, tx_buf, &len));
			tx(len, 0, 0);
			cq_wait(rxcq, &comp); /* the server's 1 byte */
			post_rx();
		} else {
			printf("listening %d\n", port_of(&ep->fid));
			cq_wait(rxcq, &comp);
			CHECK(fi_av_insert(av, rx_buf, 1, &remote, 0, NULL) != 1);
			post_rx();
			tx(1, 0, 0);
		}
	}

	if (poll_mode) {
		/* fi_poll's wire: after the exchange each side sends one 1024-byte message */
		printf("Posting a send...\n");
		tx(SIZE, 0, 0);
		cq_wait(rxcq, &comp);
		if (comp.op_context != rx_buf) {
			fprintf(stderr, "fi_poll: a completion of another receive\n");
			return 1;
		}
		printf("Send completion received\nRecv completion received\n");
	} else if (cq_data) {
		if (host) {
			printf("Posting send with CQ data: 0x%" PRIx64 "\n", remote_cq_data);
			tx(1000, remote_cq_data + wrong, 1);
			printf("Done\n");
		} else {
			printf("Waiting for CQ data from client\n");
			cq_wait(rxcq, &comp);
			if (!(comp.flags & FI_REMOTE_CQ_DATA)) {
				printf("error, CQ data flag not set\n");
				return 1;
			}
			if (comp.data != remote_cq_data) {
				printf("error, Expected data:0x%" PRIx64 ", Received data:0x%" PRIx64 "\n",
				       remote_cq_data, comp.data);
				return 1;
			}
			printf("remote_cq_data: success\n");
		}
	} else if (host) {
		printf("Sending message...\n");
		strcpy(tx_buf, wrong ? "Hello from Klient!" : GREETING);
		tx(strlen(GREETING) + 1, 0, 0);
		printf("Send completion received\n");
	} else {
		printf("Waiting for message from client...\n");
		cq_wait(rxcq, &comp);
		if (strcmp(rx_buf, GREETING)) {
			fprintf(stderr, "Received message does not match expected message.\n");
			return 1;
		}
		printf("Data check OK\n");
		printf("Received data from client: %s\n", rx_buf);
	}
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
	fi_freeinfo(hints);
	return 0;
}
