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
import io.jofi.MemoryRegion;
import io.jofi.WaitObj;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileReader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import javax.management.ObjectName;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

/**
 * The child JVM of {@link StatsConformance}: on the provider named in its first argument,
 * moves a known traffic mix between two RDM endpoints through the public API ({@link #SENDS}
 * sends of {@link #SIZE} bytes into posted receives, {@link #TAGGED} tagged ones,
 * {@link #UNEXPECTED} sent before their receives were posted, {@link #READS} RMA reads where
 * the provider offers RMA on RDM endpoints ({@link #offersRdmRma}), then
 * sends one message to a peer JVM of its own ({@link StatsVictimMain}), kills it, waits until
 * the sender has seen it go and sends it one more (which fails); prints the labels of its
 * objects' counters and what JMX says, dumps its flight recording (when it runs one) to the
 * path of its second argument, then {@code READY} and waits for its stdin to close (or to be
 * killed).
 */
public final class StatsTrafficMain {
    static final int SENDS = 7;
    static final int TAGGED = 5;
    static final int UNEXPECTED = 3;
    static final int READS = 4;
    static final int SIZE = 100;
    private static final long TIMEOUT_NANOS = 20_000_000_000L;
    private static final CqEntry[] NONE = new CqEntry[0];

    private StatsTrafficMain() {
    }

    public static void main(String[] args) throws Exception {
        Fabrics fabrics = Fabrics.standalone();
        traffic(fabrics, args[0]);
        if (args.length > 1) {
            for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
                r.dump(Path.of(args[1]));
            }
        }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }

    private static void traffic(Fabrics fabrics, String provider) throws Exception {
        boolean rma = offersRdmRma(fabrics, provider);
        Info info = fabrics.getInfo(null, null, 0, hints(provider, Fi.FI_MSG | Fi.FI_TAGGED | (rma ? Fi.FI_RMA : 0))).get(0);
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
        if (rma) {
            rmaReads(domain, info, sender, txCq, to[0]);
        }
        killedPeer(provider, sender, txAv, txCq);
        System.out.println("LABEL " + provider + " sender " + ((UtilEndpoint) sender).counters().owner());
        System.out.println("LABEL " + provider + " receiver " + ((UtilEndpoint) receiver).counters().owner());
        System.out.println("LABEL " + provider + " txcq " + ((UtilCompletionQueue) txCq).counters().owner());
        System.out.println("LABEL " + provider + " rxcq " + ((UtilCompletionQueue) rxCq).counters().owner());
        // the same counters through JMX, as a JMX client sees the endpoint
        String owner = ((UtilEndpoint) sender).counters().owner();
        ObjectName name = new ObjectName("io.jofi:type=Endpoint,provider=" + provider + ",name="
                + owner.substring(owner.indexOf('/') + 1));
        for (String attribute : List.of("sends posted", "RMA reads posted", "peers declared failed")) {
            System.out.println("JMX " + provider + " " + attribute.replace(' ', '_') + " "
                    + ManagementFactory.getPlatformMBeanServer().getAttribute(name, attribute));
        }
    }

    /**
     * Whether {@code provider} offers {@code FI_RMA} on RDM endpoints here, as {@code getInfo}
     * answers (verbs on an iWARP device does not): the mix does its {@link #READS} reads only
     * then, and {@link StatsConformance} asks the same question to expect them or none.
     */
    static boolean offersRdmRma(Fabrics fabrics, String provider) {
        try {
            return !fabrics.getInfo(null, null, 0, hints(provider, Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA)).isEmpty();
        } catch (io.jofi.FabricException e) {
            if (e.errno() == Errno.ENODATA) {
                return false; // no info with the cap: the provider's answer, not a failure
            }
            throw new IllegalStateException("getInfo failed: " + e.getMessage(), e);
        }
    }

    /**
     * RDM hints for {@code provider} with {@code caps}. The mr_mode bits say what this program
     * handles, as the kit's fixture does: it reads at {@code MemoryRegion.address() + offset}
     * with {@code key()} from memory it allocated (FI_MR_VIRT_ADDR, FI_MR_PROV_KEY,
     * FI_MR_ALLOCATED), so a provider that needs them (verbs) matches; FI_MR_LOCAL it handles
     * where the Info asks for it ({@link #rmaReads}).
     */
    static Info hints(String provider, long caps) {
        Info hints = new Info().caps(caps);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        return hints;
    }

    /** {@link #READS} RMA reads of {@link #SIZE} bytes by the sender from a region of the (shared) domain. */
    private static void rmaReads(Domain domain, Info info, Endpoint sender, CompletionQueue txCq, long target)
            throws Exception {
        ByteBuffer region = ByteBuffer.allocateDirect(4 * SIZE);
        MemoryRegion mr = domain.register(region, Fi.FI_REMOTE_READ, 0, 17, 0, null);
        ByteBuffer dst = ByteBuffer.allocateDirect(SIZE);
        MemoryRegion dstDesc = (info.domainAttr().mrMode() & Fi.FI_MR_LOCAL) == 0 ? null
                : domain.register(dst, Fi.FI_READ, 0, 18, 0, null);
        for (int i = 0; i < READS; i++) {
            long addr = mr.address() + (long) i * SIZE;
            post(txCq, () -> sender.read(dst.duplicate(), dstDesc, target, addr, mr.key(), null));
            await(txCq, 1);
        }
    }

    /**
     * The killed peer: one message to a peer JVM, which is then killed; once the sender's
     * counters saw it go ("connections lost" or "peers lost"), one more message to it, which
     * ends in an error completion (the connect is refused, or the peer is failed).
     */
    private static void killedPeer(String provider, Endpoint sender, AddressVector txAv, CompletionQueue txCq)
            throws Exception {
        Process victim = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djofi.stats=false",
                "-cp", System.getProperty("java.class.path"), StatsVictimMain.class.getName(), provider)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(victim.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null || !line.startsWith("NAME ")) {
                throw new IllegalStateException("the victim said " + line);
            }
            long[] v = {Fi.FI_ADDR_NOTAVAIL};
            if (txAv.insert(new byte[][] {HexFormat.of().parseHex(line.substring(5))}, v, 0, null) != 1) {
                throw new IllegalStateException("cannot insert the victim's address");
            }
            ByteBuffer payload = ByteBuffer.allocateDirect(SIZE);
            post(txCq, () -> sender.send(payload.duplicate(), null, v[0], null));
            await(txCq, 1);
            victim.destroyForcibly();
            victim.waitFor(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (counted((UtilEndpoint) sender, ": connections lost", ": peers lost") < 1) {
                txCq.read(NONE, 0);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the sender did not see the victim die");
                }
                Thread.sleep(1);
            }
            post(txCq, () -> sender.send(payload.duplicate(), null, v[0], null));
            int err = awaitError(txCq);
            System.out.println("KILLED " + provider + " " + Errno.strerror(err));
        } finally {
            victim.destroyForcibly();
        }
    }

    /** The sum of the counters of {@code ep} whose labels end with one of {@code suffixes}. */
    private static long counted(UtilEndpoint ep, String... suffixes) {
        long sum = 0;
        for (io.jofi.spi.util.stats.StatsCounter c : ep.counters().counters()) {
            for (String s : suffixes) {
                if (c.label().endsWith(s)) {
                    sum += c.get();
                }
            }
        }
        return sum;
    }

    /** Reads one error completion; its errno. */
    private static int awaitError(CompletionQueue cq) {
        CqEntry[] entry = {new CqEntry()};
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (System.nanoTime() < deadline) {
            int rc = cq.read(entry, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                return err.err();
            }
            if (rc != -Errno.EAGAIN) {
                throw new IllegalStateException("expected an error completion, got " + rc);
            }
        }
        throw new IllegalStateException("no error completion");
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
