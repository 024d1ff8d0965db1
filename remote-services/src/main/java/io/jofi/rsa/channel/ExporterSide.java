package io.jofi.rsa.channel;

import io.jofi.FabricException;
import io.jofi.rsa.wire.CallDescriptor;
import io.jofi.rsa.wire.RefusedValueException;
import io.jofi.rsa.wire.ValueCodec;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.osgi.util.promise.Promise;

/**
 * The exporting half of a channel: greets importers (proving the shared secret when one is
 * set), keeps their sessions, decodes calls and runs them on the channel's executor, and sends
 * each reply — the result, the service's exception, or why the call could not be made.
 */
final class ExporterSide {
    private static final System.Logger LOG = System.getLogger(ExporterSide.class.getName());
    /** Challenges waiting for a proof; beyond this many the oldest are dropped (a flood costs bounded memory). */
    private static final int MAX_CHALLENGES = 1024;

    private record Session(long token, long peer) {
    }

    private record Challenge(long peer, byte[] address, byte[] nonce) {
    }

    private final FabricChannel channel;
    private final ExportedServices services;
    private final ConcurrentHashMap<Long, Session> sessions = new ConcurrentHashMap<>();
    /** The session of the last call: most calls come over it, and its look-up boxes no token. */
    private volatile Session lastSession;
    private final ConcurrentHashMap<Long, Challenge> challenges = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> peers = new ConcurrentHashMap<>();

    ExporterSide(FabricChannel channel, ExportedServices services) {
        this.channel = channel;
        this.services = services;
    }

    void onHello(ByteBuffer msg) {
        int len = CallDescriptor.bodyLength(msg);
        if (len <= 0 || len > 4096) {
            channel.counters.droppedMessage();
            return;
        }
        byte[] address = new byte[len];
        msg.get(CallDescriptor.HEADER, address);
        long helloId = CallDescriptor.callId(msg);
        long peer;
        try {
            peer = peerOf(address);
        } catch (FabricException e) {
            channel.counters.droppedMessage();
            LOG.log(System.Logger.Level.WARNING, "an importer's address could not be inserted: " + e.getMessage());
            return;
        }
        long token = SecretProof.token();
        byte[] secret = channel.settings.secret();
        if (secret == null) {
            sessions.put(token, new Session(token, peer));
            answer(peer, CallDescriptor.WELCOME, helloId, token, null);
        } else {
            if (challenges.size() >= MAX_CHALLENGES) {
                challenges.keySet().stream().findFirst().ifPresent(challenges::remove);
            }
            byte[] nonce = SecretProof.nonce();
            challenges.put(token, new Challenge(peer, address, nonce));
            answer(peer, CallDescriptor.CHALLENGE, helloId, token, nonce);
        }
    }

    private long peerOf(byte[] address) throws FabricException {
        String key = Base64.getEncoder().encodeToString(address);
        Long known = peers.get(key);
        if (known != null) {
            return known;
        }
        long peer = channel.insert(address);
        peers.put(key, peer);
        return peer;
    }

    void onProof(ByteBuffer msg) {
        long provisional = CallDescriptor.session(msg);
        Challenge challenge = challenges.remove(provisional);
        if (challenge == null) {
            channel.counters.droppedMessage();
            return;
        }
        byte[] proof = new byte[Math.min(CallDescriptor.bodyLength(msg), 256)];
        msg.get(CallDescriptor.HEADER, proof);
        long helloId = CallDescriptor.callId(msg);
        if (SecretProof.verify(channel.settings.secret(), challenge.nonce(), challenge.address(), proof)) {
            long token = SecretProof.token();
            sessions.put(token, new Session(token, challenge.peer()));
            answer(challenge.peer(), CallDescriptor.WELCOME, helloId, token, null);
        } else {
            channel.counters.refusedImporter();
            LOG.log(System.Logger.Level.WARNING, "remote services over " + channel.provider()
                    + ": an importer failed the shared-secret proof and was refused");
            answer(challenge.peer(), CallDescriptor.REFUSED, helloId, 0, null);
        }
    }

    private void answer(long peer, byte kind, long helloId, long token, byte[] body) {
        channel.execute(() -> {
            SendSlot slot = channel.acquire();
            CallDescriptor.header(slot.message.buffer(), kind, 0, 0, helloId, token, 0, 0, 0);
            if (body != null) {
                slot.message.ensure(body.length).put(body);
            }
            String failed = channel.send(slot, peer);
            if (failed != null) {
                LOG.log(System.Logger.Level.WARNING, "cannot answer an importer's handshake: " + failed);
            }
        });
    }

    /** The fi_addr of a session's importer, or -1 when the token is unknown. */
    long peerOfSession(long token) {
        Session s = sessions.get(token);
        return s == null ? -1 : s.peer();
    }

    /** A call arrived (progress thread): decode its arguments here, run it on the executor. */
    void onCall(ByteBuffer msg) {
        long token = CallDescriptor.session(msg);
        Session session = lastSession;
        if (session == null || session.token() != token) {
            session = sessions.get(token);
            if (session != null) {
                lastSession = session;
            }
        }
        if (session == null) {
            channel.counters.droppedMessage(); // no session: an importer that did not (or could not) greet us
            return;
        }
        long callId = CallDescriptor.callId(msg);
        ExportedServices.Exported exported = services.get(CallDescriptor.service(msg));
        if (exported == null) {
            reply(session.peer(), callId, CallDescriptor.REPLY_FAILURE, "no service " + CallDescriptor.service(msg)
                    + " is exported here (any more)");
            return;
        }
        int index = CallDescriptor.method(msg);
        if (index < 0 || index >= exported.methods().size()
                || exported.methods().signature(index) != CallDescriptor.signature(msg)) {
            reply(session.peer(), callId, CallDescriptor.REPLY_FAILURE, "method " + index + " of " + exported.name()
                    + " differs between importer and exporter (different interface versions)");
            return;
        }
        Method method = exported.methods().method(index);
        Object[] args = new Object[method.getParameterCount()];
        msg.position(CallDescriptor.HEADER);
        try {
            for (int i = 0; i < args.length; i++) {
                args[i] = exported.decoder().read(msg);
            }
        } catch (RefusedValueException e) {
            channel.counters.refusedValue();
            reply(session.peer(), callId, CallDescriptor.REPLY_FAILURE, "refused argument of " + method.getName()
                    + ": " + e.getMessage());
            return;
        } catch (IOException | RuntimeException e) {
            reply(session.peer(), callId, CallDescriptor.REPLY_FAILURE, "unreadable argument of " + method.getName()
                    + ": " + e);
            return;
        }
        long peer = session.peer();
        if (!channel.dispatch(exported.service(), method, args, peer, callId)) {
            LOG.log(System.Logger.Level.DEBUG, "a call arrived while the channel closes");
        }
    }

    void invoke(Object service, Method method, Object[] args, long peer, long callId) {
        Object result;
        try {
            result = method.invoke(service, args);
        } catch (InvocationTargetException e) {
            reply(peer, callId, CallDescriptor.REPLY_THROWN, e.getCause());
            return;
        } catch (IllegalAccessException | IllegalArgumentException e) {
            reply(peer, callId, CallDescriptor.REPLY_FAILURE, "cannot call " + method.getName() + ": " + e);
            return;
        }
        if (result instanceof Promise<?> promise) {
            promise.onResolve(() -> replyResolved(promise, peer, callId));
        } else if (result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, failure) -> {
                if (failure == null) {
                    reply(peer, callId, CallDescriptor.REPLY_VALUE, value);
                } else {
                    Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                    reply(peer, callId, CallDescriptor.REPLY_THROWN, t);
                }
            });
        } else if (result instanceof Future<?> future) {
            try {
                reply(peer, callId, CallDescriptor.REPLY_VALUE, future.get());
            } catch (ExecutionException e) {
                reply(peer, callId, CallDescriptor.REPLY_THROWN, e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply(peer, callId, CallDescriptor.REPLY_FAILURE, "interrupted while waiting for " + method.getName());
            }
        } else {
            reply(peer, callId, CallDescriptor.REPLY_VALUE, result);
        }
    }

    private void replyResolved(Promise<?> promise, long peer, long callId) {
        try {
            Throwable failure = promise.getFailure();
            if (failure == null) {
                reply(peer, callId, CallDescriptor.REPLY_VALUE, promise.getValue());
            } else {
                reply(peer, callId, CallDescriptor.REPLY_THROWN, failure);
            }
        } catch (InvocationTargetException e) {
            reply(peer, callId, CallDescriptor.REPLY_THROWN, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply(peer, callId, CallDescriptor.REPLY_FAILURE, "interrupted while waiting for a promise");
        }
    }

    /** Sends a reply; a result that cannot be encoded becomes a REPLY_FAILURE that says why. */
    private void reply(long peer, long callId, byte kind, Object value) {
        if (channel.onProgressThread()) {
            channel.execute(() -> reply(peer, callId, kind, value));
            return;
        }
        SendSlot slot = channel.acquire();
        CallDescriptor.header(slot.message.buffer(), kind, 0, 0, callId, 0, 0, 0, 0);
        try {
            ValueCodec.write(slot.message, value);
        } catch (IOException | RuntimeException e) {
            slot.message.clear();
            CallDescriptor.header(slot.message.buffer(), CallDescriptor.REPLY_FAILURE, 0, 0, callId, 0, 0, 0, 0);
            String why = (kind == CallDescriptor.REPLY_THROWN ? "the service threw " + value + ", which" : "the result")
                    + " cannot be sent: " + e;
            try {
                ValueCodec.write(slot.message, why);
            } catch (IOException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
        String failed = channel.send(slot, peer);
        if (failed != null) {
            LOG.log(System.Logger.Level.WARNING, "a reply could not be sent: " + failed);
        }
    }
}
