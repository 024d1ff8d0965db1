package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
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
 * Names an application chooses (README "Endpoint names"): what {@code getInfo}'s node and
 * service mean for shm, an endpoint that takes its name at {@code enable} and is reached by it,
 * {@code EADDRINUSE} for a name a live endpoint holds, and a stale name taken over.
 */
@Timeout(60)
class ShmChosenNameTest {
    private static Path dir;
    private static int unique;

    @BeforeAll
    static void directory() throws IOException {
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmname-");
    }

    @AfterAll
    static void remove() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    private static String fresh() {
        return "test-" + ProcessHandle.current().pid() + "-n" + (++unique);
    }

    private static Info rdm() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        return hints;
    }

    /**
     * fi_shm://N is the endpoint named N (the service ignored); a service S with no node or a
     * node naming this host is svc-S; FI_SOURCE puts it in srcAddr, else destAddr; no service
     * and no fi_shm:// node: no address.
     */
    @Test
    void nodeAndServiceNameAnEndpoint() throws Exception {
        ShmProvider p = new ShmProvider().directory(dir);
        Info src = p.getInfo("fi_shm://pp", null, Fi.FI_SOURCE, rdm()).get(0);
        assertArrayEquals(ShmNames.address("pp"), src.srcAddr());
        assertNull(src.destAddr());
        Info dst = p.getInfo("fi_shm://pp", "9228", 0, rdm()).get(0);
        assertArrayEquals(ShmNames.address("pp"), dst.destAddr(), "the service is ignored with an fi_shm:// node");
        assertNull(dst.srcAddr());
        assertArrayEquals(ShmNames.address("svc-9228"), p.getInfo(null, "9228", Fi.FI_SOURCE, rdm()).get(0).srcAddr());
        for (String host : new String[] {null, "localhost", "127.0.0.1"}) {
            assertArrayEquals(ShmNames.address("svc-9228"), p.getInfo(host, "9228", 0, rdm()).get(0).destAddr(),
                    "client side of service 9228 on " + host);
        }
        Info none = p.getInfo(null, null, Fi.FI_SOURCE, rdm()).get(0);
        assertNull(none.srcAddr());
        assertNull(none.destAddr());
        assertArrayEquals(ShmNames.address("1-2-3"), p.getInfo("fi_shm://1-2-3", null, 0, rdm()).get(0).destAddr(),
                "a provider-chosen name can be addressed");
    }

    /** The AV's insertSvc reads node and service as getInfo does. */
    @Test
    void insertSvcTakesAServiceAsGetInfoDoes() throws FabricException {
        ShmAddressResolver r = new ShmAddressResolver();
        assertArrayEquals(ShmNames.address("svc-9228"), r.resolve(null, "9228"));
        assertArrayEquals(ShmNames.address("svc-9228"), r.resolve("localhost", "9228"));
        assertArrayEquals(ShmNames.address("pp"), r.resolve("fi_shm://pp", null));
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> r.resolve(null, "a/b")).errno());
    }

    /** Bad names are EINVAL saying why; a plain node is a host name, never an endpoint name. */
    @Test
    void badNamesAreRefused() {
        ShmProvider p = new ShmProvider().directory(dir);
        FabricException e = assertThrows(FabricException.class, () -> p.getInfo("fi_shm://a/b", null, 0, rdm()));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("fi_shm://a/b"), e.getMessage());
        e = assertThrows(FabricException.class, () -> p.getInfo("fi_shm://1-2-3", null, Fi.FI_SOURCE, rdm()));
        assertEquals(Errno.EINVAL, e.errno(), "the provider's own form cannot be chosen");
        assertTrue(e.getMessage().contains("1-2-3"), e.getMessage());
        e = assertThrows(FabricException.class, () -> p.getInfo(null, "../x", Fi.FI_SOURCE, rdm()));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("../x"), e.getMessage());
        e = assertThrows(FabricException.class, () -> p.getInfo("pp", null, 0, rdm()));
        assertEquals(Errno.ENODATA, e.errno(), "'pp' is a host that is not this one");
    }

    /**
     * An endpoint opened with srcAddr fi_shm://N takes the name N: getName says so, the link
     * exists while it is open, a peer that inserted fi_shm://N reaches it and gets its answers
     * with FI_SOURCE resolved to that fi_addr; closing removes the name.
     */
    @Test
    void endpointTakesItsNameAndIsReachedByIt() throws Exception {
        String name = fresh();
        Path link = dir.resolve(ShmAlias.fileOf(name));
        try (ShmTestBed server = new ShmTestBed(dir, Progress.AUTO, 0, ShmNames.SCHEME + name, null, Fi.FI_SOURCE, null);
             ShmTestBed client = new ShmTestBed(dir, Progress.MANUAL)) {
            assertEquals(ShmNames.SCHEME + name, server.name());
            assertTrue(Files.isSymbolicLink(link), "the name's link exists while the endpoint is open");
            Info toServer = client.provider.getInfo(ShmNames.SCHEME + name, null, 0, rdm()).get(0);
            long server0 = client.insert(toServer.destAddr());
            ByteBuffer rx = ByteBuffer.allocateDirect(64);
            server.post(() -> server.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "srx"), "server recv");
            client.post(() -> client.ep.send(ShmCrossProcessTest.pattern(32, 1), null, server0, "ctx"), "send by name");
            client.completion(client.txCq, "the send to the chosen name");
            server.completion(server.rxCq, "the message at the named endpoint");
            long toClient = server.insert(client.ep.getName());
            ByteBuffer back = ByteBuffer.allocateDirect(64);
            client.post(() -> client.ep.recv(back, null, Fi.FI_ADDR_UNSPEC, "crx"), "client recv");
            server.post(() -> server.ep.send(ShmCrossProcessTest.pattern(16, 2), null, toClient, "ans"), "answer");
            CqEntry[] one = {new CqEntry()};
            long[] from = {-7};
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            int rc;
            while ((rc = client.rxCq.readFrom(one, 1, from)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(1, rc, "the answer arrives");
            assertEquals(server0, from[0], "FI_SOURCE: the answer's sender is the fi_addr of fi_shm://" + name);
        }
        assertFalse(Files.exists(link, LinkOption.NOFOLLOW_LINKS), "closing the endpoint removes its name");
    }

    /** A name a live endpoint holds: EADDRINUSE at enable, nothing left behind; free again once it closes. */
    @Test
    void nameInUseIsRefusedAtEnable() throws Exception {
        String name = fresh();
        try (ShmTestBed holder = new ShmTestBed(dir, Progress.MANUAL, 0, ShmNames.SCHEME + name, null, Fi.FI_SOURCE, null)) {
            long regions;
            try (var s = Files.list(dir)) {
                regions = s.count();
            }
            Info same = holder.provider.getInfo(ShmNames.SCHEME + name, null, Fi.FI_SOURCE, rdm()).get(0);
            Endpoint second = holder.domain.endpoint(same, null);
            second.bind(holder.txCq, Fi.FI_TRANSMIT);
            second.bind(holder.rxCq, Fi.FI_RECV);
            second.bind(holder.av, 0);
            FabricException e = assertThrows(FabricException.class, second::enable);
            assertEquals(Errno.EADDRINUSE, e.errno());
            assertTrue(e.getMessage().contains(name) && e.getMessage().contains("in use"), e.getMessage());
            try (var s = Files.list(dir)) {
                assertEquals(regions, s.count(), "the refused endpoint left no region behind");
            }
            second.close();
            assertEquals(ShmNames.SCHEME + name, holder.name(), "the holder keeps its name");
        }
        try (ShmTestBed again = new ShmTestBed(dir, Progress.MANUAL, 0, ShmNames.SCHEME + name, null, Fi.FI_SOURCE, null)) {
            assertEquals(ShmNames.SCHEME + name, again.name(), "free once its holder closed");
        }
    }

    /** A name whose endpoint is gone (its region removed, e.g. a killed process) is taken over; a foreign file is not. */
    @Test
    void staleNameIsTakenOverForeignFileIsNot() throws Exception {
        String stale = fresh();
        Files.createSymbolicLink(dir.resolve(ShmAlias.fileOf(stale)), Path.of(ShmNames.regionFile("999999-1-1")));
        try (ShmTestBed bed = new ShmTestBed(dir, Progress.MANUAL, 0, ShmNames.SCHEME + stale, null, Fi.FI_SOURCE, null)) {
            assertEquals(ShmNames.SCHEME + stale, bed.name());
            String canonical = ShmAlias.resolve(dir, stale);
            assertTrue(canonical != null && canonical.startsWith(ProcessHandle.current().pid() + "-"),
                    "the link now names this process's region: " + canonical);
        }
        String taken = fresh();
        Files.writeString(dir.resolve(ShmAlias.fileOf(taken)), "not a link");
        try (ShmTestBed other = new ShmTestBed(dir, Progress.MANUAL)) {
            Info info = other.provider.getInfo(ShmNames.SCHEME + taken, null, Fi.FI_SOURCE, rdm()).get(0);
            Endpoint ep = other.domain.endpoint(info, null);
            ep.bind(other.txCq, Fi.FI_TRANSMIT);
            ep.bind(other.av, 0);
            assertEquals(Errno.EADDRINUSE, assertThrows(FabricException.class, ep::enable).errno());
            ep.close();
        }
        assertTrue(Files.isRegularFile(dir.resolve(ShmAlias.fileOf(taken))), "a file that is not our link is left alone");
    }
}
