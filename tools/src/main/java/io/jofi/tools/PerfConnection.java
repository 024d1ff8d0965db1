package io.jofi.tools;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.PassiveEndpoint;
import io.jofi.TaggedMsg;
import io.jofi.WaitObject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One connected MSG endpoint set up as fabtests' {@code fi_msg_pingpong} does (docs/TCP-WIRE.md,
 * "fabtests' fi_msg_pingpong choreography"): receives posted before {@code connect}/{@code accept}
 * and reposted after every receive completion, separate transmit and receive CQs, the 1-byte
 * sync, and the finalize with a 4-byte {@code FI_TRANSMIT_COMPLETE} message.
 *
 * <p>Or one RDM endpoint with an AV and the same choreography: the server's endpoint listens
 * on its source address and port ({@code -B}); the client inserts the server's address
 * ({@code destAddr} of its info) and sends its own name, fabtests' in-band address exchange
 * ({@link #exchangeAddresses}); the server inserts that name — or, opened with
 * {@code FI_SOURCE_ERR}, the sender's address with which the message of a sender not in its AV
 * completes ({@code EADDRNOTAVAIL}, R10) — and answers with 1 byte at that {@code fi_addr}. No
 * connection events, no shutdown.
 *
 * <p>With {@code --tagged} every message is a tagged one carrying its ordinal in its direction
 * (fabtests' {@code tx_seq}/{@code rx_seq}); the transmit buffer always holds fabtests' data
 * pattern ({@link DataPattern}), and {@link #checkReceived} checks the receive buffer for -v.
 *
 * <p>The data path ({@link #send}, {@link #awaitReceive}, {@link #awaitSend}) allocates
 * nothing: buffer views, contexts and the completion entry are made once here. Every wait is
 * bounded by the timeout given to {@link #open}.
 */
final class PerfConnection implements AutoCloseable {
    /** fabtests' finalize message length and the ack message length of {@code bw}. */
    static final int FINALIZE_BYTES = 4;
    /** How long an RDM endpoint stays up after the finalize ({@link #linger}). */
    static final long LINGER_MILLIS = 200;

    private final List<Fid> opened = new ArrayList<>();
    private final CompletionWait wait;
    private final long timeoutNanos;
    private final PrintStream err;
    private final CqEntry[] entry = {new CqEntry()};
    private final CqErrEntry error = new CqErrEntry();
    private final EqEntry event = new EqEntry();

    private Fabric fabric;
    private Domain domain;
    private EventQueue eq;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private Fid[] txWaitFids;
    private Fid[] rxWaitFids;
    private Selector selector;
    private Endpoint ep;
    private long injectSize;
    private final boolean client;
    /** RDM: the AV and the peer's fi_addr in it (learnt from the first message on the server). */
    private boolean rdm;
    private AddressVector av;
    private long peer;

    /** One view of the transmit buffer per outstanding send, each with its own context. */
    private ByteBuffer[] txViews;
    private int txNext;
    /** One view of the receive buffer per posted receive; the view is its own context. */
    private ByteBuffer[] rxViews;
    /** The whole transmit and receive buffers (absolute access: data pattern, keys, RMA). */
    private ByteBuffer txData;
    private ByteBuffer rxData;
    /** Tagged (fabtests with FI_TAGGED): each direction's messages carry their ordinal as the tag. */
    private boolean tagged;
    private RmaPeer rmaPeer;
    private long txSeq;
    private long rxSeq;
    private final TaggedMsg taggedFinalizeMsg = new TaggedMsg(1);
    private final Msg finalizeMsg = new Msg(1);
    /**
     * The JIT warm-up's ends share this JVM (and, pinned, one core): they give the core away
     * when {@link #idleReads} reaches this. The measured connection never reaches it
     * ({@code Long.MAX_VALUE}), and it is one comparison for both, not a flag the measured
     * connection would see with the other value: C2 compiles the warm-up's profile, and a
     * branch the warm-up never took would be an uncommon trap (deoptimization, recompilation)
     * in the measured run.
     */
    private long yieldAt = Long.MAX_VALUE;
    private long idleReads;
    /** Empty reads of a spinning wait between two reads of the clock (a power of two). */
    private static final int CLOCK_INTERVAL = 1024;
    /** Empty CQ reads between two yields of a warm-up end. */
    private static final long YIELD_INTERVAL = 64;

    private PerfConnection(boolean client, CompletionWait wait, long timeoutNanos, PrintStream err) {
        this.client = client;
        this.wait = wait;
        this.timeoutNanos = timeoutNanos;
        this.err = err;
    }

    /**
     * Opens fabric, domain, EQ and CQs for {@code info}, then either listens and accepts one
     * connection (server) or connects (client), with {@code receiveDepth} receives of
     * {@code bufferSize} bytes posted before the connection is made.
     */
    static PerfConnection open(Fabrics fabrics, Info info, boolean client, CompletionWait wait, int bufferSize,
            int receiveDepth, int sendDepth, long timeoutNanos, PrintStream err) throws FabricException {
        return open(fabrics, info, client, false, wait, bufferSize, receiveDepth, sendDepth, timeoutNanos, err, null);
    }

    /**
     * As {@link #open(Fabrics, Info, boolean, CompletionWait, int, int, int, long, PrintStream)};
     * {@code tagged}: every message is a tagged one whose tag is its ordinal in its direction
     * (fabtests' tagged tests: the sender's tx_seq, the receiver's rx_seq); a server runs {@code afterListen} (if not null) once it listens (MSG: its passive
     * endpoint; RDM: its enabled endpoint), before it waits for the connection request or the
     * first message (a client that connects meanwhile waits in the
     * listen backlog; nothing is sent to it).
     */
    static PerfConnection open(Fabrics fabrics, Info info, boolean client, boolean tagged, CompletionWait wait, int bufferSize,
            int receiveDepth, int sendDepth, long timeoutNanos, PrintStream err, Runnable afterListen) throws FabricException {
        PerfConnection c = new PerfConnection(client, wait, timeoutNanos, err);
        c.tagged = tagged;
        try {
            c.setUp(fabrics, info, bufferSize, receiveDepth, sendDepth, afterListen);
            return c;
        } catch (RuntimeException | FabricException e) {
            c.close();
            throw e;
        }
    }

    /**
     * After every 64th CQ read that found nothing (spin), give the processor away
     * ({@code Thread.yield}): for the JIT warm-up, whose two ends are threads of one JVM
     * (PerfCommand's warm-up). The measured connections never yield.
     */
    void yieldWhenIdle() {
        yieldAt = idleReads + YIELD_INTERVAL;
    }

    /** Closed with the connection, before everything opened earlier (a region before its endpoint). */
    <T extends Fid> T track(T fid) {
        opened.add(fid);
        return fid;
    }

    private void setUp(Fabrics fabrics, Info info, int bufferSize, int receiveDepth, int sendDepth, Runnable afterListen)
            throws FabricException {
        fabric = track(fabrics.fabric(info.fabricAttr(), null));
        eq = track(fabric.openEq(new EqAttr().size(16), "perf-eq"));
        ByteBuffer tx = ByteBuffer.allocateDirect(bufferSize);
        // fabtests' -v pattern, written once: any prefix of it is the pattern of that size, so
        // every message sent from this buffer is already filled as fabtests' ft_fill_buf would
        DataPattern.fill(tx, bufferSize);
        ByteBuffer rx = ByteBuffer.allocateDirect(bufferSize);
        txData = tx;
        rxData = rx;
        txViews = new ByteBuffer[sendDepth];
        for (int i = 0; i < sendDepth; i++) {
            txViews[i] = tx.duplicate();
        }
        rxViews = new ByteBuffer[receiveDepth];
        for (int i = 0; i < receiveDepth; i++) {
            rxViews[i] = rx.duplicate();
        }
        if (info.epAttr().type() == EpType.RDM) {
            rdm = true;
            openEndpoint(info);
            if (client) {
                long[] fi = {Fi.FI_ADDR_NOTAVAIL};
                if (info.destAddr() == null || av.insert(new byte[][] {info.destAddr()}, fi, 0, null) != 1) {
                    throw new CommandFailure("cannot insert the server's address into the AV");
                }
                peer = fi[0];
            } else {
                peer = Fi.FI_ADDR_NOTAVAIL; // learnt from the client's first message
            }
            postReceives();
            if (!client && afterListen != null) {
                afterListen.run(); // an RDM endpoint listens once enabled
            }
            exchangeAddresses();
        } else if (client) {
            openEndpoint(info);
            postReceives();
            ep.connect(info.destAddr(), null);
            awaitEvent(Fi.FI_CONNECTED, "FI_CONNECTED after connect");
        } else {
            PassiveEndpoint pep = track(fabric.passiveEndpoint(info, "perf-pep"));
            pep.bind(eq, 0);
            pep.listen();
            if (afterListen != null) {
                afterListen.run();
            }
            EqEntry request = awaitEvent(Fi.FI_CONNREQ, "a connection request");
            openEndpoint(request.info());
            postReceives();
            ep.accept(null);
            awaitEvent(Fi.FI_CONNECTED, "FI_CONNECTED after accept");
        }
    }

    private void openEndpoint(Info info) throws FabricException {
        domain = track(fabric.domain(info, "perf-domain"));
        injectSize = info.txAttr().injectSize();
        int depth = Math.max(64, 2 * Math.max(txViews.length, rxViews.length));
        txCq = track(domain.openCq(new CqAttr().size(depth).waitObj(wait.waitObj), "perf-txcq"));
        rxCq = track(domain.openCq(new CqAttr().size(depth).waitObj(wait.waitObj), "perf-rxcq"));
        txWaitFids = new Fid[] {txCq};
        rxWaitFids = new Fid[] {rxCq};
        if (wait == CompletionWait.FD) {
            try {
                selector = Selector.open();
                register(txCq);
                register(rxCq);
            } catch (IOException e) {
                throw new FabricException(Errno.EIO, "cannot open a Selector for -c fd: " + e.getMessage(), e);
            }
        }
        if (info.epAttr().type() == EpType.RDM) {
            av = track(domain.openAv(new AvAttr(), "perf-av")); // before the endpoint: closed after it
        }
        ep = track(domain.endpoint(info, "perf-ep"));
        if (av != null) {
            ep.bind(av, 0);
        } else {
            ep.bind(eq, 0);
        }
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.enable();
    }

    private void register(CompletionQueue cq) throws FabricException, IOException {
        if (!(cq.getWait() instanceof WaitObject.Fd fd)) {
            throw new FabricException(Errno.ENOSYS, "the CQ's FD wait object is not a channel");
        }
        SelectableChannel channel = fd.channel();
        channel.configureBlocking(false);
        channel.register(selector, SelectionKey.OP_READ);
    }

    private void postReceives() {
        for (ByteBuffer view : rxViews) {
            repost(view);
        }
    }

    /**
     * fabtests' in-band address exchange of an RDM endpoint (ft_init_av): the client sends its
     * own name ({@code getName}) in a message and waits for the server's 1-byte answer; the
     * server inserts the name it receives into its AV (or, opened with {@code FI_SOURCE_ERR},
     * the source the provider reports for a sender not yet in the AV, R10) and answers.
     */
    private void exchangeAddresses() throws FabricException {
        if (client) {
            byte[] name = ep.getName();
            txData.put(0, name);
            try {
                sendPlain(name.length);
            } finally {
                DataPattern.fill(txData, name.length);
            }
            awaitReceive();
            return;
        }
        awaitCompletion(rxCq, rxWaitFids, "the client's first message (its address)");
        ByteBuffer view = (ByteBuffer) entry[0].context();
        if (peer == Fi.FI_ADDR_NOTAVAIL) {
            byte[] name = new byte[(int) entry[0].len()];
            rxData.get(0, name);
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            if (av.insert(new byte[][] {name}, fi, 0, null) != 1) {
                throw new CommandFailure("cannot insert the client's address into the AV");
            }
            peer = fi[0];
        }
        repost(view);
        sendPlain(1);
    }

    void repost(ByteBuffer view) {
        view.clear();
        int rc = tagged ? ep.trecv(view, null, Fi.FI_ADDR_UNSPEC, rxSeq++, 0, view) : ep.recv(view, null, 0, view);
        if (rc != 0) {
            throw new CommandFailure("posting a receive failed: " + Errno.strerror(-rc));
        }
    }

    /** The provider's inject size: sends strictly below it use {@code inject}. */
    long injectSize() {
        return injectSize;
    }

    // ------------------------------------------------------------------ data path

    /**
     * Starts a send of {@code size} bytes: {@code inject} below the inject size (no
     * completion), else {@code send} with a completion to collect with {@link #awaitSend}.
     *
     * @return whether a send completion will follow
     */
    boolean send(int size) {
        ByteBuffer view = txViews[txNext];
        txNext = txNext + 1 == txViews.length ? 0 : txNext + 1;
        view.clear().limit(size);
        if (size < injectSize) {
            int rc;
            long deadline = 0;
            while ((rc = tagged ? ep.tinject(view, peer, txSeq) : ep.inject(view, peer)) == -Errno.EAGAIN) {
                // no room: reading the transmit CQ drives manual progress
                txCq.read(entry, 0);
                deadline = checkDeadline(deadline, "room to inject");
            }
            check(rc, "inject");
            txSeq++;
            return false;
        }
        int rc;
        long deadline = 0;
        while ((rc = tagged ? ep.tsend(view, null, peer, txSeq, view) : ep.send(view, null, peer, view)) == -Errno.EAGAIN) {
            txCq.read(entry, 0);
            deadline = checkDeadline(deadline, "room to send");
        }
        check(rc, "send");
        txSeq++;
        return true;
    }

    /** Sends {@code size} bytes and, when it is not an inject, waits for its completion. */
    void sendAndWait(int size) {
        if (send(size)) {
            awaitSend();
        }
    }

    /** Waits for one transmit completion. */
    void awaitSend() {
        awaitCompletion(txCq, txWaitFids, "a send completion");
    }

    /** Waits for one receive completion and reposts that receive (fabtests' ft_rx). */
    void awaitReceive() {
        repost(awaitMessage());
    }

    /**
     * Waits for one receive completion and returns its view without reposting it: the caller
     * reads the message first (every view shares one buffer) and then calls {@link #repost}.
     */
    ByteBuffer awaitMessage() {
        awaitCompletion(rxCq, rxWaitFids, "a receive completion");
        return (ByteBuffer) entry[0].context();
    }

    /** Waits for one completion on the receive CQ that consumed no receive (a remote write with CQ data). */
    void awaitRemoteWrite() {
        awaitCompletion(rxCq, rxWaitFids, "the completion of the peer's write with CQ data");
    }

    /** fabtests' ft_check_buf on the first {@code size} bytes of the receive buffer (-v). */
    void checkReceived(int size) {
        DataPattern.check(rxData, size);
    }

    /** The transmit buffer (filled with the data pattern); absolute access only. */
    ByteBuffer txData() {
        return txData;
    }

    /** The receive buffer every posted receive lands in; absolute access only. */
    ByteBuffer rxData() {
        return rxData;
    }

    Endpoint endpoint() {
        return ep;
    }

    Domain domain() {
        return domain;
    }

    /** The peer's {@code fi_addr} (RDM), or 0 on a connected endpoint. */
    long peer() {
        return peer;
    }

    /** The provider's inject size: writes strictly below it may be injected. */
    long injectLimit() {
        return injectSize;
    }

    /**
     * A post returned {@code EAGAIN}: reads the transmit CQ for nothing (manual progress) and
     * returns the wait's deadline (0 at the first call), failing once it has passed.
     */
    long awaitRoom(long deadline, String what) {
        txCq.read(entry, 0);
        return checkDeadline(deadline, what);
    }

    /** rma_bw's RMA state on this connection (the regions and the peer's keys), or null. */
    RmaPeer rmaPeer() {
        return rmaPeer;
    }

    void rmaPeer(RmaPeer peer) {
        this.rmaPeer = peer;
    }

    private void awaitCompletion(CompletionQueue cq, Fid[] waitFids, String what) {
        long deadline = 0;
        while (true) {
            int rc;
            switch (wait) {
                case SREAD, YIELD -> rc = cq.sread(entry, 1, 0, 100);
                default -> rc = cq.read(entry, 1);
            }
            if (rc == 1) {
                return;
            }
            if (rc == -Errno.EAVAIL) {
                cq.readErr(error, 0);
                if (rdm && cq == rxCq && error.err() == Errno.EADDRNOTAVAIL) {
                    learnPeer();
                    return;
                }
                throw new CommandFailure(what + " failed: " + Errno.strerror(error.err()) + peerGoneHint(error.err()));
            }
            if (rc != -Errno.EAGAIN) {
                throw new CommandFailure("reading the CQ for " + what + " failed: " + Errno.strerror(-rc));
            }
            if (wait == CompletionWait.FD && fabric.tryWait(waitFids) == 0) {
                selectBriefly();
            } else if (++idleReads >= yieldAt) {
                // the warm-up only; not after every empty read: the JIT sees both branches
                yieldAt = idleReads + YIELD_INTERVAL;
                Thread.yield();
            }
            // A spinning wait reads the clock once per CLOCK_INTERVAL empty reads, not after
            // each: a read of the clock costs 40-100 ns on this machine's VM, as much as a
            // provider's whole pass, and would lengthen every spin (and so the time to see a
            // completion) by that much. A blocking wait reads it after every wait. The count is
            // idleReads, which runs on across waits: the warm-up's short waits then reach the
            // clock's branch too (a count per wait never reached it there, and the measured
            // run's first long wait recompiled this loop while a C peer waited: an uncommon trap).
            if (wait != CompletionWait.SPIN || (idleReads & (CLOCK_INTERVAL - 1)) == 0) {
                deadline = checkDeadline(deadline, what);
            }
        }
    }

    /**
     * RDM server: the first message came from a sender not in the AV (FI_SOURCE_ERR, R10); its
     * address is the error's data. Insert it, answer there, and take the message as received.
     */
    private void learnPeer() {
        byte[] addr = java.util.Arrays.copyOf(error.errData(), error.errDataSize());
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        if (av.insert(new byte[][] {addr}, fi, 0, null) != 1) {
            throw new CommandFailure("cannot insert the client's address " + av.straddr(addr) + " into the AV");
        }
        peer = fi[0];
        entry[0].set(error.context(), error.flags(), error.len(), error.buf(), error.bufOffset(), error.data(), error.tag());
    }

    private void selectBriefly() {
        try {
            selector.select(100);
            selector.selectedKeys().clear();
        } catch (IOException e) {
            throw new CommandFailure("Selector.select failed: " + e.getMessage());
        }
    }

    /** The deadline of a wait loop, set at its first empty pass (a full pass never reads the clock). */
    private long checkDeadline(long deadline, String what) {
        long now = System.nanoTime();
        if (deadline == 0) {
            return now + timeoutNanos;
        }
        if (now - deadline > 0) {
            throw new CommandFailure(what + " did not come within " + timeoutNanos / 1_000_000_000L + " s");
        }
        return deadline;
    }

    // ------------------------------------------------------------------ choreography

    /** fabtests' per-size sync: the client sends 1 byte (with a completion) then receives; the server the reverse. */
    void sync() {
        if (client) {
            sendPlain(1);
            awaitReceive();
        } else {
            awaitReceive();
            sendPlain(1);
        }
    }

    /** A plain send with a completion, waited for (never an inject: fabtests' ft_tx). */
    void sendPlain(int size) {
        ByteBuffer view = txViews[0];
        view.clear().limit(size);
        int rc;
        long deadline = 0;
        // -EAGAIN: no room yet (e.g. rxm's transmit pool while -U writes wait for their acks);
        // reading the transmit CQ drives manual progress, as fabtests' ft_tx retries
        while ((rc = tagged ? ep.tsend(view, null, peer, txSeq, view) : ep.send(view, null, peer, view)) == -Errno.EAGAIN) {
            deadline = awaitRoom(deadline, "room to send");
        }
        check(rc, "send");
        txSeq++;
        awaitSend();
    }

    /**
     * fabtests' finalize: a 4-byte {@code FI_TRANSMIT_COMPLETE} message from both sides at once,
     * wait for its completion (the peer's ack), then for the peer's 4 bytes; then shutdown.
     * The provider keeps reading and acking the peer's message while this side waits.
     */
    void finish() throws FabricException {
        sendTransmitComplete();
        awaitCompletion(rxCq, rxWaitFids, "the peer's finalize message");
        if (!rdm) {
            ep.shutdown(0);
        } else {
            linger();
        }
    }

    /**
     * RDM: the connections stay up {@value #LINGER_MILLIS} ms after the finalize, progressed,
     * before the endpoint may close. A libfabric 1.17 rxm peer frees a connection as soon as it
     * sees it end (rxm_process_shutdown) while completions of its own finalize send may still
     * name it: its next fi_cq_read crashed in libfabric (SIGSEGV; 1 verbs;ofi_rxm run in 16 in
     * the VM) when this side closed right after the exchange. Nothing is expected meanwhile;
     * the reads only drive manual progress.
     */
    private void linger() {
        long end = System.nanoTime() + LINGER_MILLIS * 1_000_000L;
        while (System.nanoTime() - end < 0) {
            int tx = txCq.read(entry, 1);
            int rx = rxCq.read(entry, 1);
            if (tx == -Errno.EAGAIN && rx == -Errno.EAGAIN) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * For the JIT warm-up, at the start of each of its connections: the finalize's kind of
     * message (4 bytes, {@code FI_TRANSMIT_COMPLETE}, which the provider acknowledges) once
     * each way, the client first, receives reposted, so that the connection goes on. Without
     * it the provider's acknowledgement branches ran only in the warm-up's final
     * {@link #finish}, after C2 had compiled the data path without them: uncommon traps
     * (LogCompilation: {@code TcpWireDescriptor.isBare} in {@code MessageHeader.encode} and
     * {@code decode}) deoptimized it right before the measured run, which then ran those
     * methods in the interpreter and recompiled them during its timed iterations.
     */
    void transmitCompleteExchange() {
        if (client) {
            sendTransmitComplete();
            awaitReceive();
        } else {
            awaitReceive(); // an RDM server learns its client here
            sendTransmitComplete();
        }
    }

    /** Sends the finalize's 4-byte {@code FI_TRANSMIT_COMPLETE} message and waits for its completion. */
    private void sendTransmitComplete() {
        ByteBuffer view = txViews[0];
        view.clear().limit(FINALIZE_BYTES);
        taggedFinalizeMsg.tag(txSeq).ignore(0).buffer(view, null).context(view).addr(peer);
        finalizeMsg.buffer(view, null).context(view).addr(peer);
        int rc;
        long deadline = 0;
        long flags = Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION;
        while ((rc = tagged ? ep.tsendMsg(taggedFinalizeMsg, flags) : ep.sendMsg(finalizeMsg, flags)) == -Errno.EAGAIN) {
            deadline = awaitRoom(deadline, "room to send the finalize");
        }
        check(rc, "finalize send");
        txSeq++;
        awaitSend();
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new CommandFailure(what + " failed: " + Errno.strerror(-rc) + peerGoneHint(-rc));
        }
    }

    /**
     * What a failure of errno {@code err} most likely means mid-run: the peer process ended (a
     * reset or an abort of the connection, a reconnect refused — over tcp RDM the rxm layer
     * connects again and meets no listener —, an shm peer's region gone), or "".
     */
    static String peerGoneHint(int err) {
        return switch (err) {
            case Errno.ECONNRESET, Errno.ECANCELED, Errno.ECONNREFUSED, Errno.ECONNABORTED, Errno.EHOSTUNREACH,
                 Errno.ENOTCONN -> " (the peer is not running, or went away?)";
            default -> "";
        };
    }

    private EqEntry awaitEvent(int expected, String what) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            int rc = eq.read(event, 0);
            if (rc == 1) {
                if (event.event() == expected) {
                    return event;
                }
                // fabtests ignores anything else on the EQ while it waits (e.g. connection data)
                continue;
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry e = new EqErrEntry();
                eq.readErr(e, 0);
                throw new CommandFailure("waiting for " + what + ": " + Errno.strerror(e.err())
                        + (e.err() == Errno.ECONNREFUSED ? " (is the server running?)" : ""));
            }
            if (rc != -Errno.EAGAIN) {
                throw new CommandFailure("reading the EQ failed: " + Errno.strerror(-rc));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new CommandFailure(what + " did not come within " + timeoutNanos / 1_000_000_000L + " s");
            }
            LockSupport.parkNanos(20_000);
        }
    }

    /** Closes everything in reverse order of opening; the first failure is reported on stderr. */
    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                err.println("closing " + opened.get(i) + ": " + e.getMessage());
            }
        }
        opened.clear();
        if (selector != null) {
            try {
                selector.close();
            } catch (IOException e) {
                err.println("closing the Selector: " + e.getMessage());
            }
        }
    }
}
