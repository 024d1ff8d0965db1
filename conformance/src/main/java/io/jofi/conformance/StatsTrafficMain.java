package io.jofi.conformance;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileReader;
import java.io.BufferedReader;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;

/**
 * The child JVM of {@link StatsConformance}: on the provider named in its argument, moves a
 * known traffic mix between two RDM endpoints through the public API ({@link #SENDS} sends of
 * {@link #SIZE} bytes into posted receives, {@link #TAGGED} tagged ones, {@link #UNEXPECTED}
 * sent before their receives were posted), prints the labels of its objects' counters, then
 * {@code READY} and waits for its stdin to close (or to be killed).
 */
public final class StatsTrafficMain {
    static final int SENDS = 7;
    static final int TAGGED = 5;
    static final int UNEXPECTED = 3;
    static final int SIZE = 100;
    private static final long TIMEOUT_NANOS = 20_000_000_000L;
    private static final CqEntry[] NONE = new CqEntry[0];

    private StatsTrafficMain() {
    }

    public static void main(String[] args) throws Exception {
        Fabrics fabrics = Fabrics.standalone();
        for (String provider : args) {
            traffic(fabrics, provider);
        }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }

    private static void traffic(Fabrics fabrics, String provider) throws Exception {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_TAGGED);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        Info info = fabrics.getInfo(null, null, 0, hints).get(0);
        Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        CompletionQueue txCq = domain.openCq(new CqAttr().waitObj(WaitObj.NONE), null);
        CompletionQueue rxCq = domain.openCq(new CqAttr().waitObj(WaitObj.NONE), null);
        AddressVector txAv = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
        AddressVector rxAv = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
        Endpoint sender = endpoint(domain, info, txAv, txCq);
        Endpoint receiver = endpoint(domain, info, rxAv, rxCq);
        long[] to = {Fi.FI_ADDR_NOTAVAIL};
        if (txAv.insert(new byte[][] {receiver.getName()}, to, 0, null) != 1) {
            throw new IllegalStateException("cannot insert the receiver's address");
        }
        long[] from = {Fi.FI_ADDR_NOTAVAIL};
        rxAv.insert(new byte[][] {sender.getName()}, from, 0, null);

        ByteBuffer payload = ByteBuffer.allocateDirect(SIZE);
        ByteBuffer landing = ByteBuffer.allocateDirect(SIZE);
        // expected: receives posted first, then the sends
        for (int i = 0; i < SENDS; i++) {
            post(rxCq, () -> receiver.recv(landing.duplicate(), null, Fi.FI_ADDR_UNSPEC, null));
        }
        for (int i = 0; i < TAGGED; i++) {
            long tag = 100 + i;
            post(rxCq, () -> receiver.trecv(landing.duplicate(), null, Fi.FI_ADDR_UNSPEC, tag, 0, null));
        }
        for (int i = 0; i < SENDS; i++) {
            post(txCq, () -> sender.send(payload.duplicate(), null, to[0], null));
        }
        for (int i = 0; i < TAGGED; i++) {
            long tag = 100 + i;
            post(txCq, () -> sender.tsend(payload.duplicate(), null, to[0], tag, null));
        }
        await(txCq, SENDS + TAGGED);
        await(rxCq, SENDS + TAGGED);
        // unexpected: sent before any receive is there; posted once all have arrived
        for (int i = 0; i < UNEXPECTED; i++) {
            post(txCq, () -> sender.send(payload.duplicate(), null, to[0], null));
        }
        await(txCq, UNEXPECTED);
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (unexpectedQueued(provider) < UNEXPECTED) {
            rxCq.read(NONE, 0); // drives the receiver's progress (manual progress providers)
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the unexpected messages did not arrive");
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < UNEXPECTED; i++) {
            post(rxCq, () -> receiver.recv(landing.duplicate(), null, Fi.FI_ADDR_UNSPEC, null));
        }
        await(rxCq, UNEXPECTED);
        System.out.println("LABEL " + provider + " sender " + ((UtilEndpoint) sender).counters().owner());
        System.out.println("LABEL " + provider + " receiver " + ((UtilEndpoint) receiver).counters().owner());
        System.out.println("LABEL " + provider + " txcq " + ((UtilCompletionQueue) txCq).counters().owner());
        System.out.println("LABEL " + provider + " rxcq " + ((UtilCompletionQueue) rxCq).counters().owner());
        // the same counters through JMX, as a JMX client sees the endpoint
        String owner = ((UtilEndpoint) sender).counters().owner();
        ObjectName name = new ObjectName("io.jofi:type=Endpoint,provider=" + provider + ",name="
                + owner.substring(owner.indexOf('/') + 1));
        System.out.println("JMX " + provider + " sends " + ManagementFactory.getPlatformMBeanServer()
                .getAttribute(name, "sends posted"));
    }

    private static Endpoint endpoint(Domain domain, Info info, AddressVector av, CompletionQueue cq) throws Exception {
        Endpoint ep = domain.endpoint(info, null);
        ep.bind(av, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
        return ep;
    }

    /** The sum of this provider's receive queues' "unexpected messages queued", read from this JVM's own file. */
    private static long unexpectedQueued(String provider) throws Exception {
        long sum = 0;
        for (StatsFileReader.CounterValue c : StatsFileReader.read(StatsFile.process().path()).counters()) {
            if (c.label().startsWith(provider + "/") && c.label().endsWith(": unexpected messages queued")) {
                sum += c.value();
            }
        }
        return sum;
    }

    /** Posts, retrying on -EAGAIN while driving progress (none is expected at these depths). */
    private static void post(CompletionQueue cq, IntSupplier post) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int rc;
        while ((rc = post.getAsInt()) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            cq.read(NONE, 0);
        }
        if (rc != 0) {
            throw new IllegalStateException("post failed: " + Errno.strerror(-rc));
        }
    }

    /** Reads {@code n} successful completions. */
    private static void await(CompletionQueue cq, int n) {
        CqEntry[] entry = {new CqEntry()};
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int done = 0;
        while (done < n) {
            int rc = cq.read(entry, 1);
            if (rc == 1) {
                done++;
            } else if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                throw new IllegalStateException("error completion: " + Errno.strerror(err.err()));
            } else if (rc != -Errno.EAGAIN || System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion: " + Errno.strerror(-rc));
            }
        }
    }
}
