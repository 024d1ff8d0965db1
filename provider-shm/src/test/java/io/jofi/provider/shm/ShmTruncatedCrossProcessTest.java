package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.spi.util.ProgressEngine;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Truncated files across processes (docs/SHM-LAYOUT.md "Bad input, faults, security"): a child JVM floods our endpoint while a third process
 * ({@code truncate -s 0}) truncates our region under both mappings. Before, the fault killed
 * the progress threads of both JVMs (or threw out of the child's calls, or was a fatal SIGBUS
 * in an interpreted CAS). Now: the child's sends fail with {@code EIO} (it fails us as a
 * peer), nothing throws there, its progress lives and it goes on with another peer; our
 * progress lives too.
 */
@Timeout(120)
class ShmTruncatedCrossProcessTest {

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void regionTruncatedUnderASendingChild(Progress childMode) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmtruncx-");
        ChildPeer child = null;
        try (ShmTestBed us = new ShmTestBed(dir, Progress.AUTO);
             ShmTestBed friend = new ShmTestBed(dir, Progress.AUTO)) {
            child = new ChildPeer(dir, childMode.name());
            child.expect("peer " + us.name(), "OK");
            child.send("flood 64");
            // let the flood run (the child's send path compiled, our ring busy), then truncate
            Thread.sleep(300);
            String name = us.name().substring(ShmNames.SCHEME.length());
            ShmTruncatedPeerTest.truncateByAnotherProcess(dir.resolve(ShmNames.regionFile(name)), 0);
            assertEquals("FAILED " + Errno.EIO, child.next(), "the child's sends to the truncated region");
            child.expect("engine", "RUNNING");
            ProgressEngine engine = ((ShmDomain) us.domain).engine();
            assertTrue(engine.isRunning() && engine.thread().isAlive(), () -> "our progress lives: " + trace(engine.failure()));
            // the child goes on with a well-behaved peer
            child.expect("peer " + friend.name(), "OK");
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            friend.post(() -> friend.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "f"), "friend recv");
            child.expect("send 1 64", "DONE");
            assertEquals("f", friend.completion(friend.rxCq, "the child's message").context());
            child.expect("engine", "RUNNING");
            child.send("quit");
        } finally {
            if (child != null) {
                child.close();
            }
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    /** The failure with where it was thrown: a fault surfaces where the JVM delivers it, and that place is the clue. */
    static String trace(Throwable t) {
        if (t == null) {
            return "no failure";
        }
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
