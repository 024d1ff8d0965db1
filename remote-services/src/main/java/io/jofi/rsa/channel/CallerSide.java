package io.jofi.rsa.channel;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.rsa.wire.CallDescriptor;
import io.jofi.rsa.wire.RefusedValueException;
import io.jofi.rsa.wire.ValueCodec;
import io.jofi.rsa.wire.ValueDecoder;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongPredicate;
import org.osgi.framework.ServiceException;

/**
 * The importing half of a channel: links to exporters (with their handshake), the table of
 * calls waiting for replies, and what completes them — a reply, a timeout, a lost peer or the
 * channel's end.
 */
public final class CallerSide {
    private final FabricChannel channel;
    private final PendingCalls pending = new PendingCalls();
    /** Each synchronous caller's waiter, reused call after call. */
    private final ThreadLocal<PendingCall> waiters = ThreadLocal.withInitial(PendingCall::new);
    private final ConcurrentHashMap<String, PeerLink> links = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, PeerLink> handshakes = new ConcurrentHashMap<>();

    CallerSide(FabricChannel channel) {
        this.channel = channel;
    }

    /** The link to the exporter at {@code address} ({@code text} its endpoint-description form). */
    public PeerLink link(byte[] address, String text) {
        PeerLink link = links.get(text);
        if (link != null) {
            return link;
        }
        synchronized (links) {
            link = links.get(text);
            if (link == null) {
                try {
                    link = new PeerLink(channel.insert(address), address, channel.provider() + " peer " + text);
                } catch (FabricException e) {
                    throw new ServiceException("cannot reach the exporter " + text + " over " + channel.provider()
                            + ": " + e.getMessage(), ServiceException.REMOTE, e);
                }
                links.put(text, link);
            }
            return link;
        }
    }

    /**
     * Sends a synchronous call and waits for its outcome, at most until its deadline. The waiter is
     * the calling thread's own, reused from call to call.
     *
     * @return the result
     * @throws ExecutionException with the service's exception or the failure as its cause
     * @throws TimeoutException when no reply came in time (a later reply is dropped)
     * @throws InterruptedException when the caller was interrupted while it waited (the call is dropped)
     * @throws ServiceException when the call cannot even be sent (no session, refused argument)
     */
    public Object callAndWait(PeerLink link, long service, int method, int signature, Object[] args, Method m,
                              ValueDecoder decoder, long timeoutMillis)
            throws ExecutionException, TimeoutException, InterruptedException {
        PendingCall call = waiters.get();
        if (call.busy()) {
            call = new PendingCall(); // a call made while this thread's waiter serves another: not reused
        }
        long deadline = send(call, link, service, method, signature, args, m, decoder, timeoutMillis);
        if (!call.awaitSettled(deadline)) {
            boolean interrupted = Thread.interrupted();
            if (pending.take(call.id) == call) {
                // the caller gives up: the call leaves the table settled, and a late reply finds nothing
                Exception why = interrupted ? new InterruptedException() : new TimeoutException();
                call.completeExceptionally(why);
                if (interrupted) {
                    throw (InterruptedException) why;
                }
                throw (TimeoutException) why;
            }
            call.awaitClaimed(); // a reply or a failure took it at this very moment: it settles now
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return call.outcome();
    }

    /**
     * Sends an asynchronous call: {@code call}'s future completes with the result or the failure.
     *
     * @throws ServiceException when the call cannot even be sent (no session, refused argument)
     */
    public void callAsync(PendingCall call, PeerLink link, long service, int method, int signature, Object[] args,
                          Method m, ValueDecoder decoder, long timeoutMillis) {
        send(call, link, service, method, signature, args, m, decoder, timeoutMillis);
    }

    /** Puts {@code call} in the table and sends it; returns its deadline. */
    private long send(PendingCall call, PeerLink link, long service, int method, int signature, Object[] args,
                      Method m, ValueDecoder decoder, long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long session = session(link, deadline, timeoutMillis);
        call.prepare(link.peer, link.name, deadline, m, decoder);
        try {
            pending.add(call);
        } catch (IllegalStateException full) {
            throw new ServiceException("cannot call " + m.getName() + ": " + full.getMessage(), ServiceException.REMOTE, full);
        }
        long id = call.id;
        SendSlot slot = channel.acquire();
        CallDescriptor.header(slot.message.buffer(), CallDescriptor.CALL, 0, signature, id, session, service, method, 0);
        try {
            if (args != null) {
                for (Object arg : args) {
                    ValueCodec.write(slot.message, arg);
                }
            }
        } catch (IOException | RuntimeException e) {
            channel.release(slot);
            ServiceException refused = new ServiceException("cannot send the arguments of " + m.getName() + ": "
                    + e.getMessage(), ServiceException.REMOTE, e);
            if (pending.take(id) == call) {
                call.completeExceptionally(refused); // leaves the waiter settled, so reusable
            }
            throw refused;
        }
        slot.callId = id;
        String closedMeanwhile = channel.closedCause();
        if (closedMeanwhile != null) {
            // the close's failAll may have run before the add: nobody else would fail this call
            channel.release(slot);
            fail(id, "channel over " + channel.provider() + " is closed: " + closedMeanwhile, null);
            return deadline;
        }
        String failed = channel.send(slot, link.peer);
        if (failed != null) {
            fail(id, failed, null);
        }
        return deadline;
    }

    private long session(PeerLink link, long deadline, long timeoutMillis) {
        String closed = channel.closedCause();
        if (closed != null) {
            throw new ServiceException("channel over " + channel.provider() + " is closed: " + closed, ServiceException.REMOTE);
        }
        CompletableFuture<Long> session;
        synchronized (link) {
            session = link.current();
            if (session == null) {
                long helloId = pending.nextId();
                session = link.restart(helloId);
                handshakes.put(helloId, link);
                SendSlot slot = channel.acquire();
                slot.greeting = link;
                CallDescriptor.header(slot.message.buffer(), CallDescriptor.HELLO, 0, 0, helloId, 0, 0, 0, 0);
                byte[] me = channel.address();
                slot.message.ensure(me.length).put(me);
                String failed = channel.send(slot, link.peer);
                if (failed != null) {
                    handshakes.remove(helloId);
                    session.completeExceptionally(new ServiceException("cannot greet " + link.name + ": " + failed,
                            ServiceException.REMOTE));
                }
            }
        }
        try {
            long left = Math.max(0, deadline - System.nanoTime());
            return session.get(left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new ServiceException("no answer to the handshake from " + link.name + " within " + timeoutMillis
                    + " ms", ServiceException.REMOTE, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ServiceException se) {
                throw new ServiceException(se.getMessage(), ServiceException.REMOTE, se);
            }
            throw new ServiceException("handshake with " + link.name + " failed: " + cause, ServiceException.REMOTE, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServiceException("interrupted while greeting " + link.name, ServiceException.REMOTE, e);
        }
    }

    /** A reply or a handshake answer arrived (on the progress thread). */
    void onMessage(ByteBuffer msg) {
        byte kind = CallDescriptor.kind(msg);
        long id = CallDescriptor.callId(msg);
        switch (kind) {
            case CallDescriptor.CHALLENGE, CallDescriptor.WELCOME, CallDescriptor.REFUSED -> onHandshake(msg, kind, id);
            default -> onReply(msg, kind, id);
        }
    }

    private void onReply(ByteBuffer msg, byte kind, long id) {
        PendingCall call = pending.take(id);
        if (call == null) {
            return; // it timed out or failed before: nobody waits any more
        }
        msg.position(CallDescriptor.HEADER);
        try {
            if (kind == CallDescriptor.REPLY_VALUE) {
                call.complete(call.decoder.read(msg));
            } else if (kind == CallDescriptor.REPLY_THROWN) {
                Object thrown = call.decoder.read(msg);
                call.completeExceptionally(thrown instanceof Throwable t ? t
                        : new ServiceException("the service threw a non-Throwable " + thrown, ServiceException.REMOTE));
            } else {
                Object why = call.decoder.read(msg);
                call.completeExceptionally(new ServiceException(call.peerName + " could not call "
                        + call.method.getName() + ": " + why, ServiceException.REMOTE));
            }
        } catch (RefusedValueException e) {
            channel.counters.refusedValue();
            call.completeExceptionally(new ServiceException("the reply to " + call.method.getName()
                    + " was refused: " + e.getMessage(), ServiceException.REMOTE, e));
        } catch (IOException | RuntimeException e) {
            call.completeExceptionally(new ServiceException("the reply to " + call.method.getName()
                    + " could not be read: " + e, ServiceException.REMOTE, e));
        }
    }

    private void onHandshake(ByteBuffer msg, byte kind, long helloId) {
        PeerLink link = kind == CallDescriptor.CHALLENGE ? handshakes.get(helloId) : handshakes.remove(helloId);
        if (link == null) {
            channel.counters.droppedMessage();
            return;
        }
        CompletableFuture<Long> session = link.session();
        if (kind == CallDescriptor.WELCOME) {
            session.complete(CallDescriptor.session(msg));
        } else if (kind == CallDescriptor.REFUSED) {
            session.completeExceptionally(new ServiceException(link.name + " refused this importer: wrong shared secret"
                    + " (io.jofi.rsa.secret)", ServiceException.REMOTE));
        } else if (channel.settings.secret() == null) {
            handshakes.remove(helloId);
            session.completeExceptionally(new ServiceException(link.name + " requires the shared secret"
                    + " io.jofi.rsa.secret, and this importer has none", ServiceException.REMOTE));
        } else {
            byte[] nonce = new byte[SecretProof.NONCE];
            msg.get(CallDescriptor.HEADER, nonce);
            long provisional = CallDescriptor.session(msg);
            byte[] proof = SecretProof.mac(channel.settings.secret(), nonce, channel.address());
            channel.execute(() -> {
                SendSlot slot = channel.acquire();
                slot.greeting = link;
                CallDescriptor.header(slot.message.buffer(), CallDescriptor.PROOF, 0, 0, helloId, provisional, 0, 0, 0);
                slot.message.ensure(proof.length).put(proof);
                String failed = channel.send(slot, link.peer);
                if (failed != null) {
                    handshakes.remove(helloId);
                    session.completeExceptionally(new ServiceException("cannot answer " + link.name + "'s challenge: "
                            + failed, ServiceException.REMOTE));
                }
            });
        }
    }

    /** The fi_addr of the exporter a waiting call went to, or -1. */
    long peerOfCall(long callId) {
        PendingCall call = pending.peek(callId);
        return call == null ? -1 : call.peer;
    }

    /**
     * A message of this side could not be delivered (its send completed in error): the call it
     * carried fails, or the handshake it was part of; a refused connection (the exporter's port
     * is closed: its process is gone) also fails every other call waiting for that peer at once.
     */
    void sendFailed(SendSlot slot, int err, String reason) {
        if (slot.callId != 0) {
            fail(slot.callId, "could not send to " + slot.peer + " over " + channel.provider() + ": " + reason, null);
        }
        PeerLink link = slot.greeting;
        if (link != null) {
            long helloId = CallDescriptor.callId(slot.message.buffer());
            handshakes.remove(helloId);
            link.failHandshake(helloId, new ServiceException("cannot greet " + link.name + " over " + channel.provider() + ": "
                    + reason, ServiceException.REMOTE));
        }
        if (err == Errno.ECONNREFUSED) {
            peerLost(slot.peer, "the peer refused the connection: " + reason);
        }
    }

    /** Fails the call waiting under {@code id}, if it still waits. */
    void fail(long id, String why, Throwable cause) {
        PendingCall call = pending.take(id);
        if (call != null) {
            call.completeExceptionally(new ServiceException(why, ServiceException.REMOTE, cause));
        }
    }

    void expire(long now) {
        pending.expire(now, call -> new ServiceException("no reply from " + call.peerName + " to "
                + call.method.getName() + " within the timeout", ServiceException.REMOTE));
    }

    /** The peer is gone: its calls fail, its link forgets the session. */
    void peerLost(long peer, String why) {
        pending.failPeer(peer, call -> new ServiceException("lost " + call.peerName + " with " + call.method.getName()
                + " pending: " + why, ServiceException.REMOTE));
        for (PeerLink link : links.values()) {
            if (link.peer == peer) {
                link.reset();
            }
        }
    }

    void failAll(String why) {
        pending.failAll(call -> new ServiceException("call of " + call.method.getName() + " to " + call.peerName
                + " failed: " + why, ServiceException.REMOTE));
        for (PeerLink link : handshakes.values()) {
            CompletableFuture<Long> s = link.session();
            if (s != null) {
                s.completeExceptionally(new ServiceException(why, ServiceException.REMOTE));
            }
        }
        handshakes.clear();
    }

    boolean idle() {
        return pending.isEmpty();
    }

    void forEachWaitedPeer(LongPredicate each) {
        pending.forEachPeer(each);
    }
}
