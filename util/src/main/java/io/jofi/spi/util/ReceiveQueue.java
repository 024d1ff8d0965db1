package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fi;

/**
 * The receive side of one endpoint, written once for every provider: the posted receives
 * (untagged and tagged), the unexpected messages with their limits, matching
 * ({@code fi_msg(3)}, {@code fi_tagged(3)}: one tag rule, {@code FI_DIRECTED_RECV} by sender),
 * {@code FI_PEEK}/{@code FI_CLAIM}/{@code FI_DISCARD}, multi-receive buffers, cancel (R13),
 * failing what is posted (R14, R15), and the completions through its
 * {@link ReceiveCompletion} (R10, R12). The provider keeps the wire: it decodes a message's
 * header into a {@link ArrivingMessage}, moves the bytes, and stores unexpected payloads behind
 * an {@link UnexpectedPayload}.
 *
 * <p><b>Invariant.</b> No posted receive accepts a queued unexpected message that it could
 * take: a receive being posted first looks through the unexpected messages (oldest first),
 * and an arriving message first looks through the posted receives (in posting order). So the
 * messages of one sender are matched in the order they arrived, and an arriving message may
 * take the first posted receive that accepts it.
 *
 * <p><b>Multi-receive.</b> A buffer posted with {@code FI_MULTI_RECV} ({@link
 * PostedReceive#multiReceive}) stays posted and gives each message it accepts a part of
 * itself (a {@link PostedReceive} of its own, at the next free bytes; a message longer than
 * what is left is truncated, R12). Each part has CQ room: the first reserves its own when it
 * is carved, the buffer's room goes to the part that releases it; when the CQ has no room for
 * a part, or less than {@code min_multi_recv} bytes are left, that part releases the buffer.
 * The completion that comes last of a released buffer carries {@code FI_MULTI_RECV} (fi_cq(3):
 * the provider no longer uses the buffer); no unsolicited completion is ever written. Parts of
 * one buffer may be filled at the same time (messages of several senders).
 *
 * <p><b>How a provider uses it.</b>
 * <pre>{@code
 * // bind and enable
 * rq.completion().bind(rxCq, boundWithFiSelectiveCompletion, recvCounter);
 * rq.completion().reportSource(caps has FI_SOURCE, caps has FI_SOURCE_ERR);
 * rq.directed(caps has FI_DIRECTED_RECV);
 *
 * // fi_recv / fi_trecv (after the post checks)
 * if (!rq.canPost(tagged)) return -EAGAIN;
 * rc = rxCq.reserve(); if (rc != 0) return rc;        // R6: room for its completion
 * PostedReceive r = rq.newReceive().tagged(ctx, srcAddr, tag, ignore, flags).buffer(buf);
 * if (multi) r.multiReceive(minMultiRecv);
 * rq.post(r);                                            // takes a waiting message, or is queued
 * // FI_PEEK: rq.peek(r, flags); FI_CLAIM: if (!rq.claim(r, flags)) { unreserve; rq.recycle(r); -ENOMSG }
 *
 * // a message's header was read
 * header.set(tagged, tag, hasData, data, senderFiAddr, rawAddressIfNotInAv, length);
 * PostedReceive r = rq.match(header);
 * if (r != null) {                                       // read the bytes straight into it
 *     read into r.scatterViews(min(length, r.capacity())) or r.place(...), discard the rest;
 *     rq.complete(r, header, placed);                    // ETRUNC when placed < length
 * } else if (rq.admits(footprint)) {                     // buffer it
 *     UnexpectedMessage u = rq.newUnexpected(footprint);
 *     u.set(...same header...); u.payload(storage, heapBufferOrDescriptor, slotOrToken).origin(connection);
 *     rq.arriving(u);            // optional: receives posted meanwhile may take it and wait
 *     ... read the bytes into the provider's storage ...
 *     rq.arrived(u);             // whole: a receive takes it (storage.copyTo), or it waits queued
 * } else {
 *     stop reading this sender until a receive is posted (back-pressure)
 * }
 *
 * // fi_cancel: rq.cancel(ctx); a connection's end: rq.fail(current, err, ...), rq.abandon(u, err),
 * // rq.failPosted(err, ...); close: rq.discardPosted()
 * }</pre>
 *
 * <p><b>Threads.</b> Not thread-safe and no locks: the owning endpoint serialises every call
 * (its lock or its progress thread). The CQ and counter synchronise themselves. Nothing is
 * allocated per message once the pools have grown to the peak (receives, messages).
 */
public final class ReceiveQueue {
    private final int queueSize;
    private final int maxSegments;
    private final int maxUnexpectedMessages;
    private final long maxUnexpectedBytes;
    private final ReceiveCompletion completion = new ReceiveCompletion();
    private boolean directed;

    private final PostedReceiveQueue posted = new PostedReceiveQueue();
    private final PostedReceiveQueue postedTagged = new PostedReceiveQueue();
    /** Receives that took an unexpected message still arriving. */
    private final PostedReceiveQueue waiting = new PostedReceiveQueue();
    private final UnexpectedMessageQueue unexpected = new UnexpectedMessageQueue(false);
    private final UnexpectedMessageQueue unexpectedTagged = new UnexpectedMessageQueue(true);
    private int unexpectedCount;
    private long unexpectedBytes;

    private PostedReceive freeReceives;
    /** The views its receives read through, by buffer: shared, as the pool pairs receives and buffers anew each time. */
    private final ReceiveViews views = new ReceiveViews();
    private UnexpectedMessage freeMessages;
    private int created;
    /** Its live counters, freed when the queue is no longer reachable (it has no close). */
    private final ReceiveCounters stats;

    /**
     * @param queueSize             posted receives of each kind (untagged, tagged) at most
     *                              ({@link #canPost})
     * @param maxSegments           buffers one receive may have (the provider's iov limit)
     * @param maxUnexpectedMessages unexpected messages held at most ({@link #admits})
     * @param maxUnexpectedBytes    footprint of unexpected messages held at most
     */
    public ReceiveQueue(int queueSize, int maxSegments, int maxUnexpectedMessages, long maxUnexpectedBytes) {
        this(queueSize, maxSegments, maxUnexpectedMessages, maxUnexpectedBytes, null,
                StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass());
    }

    /**
     * The same, its counters labelled with {@code statsProvider} (a layer over a provider, such
     * as the rxm endpoint, names the provider the application chose).
     */
    public ReceiveQueue(int queueSize, int maxSegments, int maxUnexpectedMessages, long maxUnexpectedBytes,
                        String statsProvider) {
        this(queueSize, maxSegments, maxUnexpectedMessages, maxUnexpectedBytes, statsProvider,
                StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass());
    }

    private ReceiveQueue(int queueSize, int maxSegments, int maxUnexpectedMessages, long maxUnexpectedBytes,
                         String statsProvider, Class<?> maker) {
        this.queueSize = queueSize;
        this.maxSegments = maxSegments;
        this.maxUnexpectedMessages = maxUnexpectedMessages;
        this.maxUnexpectedBytes = maxUnexpectedBytes;
        // labelled by the class that made it (its provider's receive side)
        this.stats = new ReceiveCounters(maker, statsProvider);
        stats.group.freeWhenUnreachable(this);
    }

    /** Its live counters ({@code jofi stat}, JMX): unexpected messages and bytes, their high-water marks. */
    public io.jofi.spi.util.stats.CounterGroup counters() {
        return stats.group;
    }

    /** Its completion writer (bind the CQ and counter there). */
    public ReceiveCompletion completion() {
        return completion;
    }

    /** {@code FI_DIRECTED_RECV}: receives accept only their sender ({@link PostedReceive#src()}); else any. */
    public void directed(boolean directedRecv) {
        this.directed = directedRecv;
    }

    // ================================================================== posting

    /** A pooled receive, reset, to fill and {@link #post} (or {@link #recycle} if never posted). */
    public PostedReceive newReceive() {
        PostedReceive r = freeReceives;
        if (r != null) {
            freeReceives = r.next;
            r.next = null;
            return r;
        }
        created++;
        PostedReceive fresh = new PostedReceive(maxSegments);
        fresh.sharedViews = views;
        return fresh;
    }

    /**
     * Gives back a receive that was never posted (or that the provider completed itself).
     * Never one the queue still holds, nor a multi-receive buffer whose parts are being filled.
     */
    public void recycle(PostedReceive r) {
        r.reset();
        r.recycled++;
        r.next = freeReceives;
        freeReceives = r;
    }

    /** Whether another receive of that kind fits ({@code queueSize}); else the post returns {@code -EAGAIN}. */
    public boolean canPost(boolean tagged) {
        return (tagged ? postedTagged : posted).size() < queueSize;
    }

    /** Receives of that kind posted now (multi-receive buffers included). */
    public int postedCount(boolean tagged) {
        return (tagged ? postedTagged : posted).size();
    }

    /**
     * Posts a receive whose CQ room the caller reserved: it takes the oldest unexpected
     * message it accepts — a multi-receive buffer one after another, whole ones only — else
     * it is queued. A receive that takes a message still arriving waits for its last bytes.
     *
     * @return true when it is no longer posted (it took a message, or a multi-receive buffer
     *         was used up); false when it is queued or waits
     */
    public boolean post(PostedReceive r) {
        UnexpectedMessageQueue list = r.tagged ? unexpectedTagged : unexpected;
        boolean exact = r.tagged && r.ignore == 0; // an exact tag walks only that tag's chain
        UnexpectedMessage u = exact ? list.firstWithTag(r.tag) : list.head();
        while (u != null) {
            UnexpectedMessage following = exact ? list.nextWithTag(u) : u.next;
            if (u.claimedBy != null || u.waiting != null || !r.accepts(u, directed)) {
                u = following;
                continue;
            }
            if (!u.whole) {
                if (r.multi) {
                    u = following; // a multi-receive takes whole messages only
                    continue;
                }
                wait(r, u);
                return false;
            }
            if (!r.multi) {
                deliver(r, u);
                return true;
            }
            PostedReceive part = part(r, u.length);
            boolean last = r.released; // read first: the part's completion may recycle r
            deliver(part, u);
            if (last) {
                return true;
            }
            // the delivery may have changed the list (a provider failing a peer takes its entries along)
            u = following == null || list.contains(following) ? following : list.head();
        }
        (r.tagged ? postedTagged : posted).add(r);
        return false;
    }

    /**
     * {@code FI_PEEK} of a tagged receive whose CQ room the caller reserved (fi_tagged(3)):
     * the oldest unexpected message it accepts is reported (length, tag, data, sender; nothing
     * copied) and stays — set aside for a later {@link #claim} with the same context with
     * {@code FI_CLAIM}, dropped with {@code FI_DISCARD}; none: an {@code ENOMSG} error entry.
     * The receive goes back to the pool.
     */
    public void peek(PostedReceive r, long flags) {
        UnexpectedMessageQueue list = unexpectedTagged;
        boolean exact = r.ignore == 0;
        for (UnexpectedMessage u = exact ? list.firstWithTag(r.tag) : list.head(); u != null;
                u = exact ? list.nextWithTag(u) : u.next) {
            if (u.claimedBy != null || u.waiting != null || !r.accepts(u, directed)) {
                continue;
            }
            completion.peeked(r.context, u, u.length);
            if ((flags & Fi.FI_DISCARD) != 0) {
                drop(u);
            } else if ((flags & Fi.FI_CLAIM) != 0) {
                u.claimedBy = r.context;
            }
            recycle(r);
            return;
        }
        completion.notFound(r.context, r.tag);
        recycle(r);
    }

    /**
     * {@code FI_CLAIM} without {@code FI_PEEK}: the message a peek set aside for this context
     * is received into {@code r} (whose CQ room the caller reserved), or with
     * {@code FI_DISCARD} dropped (a completion of length 0).
     *
     * @return false when no message is set aside for that context: nothing done (the caller
     *         gives back the room and the receive, and returns {@code -ENOMSG})
     */
    public boolean claim(PostedReceive r, long flags) {
        for (UnexpectedMessage u = unexpectedTagged.head(); u != null; u = u.next) {
            if (u.claimedBy == null || u.claimedBy != r.context) {
                continue;
            }
            u.claimedBy = null;
            if ((flags & Fi.FI_DISCARD) != 0) {
                completion.peeked(r.context, u, 0);
                drop(u);
                recycle(r);
            } else if (u.whole) {
                deliver(r, u);
            } else {
                wait(r, u);
            }
            return true;
        }
        return false;
    }

    /**
     * {@code fi_cancel} (R13): the oldest pending receive with this context — posted, or
     * waiting for a message still arriving (which stays queued for another) — fails with
     * {@code ECANCELED}. A multi-receive buffer whose parts are being filled is released
     * (they complete; the last carries {@code FI_MULTI_RECV}). A receive a message is being
     * read into is not pending any more.
     *
     * @return 0, or {@code -ENOENT} when no such receive is pending
     */
    public int cancel(Object context) {
        PostedReceive r = find(posted, context);
        if (r == null) {
            r = find(postedTagged, context);
        }
        if (r == null) {
            r = find(waiting, context);
        }
        if (r == null) {
            return -Errno.ENOENT;
        }
        fail(r, Errno.ECANCELED, 0, null);
        return 0;
    }

    private static PostedReceive find(PostedReceiveQueue q, Object context) {
        for (PostedReceive r = q.head(); r != null; r = r.next) {
            if (r.context == context) {
                return r;
            }
        }
        return null;
    }

    // ================================================================== arriving messages

    /**
     * A message whose header was read: the first posted receive (in posting order) that
     * accepts it, no longer posted — or, from a multi-receive buffer, a part of it for this
     * message (the buffer stays posted until used up) — or null (buffer the message, or stop
     * reading its sender). Read the bytes into it and call {@link #complete} (or {@link #fail}).
     */
    public PostedReceive match(ArrivingMessage m) {
        PostedReceiveQueue q = m.tagged ? postedTagged : posted;
        for (PostedReceive r = q.head(); r != null; r = r.next) {
            if (r.accepts(m, directed)) {
                if (r.multi) {
                    return part(r, m.length);
                }
                q.remove(r);
                return r;
            }
        }
        return null;
    }

    /**
     * A matched receive holds {@code placed} bytes of {@code m}: its completion (an
     * {@code ETRUNC} error when {@code placed < m.length()}, R12; {@code EADDRNOTAVAIL} for an
     * unknown sender under {@code FI_SOURCE_ERR}, R10; else success if asked for), then it goes
     * back to the pool — with its multi-receive buffer when it was the last part of a
     * released one.
     */
    public void complete(PostedReceive r, ArrivingMessage m, long placed) {
        long flags = kind(r) | (m.hasData ? Fi.FI_REMOTE_CQ_DATA : 0) | partDone(r);
        boolean releases = (flags & Fi.FI_MULTI_RECV) != 0;
        completion.received(r.context, flags, r.report || releases, r.buf, r.bufOffset, placed,
                Math.max(0, m.length - placed), m.data, m.tag, m.src, m.sourceAddress);
        finish(r, releases);
    }

    /**
     * A matched receive whose message could not be read (e.g. the sender's memory is gone):
     * an error completion with {@code err} naming the message (tag, data, sender), nothing
     * received; then as {@link #complete}.
     */
    public void failMessage(PostedReceive r, ArrivingMessage m, int err) {
        long flags = kind(r) | (m.hasData ? Fi.FI_REMOTE_CQ_DATA : 0) | partDone(r);
        completion.failed(r.context, flags, r.buf, r.bufOffset, m.data, m.tag, m.src, err, 0, null);
        finish(r, (flags & Fi.FI_MULTI_RECV) != 0);
    }

    /**
     * Fails a receive with {@code err} (an error completion, R2): one the provider holds (a
     * message was being read into it when its connection ended), or any pending one. A whole
     * multi-receive buffer is released: its error carries {@code FI_MULTI_RECV} unless parts
     * are still being filled (then the last of them does).
     *
     * @param provErrno the provider's errno, or 0
     * @param errData   the provider's error data (kept by reference, never changed), or null
     */
    public void fail(PostedReceive r, int err, int provErrno, byte[] errData) {
        if (r.list != null) {
            r.list.remove(r);
        }
        if (r.waitsFor != null) {
            r.waitsFor.waiting = null; // the message stays queued for another receive
            r.waitsFor = null;
        }
        if (r.multi) {
            r.released = true;
            boolean last = r.inFlight == 0;
            completion.failed(r.context, ReceiveCompletion.RECV_FLAGS | (last ? Fi.FI_MULTI_RECV : 0), r.buf,
                    r.bufOffset, 0, 0, Fi.FI_ADDR_NOTAVAIL, err, provErrno, errData);
            if (last) {
                recycle(r);
            }
            return;
        }
        long flags = kind(r) | partDone(r);
        completion.failed(r.context, flags, r.buf, r.bufOffset, 0, 0, Fi.FI_ADDR_NOTAVAIL, err, provErrno, errData);
        finish(r, (flags & Fi.FI_MULTI_RECV) != 0);
    }

    /**
     * Whether a message of {@code footprint} bytes may be held unexpected now: fewer than
     * {@code maxUnexpectedMessages} held and the footprints within {@code maxUnexpectedBytes}.
     * False is the provider's back-pressure: it leaves the message where it is (socket, ring)
     * until a receive is posted. (A provider that admits the first one whatever its size, so
     * that {@code FI_PEEK} sees something, asks {@code unexpectedCount() == 0 || admits(n)}.)
     */
    public boolean admits(long footprint) {
        return unexpectedCount < maxUnexpectedMessages && unexpectedBytes + footprint <= maxUnexpectedBytes;
    }

    /**
     * A pooled unexpected message whose {@code footprint} (its payload, plus what the
     * provider's storage costs) counts against the limits from now until it ends. Set its
     * header and payload, then {@link #arriving} and/or {@link #arrived}.
     */
    public UnexpectedMessage newUnexpected(long footprint) {
        UnexpectedMessage u = freeMessages;
        if (u != null) {
            freeMessages = u.next;
            u.next = null;
        } else {
            created++;
            u = new UnexpectedMessage();
        }
        u.footprint = footprint;
        u.counted = true;
        unexpectedCount++;
        unexpectedBytes += footprint;
        stats.queued(footprint, unexpectedCount, unexpectedBytes);
        return u;
    }

    /**
     * Queues {@code u} (no receive matched it) while its bytes still arrive: a receive posted
     * meanwhile that accepts it takes it and waits for {@link #arrived}.
     */
    public void arriving(UnexpectedMessage u) {
        u.whole = false;
        (u.tagged ? unexpectedTagged : unexpected).add(u);
    }

    /**
     * All of {@code u}'s bytes are there. A receive that waits for it takes it; one posted
     * since that accepts it (a multi-receive buffer, or any when {@code u} was not queued
     * while arriving) takes it; else it waits queued for a receive.
     */
    public void arrived(UnexpectedMessage u) {
        u.whole = true;
        if (u.dropped) {
            uncount(u);
            u.payload.discard(u);
            recycleMessage(u);
            return;
        }
        PostedReceive w = u.waiting;
        if (w != null) {
            u.waiting = null;
            w.waitsFor = null;
            waiting.remove(w);
            deliver(w, u);
            return;
        }
        PostedReceive r = u.claimedBy == null ? match(u) : null;
        if (r != null) {
            deliver(r, u);
        } else if (u.list == null) {
            (u.tagged ? unexpectedTagged : unexpected).add(u);
        }
    }

    /**
     * {@code u}'s bytes will never all arrive (its sender failed mid-message): it goes, and a
     * receive waiting for it fails with {@code err}. The provider frees its storage itself
     * (neither {@link UnexpectedPayload} method is called).
     */
    public void abandon(UnexpectedMessage u, int err) {
        PostedReceive w = u.waiting;
        unqueue(u);
        recycleMessage(u);
        if (w != null) {
            w.waitsFor = null;
            fail(w, err, 0, null);
        }
    }

    /**
     * Drops a whole queued message (e.g. one whose sender failed and whose bytes stayed in the
     * sender's memory): {@link UnexpectedPayload#discard} is called and it goes.
     */
    public void discard(UnexpectedMessage u) {
        unqueue(u);
        u.payload.discard(u);
        recycleMessage(u);
    }

    /** The oldest queued message of that kind, or null; walk on with {@link UnexpectedMessage#nextQueued()}. */
    public UnexpectedMessage firstUnexpected(boolean tagged) {
        return (tagged ? unexpectedTagged : unexpected).head();
    }

    /** Whether any message is queued unexpected. */
    public boolean hasUnexpected() {
        return !unexpected.isEmpty() || !unexpectedTagged.isEmpty();
    }

    /** Unexpected messages held (queued, or being read since {@link #newUnexpected}). */
    public int unexpectedCount() {
        return unexpectedCount;
    }

    /** Their footprint in bytes. */
    public long unexpectedBytes() {
        return unexpectedBytes;
    }

    // ================================================================== teardown

    /**
     * Fails every posted receive with {@code err} (R14: the connection ended; R15: departure).
     * Unexpected messages stay: a receive posted later still gets them (nothing the peer sent
     * is lost). Receives waiting for a message still arriving fail when it is
     * {@link #abandon}ed.
     */
    public void failPosted(int err, int provErrno, byte[] errData) {
        PostedReceive r;
        while ((r = posted.head()) != null) {
            fail(r, err, provErrno, errData);
        }
        while ((r = postedTagged.head()) != null) {
            fail(r, err, provErrno, errData);
        }
    }

    /**
     * Close ({@code fi_endpoint(3)}: pending operations are discarded): every pending receive
     * goes without a completion, its reserved CQ room given back.
     */
    public void discardPosted() {
        discardAll(posted);
        discardAll(postedTagged);
        discardAll(waiting);
    }

    private void discardAll(PostedReceiveQueue q) {
        PostedReceive r;
        while ((r = q.poll()) != null) {
            if (r.waitsFor != null) {
                r.waitsFor.waiting = null;
            }
            completion.cq().unreserve();
            if (r.multi && r.inFlight > 0) {
                r.released = true; // its parts end it
            } else {
                recycle(r);
            }
        }
    }

    /** Receives and messages created so far (tests prove the pools stop growing). */
    public int created() {
        return created;
    }

    // ================================================================== internals

    private static long kind(PostedReceive r) {
        return r.tagged ? ReceiveCompletion.TRECV_FLAGS : ReceiveCompletion.RECV_FLAGS;
    }

    /**
     * The next part of multi-receive buffer {@code buffer} for a message of {@code length}
     * bytes, with CQ room of its own — or the buffer's room when it releases the buffer (less
     * than {@code minFree} left, or no CQ room for a part of its own: released early rather
     * than overrunning the CQ, R6).
     */
    private PostedReceive part(PostedReceive buffer, long length) {
        PostedReceive part = newReceive();
        part.context = buffer.context;
        part.report = buffer.report;
        part.src = buffer.src;
        buffer.carve(part, Math.min(buffer.capacity - buffer.used, length));
        part.parent = buffer;
        buffer.inFlight++;
        long left = buffer.capacity - buffer.used;
        if (left < Math.max(1, buffer.minFree) || completion.cq().reserve() != 0) {
            buffer.released = true;
            if (buffer.list != null) {
                buffer.list.remove(buffer);
            }
        }
        return part;
    }

    /** A part's completion is being written: {@code FI_MULTI_RECV} when it is the last of a released buffer. */
    private static long partDone(PostedReceive r) {
        PostedReceive b = r.parent;
        if (b == null) {
            return 0;
        }
        b.inFlight--;
        return b.released && b.inFlight == 0 ? Fi.FI_MULTI_RECV : 0;
    }

    private void finish(PostedReceive r, boolean releasesParent) {
        if (releasesParent) {
            recycle(r.parent);
        }
        recycle(r);
    }

    private void wait(PostedReceive r, UnexpectedMessage u) {
        u.waiting = r;
        r.waitsFor = u;
        waiting.add(r);
    }

    /** A receive takes a whole message: the provider copies (and answers its sender), then the completion. */
    private void deliver(PostedReceive r, UnexpectedMessage u) {
        unqueue(u);
        long placed = u.payload.copyTo(u, r);
        if (placed < 0) {
            failMessage(r, u, (int) -placed);
        } else {
            complete(r, u, placed);
        }
        recycleMessage(u);
    }

    /** {@code FI_DISCARD}: a whole message goes now; one still arriving once it has. */
    private void drop(UnexpectedMessage u) {
        if (u.whole) {
            discard(u);
        } else {
            if (u.list != null) {
                u.list.remove(u);
            }
            u.dropped = true;
        }
    }

    private void unqueue(UnexpectedMessage u) {
        if (u.list != null) {
            u.list.remove(u);
        }
        uncount(u);
    }

    private void uncount(UnexpectedMessage u) {
        if (u.counted) {
            u.counted = false;
            unexpectedCount--;
            unexpectedBytes -= u.footprint;
        }
    }

    private void recycleMessage(UnexpectedMessage u) {
        u.reset();
        u.next = freeMessages;
        freeMessages = u;
    }
}
