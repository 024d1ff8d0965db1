package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.nio.ByteBuffer;

/**
 * An RDM endpoint in a fabric and domain of its own, with {@code AUTO} progress, that sends to
 * an endpoint of the suite's domain. Its sends travel without anything in the receiver's
 * domain being driven — the situation of a peer in another process — so that a test can
 * check what wakes a receiver that sleeps on a wait object while nobody drives its
 * progress ({@code MANUAL}).
 */
public final class AutoSender implements AutoCloseable {
    private final ConformanceFixture own;
    private final Endpoint ep;
    private final CompletionQueue txCq;
    private final long to;
    private final ByteBuffer payload = ByteBuffer.allocateDirect(8);

    /**
     * Opens the sender with {@code fabrics}' provider {@code provider} and inserts
     * {@code receiverName} into its AV.
     */
    public AutoSender(Fabrics fabrics, String provider, long timeoutMs, byte[] receiverName) throws FabricException {
        this.own = new ConformanceFixture(fabrics, provider, EpType.RDM, Progress.AUTO, timeoutMs);
        try {
            Info info = own.require(Fi.FI_MSG, 0, EpType.RDM);
            this.txCq = own.openCq(new CqAttr(), "sender-txcq");
            this.ep = own.openEndpoint(info, "sender-ep");
            ep.bind(txCq, Fi.FI_TRANSMIT);
            // a receive CQ too: some providers enable an RDM endpoint only with both (verbs: ENOCQ)
            ep.bind(own.openCq(new CqAttr(), "sender-rxcq"), Fi.FI_RECV);
            AddressVector av = own.openAv(new AvAttr().type(info.domainAttr().avType()), "sender-av");
            ep.bind(av, 0);
            ep.enable();
            long[] addr = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {receiverName}, addr, 0, null), "inserting the receiver's name");
            this.to = addr[0];
        } catch (FabricException | RuntimeException | Error e) {
            own.close();
            throw e;
        }
    }

    /** Sends 8 bytes to the receiver, retrying {@code -EAGAIN} (bounded), without waiting for the completion. */
    public void send() {
        own.await().until(() -> {
            int rc = ep.send(payload, null, to, "sender-send");
            if (rc != 0 && rc != -Errno.EAGAIN) {
                fail("the sender's send returned " + rc + " (" + Errno.strerror(-rc) + ")");
            }
            return rc == 0;
        }, "the sender's send to be accepted");
    }

    /** Waits for the transmit completion of a {@link #send()}. */
    public void sent() {
        own.await().completion(txCq, new CqEntry(), "the sender's transmit completion");
    }

    @Override
    public void close() {
        own.close();
    }
}
