package io.jofi.rsa.channel;

import static io.jofi.rsa.wire.CallDescriptor.HEADER;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.TaggedMsg;
import io.jofi.rsa.wire.CallDescriptor;
import io.jofi.rsa.wire.MessageBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * One RDM endpoint of one fabric provider, shared by every service this container exports or
 * imports over that provider: it keeps receives posted, reads the completion queue and routes
 * each message to the {@link CallerSide} or the {@link ExporterSide}, and sends messages (inline,
 * or by {@link Rendezvous} when long).
 *
 * <p>The executor's threads take turns reading the CQ (leader/followers): the leader of the
 * moment hands the CQ to a waiting {@link Followers follower} when its batch brought calls of
 * exported methods, and runs the first itself. The leader never posts (a post may wait for room
 * that only reading the CQ frees): sends it causes go through the executor.
 */
public final class FabricChannel {
    private static final System.Logger LOG = System.getLogger(FabricChannel.class.getName());
    private static final long HOUSEKEEPING_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** A pooled send buffer's standard size: most calls fit; a longer message grows it for once. */
    private static final int SLOT_BYTES = 4096;

    private final String provider;
    private final RdmResources res;
    final ChannelSettings settings;
    final RsaCounters counters;
    private final byte[] address;
    private final String addressText;
    final ExecutorService executor;
    private final ArrayBlockingQueue<SendSlot> slots = new ArrayBlockingQueue<>(256);
    private final ReceiveSlot[] receives;
    final Rendezvous rendezvous;
    final CallerSide caller;
    final ExporterSide exporter;
    private final ByteBuffer ping;
    private final Set<Long> pingsInFlight = ConcurrentHashMap.newKeySet();
    /** The thread reading the CQ now (leader/followers over the executor's threads), or null between terms. */
    private volatile Thread leader;
    /** Leader terms started and not ended: the close waits for none before it frees the fabric objects. */
    private final AtomicInteger leaders = new AtomicInteger();
    private final Runnable lead = this::lead;
    /** The leader's loop state, handed from term to term with the CQ (the executor hand-over orders it). */
    private final CqEntry[] entries = new CqEntry[16];
    private final CqErrEntry err = new CqErrEntry();
    private long housekeeping;
    private long nextPing;
    /** Calls the current leader decoded in its batch; it runs the first after the hand-over. */
    private final ArrayList<ExportedCall> batchCalls = new ArrayList<>(16);
    /** Each thread's task for the call it runs itself after a hand-over (reused: no allocation). */
    private final ThreadLocal<ExportedCall> ownCall;
    private final Followers followers = new Followers();
    private final Runnable onSelfFailure;
    private volatile String closedCause;

    private FabricChannel(String provider, RdmResources res, ChannelSettings settings, ExportedServices exports,
                          RsaCounters counters, Runnable onSelfFailure) throws FabricException {
        this.provider = provider;
        this.onSelfFailure = onSelfFailure;
        this.res = res;
        this.settings = settings;
        this.counters = counters;
        this.address = res.ep().getName();
        this.addressText = Base64.getUrlEncoder().withoutPadding().encodeToString(address);
        AtomicInteger threads = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "jofi-rsa-" + provider + "-worker-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.rendezvous = new Rendezvous(this, res.domain());
        this.caller = new CallerSide(this);
        this.exporter = new ExporterSide(this, exports);
        this.ownCall = ThreadLocal.withInitial(() -> new ExportedCall(exporter));
        this.ping = ByteBuffer.allocateDirect(HEADER).order(ByteOrder.LITTLE_ENDIAN);
        CallDescriptor.header(ping, CallDescriptor.PING, 0, 0, 0, 0, 0, 0, 0);
        this.receives = new ReceiveSlot[settings.receives()];
        for (int i = 0; i < receives.length; i++) {
            receives[i] = new ReceiveSlot(ChannelSettings.receiveBytes());
            int rc = res.ep().trecv(receives[i].buffer, null, Fi.FI_ADDR_UNSPEC, CallDescriptor.TAG, 0, receives[i]);
            if (rc != 0) {
                throw new FabricException(-rc, provider + ": cannot post the channel's receive " + i + ": " + Errno.strerror(-rc));
            }
        }
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new CqEntry();
        }
        this.housekeeping = System.nanoTime() + HOUSEKEEPING_NANOS;
        this.nextPing = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.pingMillis());
    }

    /**
     * The name a channel goes by: the provider's, or for a layered provider's RDM ({@code tcp;ofi_rxm})
     * its core's ({@code tcp}), the name that selects it in {@code getInfo} as in libfabric.
     */
    public static String transportName(String provName) {
        int semi = provName == null ? -1 : provName.indexOf(';');
        return semi < 0 ? provName : provName.substring(0, semi);
    }

    /**
     * Opens the channel of {@code info}'s provider: its endpoint, receives and progress thread.
     *
     * @param onSelfFailure run when the channel finds itself broken (not when closed from outside)
     */
    public static FabricChannel open(Fabrics fabrics, Info info, ChannelSettings settings, ExportedServices exports,
                                     RsaCounters counters, Runnable onSelfFailure) throws FabricException {
        String provider = transportName(info.fabricAttr().provName());
        RdmResources res = RdmResources.open(fabrics, info);
        FabricChannel channel;
        try {
            channel = new FabricChannel(provider, res, settings, exports, counters, onSelfFailure);
        } catch (FabricException | RuntimeException e) {
            try {
                res.close();
            } catch (FabricException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        channel.startLeading();
        return channel;
    }

    public String provider() {
        return provider;
    }

    /** This endpoint's fabric address, as peers insert it in their AV. */
    public byte[] address() {
        return address.clone();
    }

    /** {@link #address()} in the text form endpoint descriptions carry (URL-safe Base64). */
    public String addressText() {
        return addressText;
    }

    public CallerSide caller() {
        return caller;
    }

    /** Why the channel closed, or {@code null} while it is open. */
    public String closedCause() {
        return closedCause;
    }

    long insert(byte[] peerAddress) throws FabricException {
        long[] fiAddr = {Fi.FI_ADDR_NOTAVAIL};
        int n = res.av().insert(new byte[][] {peerAddress}, fiAddr, 0, null);
        if (n != 1 || fiAddr[0] == Fi.FI_ADDR_NOTAVAIL) {
            throw new FabricException(Errno.EADDRNOTAVAIL, provider + ": cannot insert the peer address "
                    + res.av().straddr(peerAddress) + " in the address vector");
        }
        return fiAddr[0];
    }

    SendSlot acquire() {
        SendSlot slot = slots.poll();
        return slot != null ? slot : new SendSlot(SLOT_BYTES, this::domainMemory);
    }

    /** Memory a message grows into: the domain's (shm: shareable, so a rendezvous reader needs none of our progress). */
    private ByteBuffer domainMemory(int bytes) {
        try {
            return res.domain().allocateBuffer(bytes);
        } catch (FabricException e) {
            return ByteBuffer.allocateDirect(bytes);
        }
    }

    void release(SendSlot slot) {
        ByteBuffer before = slot.message.buffer();
        slot.reset();
        boolean kept = closedCause == null && slots.offer(slot);
        if (!kept || slot.message.buffer() != before) {
            dropRegion(slot);
        }
    }

    private void dropRegion(SendSlot slot) {
        try {
            slot.closeRegion();
        } catch (FabricException e) {
            if (e.errno() != Errno.ENODEV) {
                LOG.log(System.Logger.Level.WARNING, provider + ": closing a send buffer's registration: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Sends the message in {@code slot} (header written, body after it) to {@code peer}; the
     * body length is filled in here. Returns {@code null} when posted, else why not (the slot is
     * then released).
     */
    String send(SendSlot slot, long peer) {
        slot.peer = peer;
        MessageBuffer message = slot.message;
        message.buffer().putInt(CallDescriptor.BODY_LENGTH, message.bodyLength());
        ByteBuffer buf = message.flip();
        if (buf.limit() > settings.sendInlineBytes()) {
            return rendezvous.send(slot, peer);
        }
        int rc = res.ep().tsend(buf, null, peer, CallDescriptor.TAG, slot);
        if (rc == 0) {
            return null; // the common case: no retry, no lambda
        }
        return rc == -Errno.EAGAIN ? post(slot, () -> res.ep().tsend(buf, null, peer, CallDescriptor.TAG, slot))
                : failedPost(slot, rc);
    }

    /** Posts with {@code op}, retrying while the queue is full, up to the call timeout. */
    String post(SendSlot slot, IntSupplier op) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
        int rc;
        int spins = 0;
        while ((rc = op.getAsInt()) == -Errno.EAGAIN && closedCause == null && System.nanoTime() - deadline < 0) {
            if (++spins > 100) {
                LockSupport.parkNanos(20_000);
            } else {
                Thread.onSpinWait();
            }
        }
        return rc == 0 ? null : failedPost(slot, rc);
    }

    private String failedPost(SendSlot slot, int rc) {
        if (slot != null) {
            release(slot);
        }
        String cause = closedCause;
        return cause != null ? cause : provider + " send failed: " + Errno.strerror(-rc) + " (" + rc + ")";
    }

    /** Posts an RMA read for a rendezvous. */
    int read(ByteBuffer target, long peer, long addr, long key, Object context) {
        return res.ep().read(target, null, peer, addr, key, context);
    }

    boolean onProgressThread() {
        return Thread.currentThread() == leader;
    }

    /**
     * Runs an exported method's call that {@code ExporterSide} decoded: on the leader, it joins the
     * batch the leader runs itself once it handed the CQ over; elsewhere it goes to the executor.
     */
    boolean dispatch(Object service, java.lang.reflect.Method method, Object[] args, long peer, long callId) {
        if (Thread.currentThread() == leader) {
            batchCalls.add(batchCalls.isEmpty() ? ownCall.get().set(service, method, args, peer, callId)
                    : new ExportedCall(exporter).set(service, method, args, peer, callId));
            return true;
        }
        return execute(new ExportedCall(exporter).set(service, method, args, peer, callId));
    }

    /** Runs {@code task} on the executor; false when the channel is closing. */
    boolean execute(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Starts the first leader term (the channel is open). */
    private void startLeading() {
        leaders.incrementAndGet();
        if (!execute(lead)) {
            leaders.decrementAndGet();
            throw new IllegalStateException(provider + ": the channel's executor refused its progress thread");
        }
    }

    /**
     * One leader term on an executor thread: reads the CQ until it decoded calls to run, hands
     * the CQ to the next leader and runs the first call itself (leader/followers: the call needs no
     * hand-over to a worker, and the next leader wakes while this one works). If the term ends by
     * a throwable the channel closes (no call may wait for a dead thread).
     */
    private void lead() {
        while (true) {
            Runnable first;
            leader = Thread.currentThread();
            try {
                first = progressLoop();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, provider + ": the remote-services progress thread failed", t);
                broken("the progress thread over " + provider + " failed: " + t);
                if (t instanceof Error e) {
                    throw e;
                }
                return;
            } finally {
                leaders.decrementAndGet();
            }
            if (first == null) {
                return;
            }
            first.run();
            if (!followers.await(this::closing)) {
                return; // enough followers wait: this thread goes back to the executor's pool
            }
        }
    }

    private boolean closing() {
        return closedCause != null;
    }

    /** The leader's loop; returns the call this thread runs after it handed over, or null when the channel closed. */
    private Runnable progressLoop() {
        while (closedCause == null) {
            int n = res.cq().sread(entries, entries.length, 0, 20);
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    onCompletion(entries[i], 0, null);
                }
            } else if (n == -Errno.EAVAIL) {
                if (res.cq().readErr(err, 0) > 0) {
                    onCompletion(err, err.err(), Errno.strerror(err.err()) + " (" + Errno.name(err.err()) + "): "
                            + res.cq().strerror(err.provErrno(), err.errData()));
                }
            } else if (n != -Errno.EAGAIN) {
                broken(provider + " completion queue failed: " + Errno.strerror(-n) + " (" + n + ")");
                return null;
            }
            long now = System.nanoTime();
            if (now - housekeeping >= 0) {
                housekeeping = now + HOUSEKEEPING_NANOS;
                caller.expire(now);
                rendezvous.expire(now);
            }
            if (now - nextPing >= 0) {
                nextPing = now + TimeUnit.MILLISECONDS.toNanos(settings.pingMillis());
                pingPeers();
            }
            if (!batchCalls.isEmpty()) {
                return handOver();
            }
        }
        return null;
    }

    /**
     * Ends this leader term: the batch's calls but the first go to the executor, the next
     * leader is started (the hand-over publishes the loop's state to it), and the first call is
     * returned for this thread to run. When no next leader can start the channel is closing.
     */
    private Runnable handOver() {
        Runnable first = batchCalls.get(0);
        for (int i = 1; i < batchCalls.size(); i++) {
            execute(batchCalls.get(i));
        }
        batchCalls.clear();
        leader = null;
        leaders.incrementAndGet();
        if (!followers.promote() && !execute(lead)) {
            leaders.decrementAndGet();
            if (closedCause == null) {
                broken(provider + ": no thread could take the progress over");
            }
        }
        return first;
    }

    private void onCompletion(CqEntry entry, int err, String reason) {
        Object context = entry.context();
        if (context instanceof ReceiveSlot slot) {
            if (err == 0) {
                ByteBuffer buf = slot.buffer;
                buf.limit((int) entry.len());
                try {
                    onMessage(buf);
                } catch (RuntimeException e) {
                    counters.droppedMessage();
                    LOG.log(System.Logger.Level.WARNING, provider + ": a message could not be handled", e);
                } finally {
                    buf.clear();
                }
            } else if (closedCause != null) {
                return;
            } else if (err == Errno.ECANCELED || err == Errno.ENODEV) {
                broken("fabric provider " + provider + " shut the channel's endpoint down: " + reason);
                return;
            } else {
                counters.droppedMessage();
                LOG.log(System.Logger.Level.WARNING, provider + ": a receive failed: " + reason);
            }
            int rc = res.ep().trecv(slot.buffer, null, Fi.FI_ADDR_UNSPEC, CallDescriptor.TAG, 0, slot);
            if (rc != 0 && closedCause == null) {
                broken("fabric provider " + provider + " refused a receive: " + Errno.strerror(-rc) + " (" + rc + ")");
            }
        } else if (context instanceof SendSlot slot) {
            if (err != 0) {
                caller.sendFailed(slot, err, reason);
            }
            release(slot);
        } else if (context instanceof Rendezvous.Read read) {
            rendezvous.onRead(read, err, reason);
        } else if (context instanceof Long peer) {
            pingsInFlight.remove(peer);
            if (err != 0) {
                caller.peerLost(peer, "the peer did not take a ping over " + provider + ": " + reason);
            }
        }
    }

    /** Routes one complete message (position 0, limit its end). */
    void onMessage(ByteBuffer msg) {
        if (msg.limit() < HEADER || HEADER + (long) CallDescriptor.bodyLength(msg) > msg.limit()
                || CallDescriptor.bodyLength(msg) < 0) {
            counters.droppedMessage();
            return;
        }
        msg.limit(HEADER + CallDescriptor.bodyLength(msg));
        if ((CallDescriptor.flags(msg) & CallDescriptor.FLAG_RENDEZVOUS) != 0) {
            rendezvous.onAnnouncement(msg);
            return;
        }
        switch (CallDescriptor.kind(msg)) {
            case CallDescriptor.CALL -> exporter.onCall(msg);
            case CallDescriptor.HELLO -> exporter.onHello(msg);
            case CallDescriptor.PROOF -> exporter.onProof(msg);
            case CallDescriptor.PING -> { }
            case CallDescriptor.RENDEZVOUS_DONE -> rendezvous.onDone(CallDescriptor.callId(msg));
            case CallDescriptor.REPLY_VALUE, CallDescriptor.REPLY_THROWN, CallDescriptor.REPLY_FAILURE,
                 CallDescriptor.CHALLENGE, CallDescriptor.WELCOME, CallDescriptor.REFUSED -> caller.onMessage(msg);
            default -> counters.droppedMessage();
        }
    }

    /** Pings every peer some call waits for, once at a time per peer, with delivery completion. */
    private void pingPeers() {
        if (caller.idle()) {
            return;
        }
        Set<Long> peers = new HashSet<>();
        caller.forEachWaitedPeer(peers::add);
        for (Long peer : peers) {
            if (pingsInFlight.add(peer)) {
                if (!execute(() -> sendPing(peer))) {
                    pingsInFlight.remove(peer);
                }
            }
        }
    }

    private void sendPing(Long peer) {
        TaggedMsg msg = new TaggedMsg().buffer(ping.duplicate(), null).addr(peer).tag(CallDescriptor.TAG).context(peer);
        String failed = post(null, () -> res.ep().tsendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
        if (failed != null) {
            pingsInFlight.remove(peer);
            caller.peerLost(peer, "cannot ping the peer: " + failed);
        }
    }

    /** The channel found itself broken: close it and tell the pool (its exports must be made again). */
    private void broken(String cause) {
        if (closedCause == null) {
            fail(cause);
            onSelfFailure.run();
        }
    }

    /** Closes the channel because of {@code cause}: every waiting call fails with it. */
    public void fail(String cause) {
        if (!markClosed(cause)) {
            return;
        }
        LOG.log(System.Logger.Level.INFO, "remote-services channel over " + provider + " closes: " + cause);
        caller.failAll(cause);
        followers.wakeAll();
        if (Thread.currentThread() != leader) {
            shutdown();
        } else {
            // the progress thread cannot join itself: a worker finishes the close
            Thread closer = new Thread(this::shutdown, "jofi-rsa-" + provider + "-close");
            closer.setDaemon(true);
            closer.start();
        }
    }

    /** Closes the channel (the provider or the container goes away). */
    public void close(String cause) {
        fail(cause);
    }

    private synchronized boolean markClosed(String cause) {
        if (closedCause != null) {
            return false;
        }
        closedCause = cause;
        return true;
    }

    private void shutdown() {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (leaders.get() > 0 && System.nanoTime() - giveUp < 0) {
            LockSupport.parkNanos(1_000_000); // the leader leaves within one sread timeout
        }
        executor.shutdown();
        rendezvous.closeAll();
        for (SendSlot slot; (slot = slots.poll()) != null; ) {
            dropRegion(slot);
        }
        try {
            res.close();
        } catch (FabricException e) {
            // after a provider's departure (R15) its objects answer ENODEV: nothing is left to free
            System.Logger.Level level = e.errno() == Errno.ENODEV ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
            LOG.log(level, provider + ": closing the channel's fabric objects: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "remote-services channel over " + provider + " at " + addressText;
    }
}
