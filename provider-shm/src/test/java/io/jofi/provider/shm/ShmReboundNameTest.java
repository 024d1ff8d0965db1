package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.Progress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A name of the provider's own form ({@code <pid>-<domain>-<endpoint>}) taken again by a later
 * endpoint of the process that made it (fabtests' {@code fi_rdm_multi_client -R}): refused for
 * another process's name, a name never made, and a name whose endpoint is still open; taken once
 * that endpoint closed; and a peer that holds the old name in its AV reaches each new endpoint —
 * after the new one spoke first, or silent once the old one's closing was found — while what the
 * old one never took fails at the sender.
 */
@Timeout(60)
class ShmReboundNameTest {
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmrebound-");
    }

    @AfterAll
    static void remove() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    private static long files() throws IOException {
        try (var s = Files.list(dir)) {
            return s.count();
        }
    }

    /** An endpoint of {@code bed}'s domain with {@code srcAddr} given after getInfo (as fabtests' run_client does). */
    private static Endpoint endpointNamed(ShmTestBed bed, String name) throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(io.jofi.EpType.RDM);
        Info info = bed.provider.getInfo(null, null, 0, hints).get(0);
        info.srcAddr(ShmNames.address(name));
        Endpoint ep = bed.domain.endpoint(info, null);
        ep.bind(bed.txCq, Fi.FI_TRANSMIT);
        ep.bind(bed.rxCq, Fi.FI_RECV);
        ep.bind(bed.av, 0);
        return ep;
    }

    /**
     * Another process's own-form name and one this process never made: EINVAL at getInfo and at
     * enable, saying why, nothing created; a name whose endpoint is open: EADDRINUSE, nothing
     * created, the holder keeps it.
     */
    @Test
    void ownFormNamesOfOthersNeverMadeOrStillHeldAreRefused() throws Exception {
        long self = ProcessHandle.current().pid();
        String foreign = (self == 1 ? 2 : 1) + "-1-1";
        String neverMade = self + "-999999-999999";
        try (ShmTestBed holder = new ShmTestBed(dir, Progress.MANUAL)) {
            String held = holder.name().substring(ShmNames.SCHEME.length());
            long before = files();
            FabricException e = assertThrows(FabricException.class,
                    () -> holder.provider.getInfo(ShmNames.SCHEME + foreign, null, Fi.FI_SOURCE, new Info()));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("process " + foreign.substring(0, 1)), e.getMessage());
            e = assertThrows(FabricException.class,
                    () -> holder.provider.getInfo(ShmNames.SCHEME + neverMade, null, Fi.FI_SOURCE, new Info()));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("made no endpoint"), e.getMessage());
            for (String name : new String[] {foreign, neverMade}) {
                Endpoint ep = endpointNamed(holder, name);
                e = assertThrows(FabricException.class, ep::enable);
                assertEquals(Errno.EINVAL, e.errno(), name);
                assertTrue(e.getMessage().contains(name), e.getMessage());
                ep.close();
            }
            Endpoint second = endpointNamed(holder, held);
            e = assertThrows(FabricException.class, second::enable);
            assertEquals(Errno.EADDRINUSE, e.errno());
            assertTrue(e.getMessage().contains(held) && e.getMessage().contains("in use"), e.getMessage());
            second.close();
            assertEquals(before, files(), "the refused endpoints left nothing behind");
            assertEquals(ShmNames.SCHEME + held, holder.name(), "the holder keeps its name");
        }
    }

    /**
     * fabtests' -R choreography on endpoints: the server holds the first client's provider-made
     * name; each later client takes that name once the one before closed, speaks first, and the
     * server's answer to the old fi_addr reaches it; with FI_SOURCE its next message comes from
     * that fi_addr. Closing a client removes the name's link.
     */
    @Test
    void aReboundNameReachesEachNewEndpointAfterItSpokeFirst() throws Exception {
        try (ShmTestBed server = new ShmTestBed(dir, Progress.MANUAL)) {
            FirstClient gone = firstClientGone(server);
            String first = gone.name();
            long oldAddr = gone.addr();
            for (int client = 1; client <= 3; client++) {
                try (ShmTestBed c = takingTheName(first)) {
                    assertEquals(ShmNames.SCHEME + first, c.name(), "client " + client + " takes the first one's name");
                    assertTrue(Files.isSymbolicLink(dir.resolve(ShmAlias.fileOf(first))));
                    long toServer = c.insert(server.ep.getName());
                    pingpong(server, c, oldAddr, toServer, client);
                    // the server now knows the new endpoint by the old name: FI_SOURCE says so
                    ByteBuffer rx = ByteBuffer.allocateDirect(16);
                    server.post(() -> server.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "src"), "server recv");
                    c.post(() -> c.ep.send(ShmCrossProcessTest.pattern(8, 9), null, toServer, "again"), "send again");
                    assertEquals(oldAddr, sourceOf(server), "FI_SOURCE: the old fi_addr");
                    c.completion(c.txCq, "send again");
                }
                assertFalse(Files.exists(dir.resolve(ShmAlias.fileOf(first)), LinkOption.NOFOLLOW_LINKS),
                        "closing client " + client + " removes the name's link");
            }
        }
    }

    /**
     * The old AV entry reaches a new endpoint that never spoke: once the server found the old
     * one's closing (its liveness sweep, 10 ms here), its next send to the old fi_addr reaches the
     * endpoint that took the name, three incarnations in a row.
     */
    @Test
    void aReboundNameReachesASilentNewEndpointOnceTheOldOneIsFoundClosed() throws Exception {
        ShmProvider quick = new ShmProvider().directory(dir).failureTimes(10, 60_000);
        try (ShmTestBed server = new ShmTestBed(quick, Progress.MANUAL)) {
            FirstClient gone = firstClientGone(server);
            String first = gone.name();
            long oldAddr = gone.addr();
            for (int client = 1; client <= 3; client++) {
                drive(server, 300); // the sweep finds the closed endpoint
                try (ShmTestBed c = takingTheName(first)) {
                    ByteBuffer rx = ByteBuffer.allocateDirect(16);
                    c.post(() -> c.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "crx"), "client recv");
                    int n = client;
                    server.post(() -> server.ep.send(ShmCrossProcessTest.pattern(8, n), null, oldAddr, "to old"),
                            "send to the old fi_addr");
                    server.completion(server.txCq, "the send to the old fi_addr");
                    assertEquals("crx", c.completion(c.rxCq, "client " + n + " receives by the old name").context());
                    assertEquals(ShmCrossProcessTest.pattern(8, n), rx.slice(0, 8), "the payload");
                }
            }
        }
    }

    /**
     * Sent to the old endpoint after it closed, before the server found out: with
     * FI_TRANSMIT_COMPLETE the message it never took fails with ECONNRESET (it does not vanish);
     * the next send to the same fi_addr reaches the endpoint that took the name.
     */
    @Test
    void whatTheOldEndpointNeverTookFailsAndTheNextSendReachesTheNewOne() throws Exception {
        try (ShmTestBed server = new ShmTestBed(dir, Progress.MANUAL)) {
            FirstClient gone = firstClientGone(server);
            String first = gone.name();
            long oldAddr = gone.addr();
            try (ShmTestBed c = takingTheName(first)) {
                Msg m = new Msg().buffer(ShmCrossProcessTest.pattern(8, 1), null).addr(oldAddr).context("to the closed");
                server.post(() -> server.ep.sendMsg(m, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "sendMsg");
                io.jofi.CqErrEntry e = server.error(server.txCq, "the message the closed endpoint never took");
                assertEquals(Errno.ECONNRESET, e.err());
                assertEquals("to the closed", e.context());
                ByteBuffer rx = ByteBuffer.allocateDirect(16);
                c.post(() -> c.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "crx"), "client recv");
                server.post(() -> server.ep.send(ShmCrossProcessTest.pattern(8, 2), null, oldAddr, "next"), "next send");
                server.completion(server.txCq, "the next send");
                assertEquals("crx", c.completion(c.rxCq, "the new endpoint receives").context());
            }
        }
    }

    /** The first client's provider-made name (without the scheme) and its fi_addr at the server. */
    private record FirstClient(String name, long addr) {
    }

    /** A first client that gets the provider's name, ping-pongs once with {@code server} and closes. */
    private static FirstClient firstClientGone(ShmTestBed server) throws FabricException {
        try (ShmTestBed c0 = new ShmTestBed(dir, Progress.MANUAL)) {
            long addr = server.insert(c0.ep.getName());
            pingpong(server, c0, addr, c0.insert(server.ep.getName()), 0);
            return new FirstClient(c0.name().substring(ShmNames.SCHEME.length()), addr);
        }
    }

    /** A later client that binds the first one's name, as fabtests' -R client does (FI_SOURCE). */
    private static ShmTestBed takingTheName(String first) throws FabricException {
        return new ShmTestBed(dir, Progress.MANUAL, 0, ShmNames.SCHEME + first, null, Fi.FI_SOURCE, null);
    }

    /** Client speaks first (its address, as fabtests' exchange), the server answers to {@code toClient}. */
    private static void pingpong(ShmTestBed server, ShmTestBed client, long toClient, long toServer, int round) {
        ByteBuffer srx = ByteBuffer.allocateDirect(16);
        ByteBuffer crx = ByteBuffer.allocateDirect(16);
        server.post(() -> server.ep.recv(srx, null, Fi.FI_ADDR_UNSPEC, "srx"), "server recv");
        client.post(() -> client.ep.recv(crx, null, Fi.FI_ADDR_UNSPEC, "crx"), "client recv");
        client.post(() -> client.ep.send(ShmCrossProcessTest.pattern(8, round), null, toServer, "ping"), "ping");
        server.completion(server.rxCq, "ping of client " + round);
        server.post(() -> server.ep.send(ShmCrossProcessTest.pattern(8, round + 100), null, toClient, "pong"), "pong");
        server.completion(server.txCq, "pong sent");
        assertEquals("crx", client.completion(client.rxCq, "pong at client " + round).context());
        assertEquals(ShmCrossProcessTest.pattern(8, round + 100), crx.slice(0, 8), "client " + round + " got the pong");
        client.completion(client.txCq, "ping sent");
    }

    private static long sourceOf(ShmTestBed bed) {
        CqEntry[] one = {new CqEntry()};
        long[] from = {-7};
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        int rc;
        while ((rc = bed.rxCq.readFrom(one, 1, from)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(1, rc, "a message arrives");
        return from[0];
    }

    private static void drive(ShmTestBed bed, long millis) {
        CqEntry[] none = new CqEntry[0];
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            bed.txCq.read(none, 0);
            Thread.onSpinWait();
        }
    }
}
