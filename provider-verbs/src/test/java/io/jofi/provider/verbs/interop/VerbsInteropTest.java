package io.jofi.provider.verbs.interop;

import static io.jofi.provider.verbs.interop.JofiVerbsMsgPeer.data;

import io.jofi.FabricException;
import io.jofi.Progress;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JOFI's verbs MSG endpoints against libfabric's own verbs provider (Debian's libfabric 1.17,
 * through provider-tcp's C peer jofi_peer.c run with {@code -f verbs}), in the soft-RoCE VM
 * (provider-verbs/vm/run-tests): C client with JOFI server and JOFI client with C server;
 * send/recv of 0, 1, 4 KiB and 1 MiB; remote CQ data (32 bits: verbs' imm_data, network byte
 * order on the wire); connection data both ways up to the 55 bytes both providers carry (R14);
 * reject with data; shutdown from either side, FI_SHUTDOWN exactly once (R14).
 *
 * <p>Skipped, with a message, outside the VM ({@code -Djofi.verbs.vm=true} unset), when the
 * verbs provider is unavailable, or when the host-compiled peer was not injected.
 */
@Timeout(300)
class VerbsInteropTest {

    /** 32-bit remote CQ data: both providers carry 4 bytes ({@code cq_data_size} 4). */
    private static final long CQ_DATA = 0xa1b2c3d4L;
    private static final String CQ_DATA_TEXT = "0x" + Long.toHexString(CQ_DATA);

    /** Per test, not per class: a class-level assumption would show as 0 tests and hide the reason. */
    @BeforeEach
    void inTheVmWithThePeer() {
        VerbsNativePeer.assumeInTheVm();
        Assumptions.assumeFalse("siw0".equals(System.getenv("JOFI_VM_DEVICE")), "iWARP (siw0) has no immediate"
                + " data and no RNR retry, and the scripted exchanges post each receive after the previous"
                + " message and send CQ data: interop is proven on rxe0 (vm/run-tests without --siw)");
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void cClientToJofiServerEverySizeAndShutdownFromC(Progress progress) throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(progress)) {
            int port = jofi.listen();
            try (VerbsNativePeer c = VerbsNativePeer.client(port, "connect:ClientData", "expect-connected:JofiAccept",
                    "send:0", "send:1", "send:4096", "send:1M",
                    "recv:0", "recv:1", "recv:4096", "recv:1M",
                    "shutdown", "expect-shutdown", "quiet:200")) {
                jofi.expectConnReq(data("ClientData"));
                jofi.accept(data("JofiAccept"));
                for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                    jofi.recv(size, size, null);
                }
                for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                    jofi.send(size, null);
                }
                jofi.expectShutdown();
                jofi.expectNoMoreEvents(200);
                c.assertSucceeded();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void jofiClientToCServerEverySizeAndShutdownFromJofi(Progress progress) throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(progress);
             VerbsNativePeer c = VerbsNativePeer.server("expect-connreq:@55", "accept:CAccept",
                     "recv:0", "recv:1", "recv:4096", "recv:1M",
                     "send:0", "send:1", "send:4096", "send:1M",
                     "expect-shutdown", "quiet:200")) {
            jofi.connect(c.port(), data("@55"));
            jofi.expectConnected(data("CAccept"));
            for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                jofi.send(size, null);
            }
            for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                jofi.recv(size, size, null);
            }
            jofi.shutdown();
            jofi.expectShutdown();
            c.assertSucceeded();
        }
    }

    @Test
    void remoteCqDataWithAJofiServer() throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(Progress.AUTO)) {
            int port = jofi.listen();
            try (VerbsNativePeer c = VerbsNativePeer.client(port, "connect:", "expect-connected:@55",
                    "senddata:8:" + CQ_DATA_TEXT, "senddata:1M:7", "send:4096",
                    "recvdata:0:5", "recvdata:4096:" + CQ_DATA_TEXT, "recv:1M", "recv:17:4096",
                    "expect-shutdown")) {
                jofi.expectConnReq(data(""));
                jofi.accept(data("@55"));
                jofi.recv(8, 8, CQ_DATA);
                jofi.recv(1 << 20, 1 << 20, 7L);
                jofi.recv(4096, 4096, null);
                jofi.send(0, 5L);
                jofi.send(4096, CQ_DATA);
                jofi.send(1 << 20, null);
                jofi.send(17, null);
                jofi.shutdown();
                c.assertSucceeded();
            }
        }
    }

    @Test
    void remoteCqDataWithACServer() throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(Progress.AUTO);
             VerbsNativePeer c = VerbsNativePeer.server("expect-connreq:", "accept:",
                     "recvdata:8:" + CQ_DATA_TEXT, "recvdata:1M:7", "recv:4096", "recv:32",
                     "senddata:0:5", "senddata:4096:" + CQ_DATA_TEXT, "send:1M", "send:17",
                     "shutdown", "expect-shutdown")) {
            jofi.connect(c.port(), data(""));
            jofi.expectConnected(data(""));
            jofi.send(8, CQ_DATA);
            jofi.send(1 << 20, 7L);
            jofi.send(4096, null);
            jofi.inject(32);
            jofi.recv(0, 0, 5L);
            jofi.recv(4096, 4096, CQ_DATA);
            jofi.recv(1 << 20, 1 << 20, null);
            jofi.recv(17, 4096, null);
            jofi.expectShutdown();
            jofi.expectNoMoreEvents(200);
            c.assertSucceeded();
        }
    }

    @Test
    void jofiServerRejectsACClientThenAcceptsTheNext() throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(Progress.AUTO)) {
            int port = jofi.listen();
            try (VerbsNativePeer c = VerbsNativePeer.client(port, "connect:first", "expect-refused:REJECT-DATA",
                    "connect:second", "expect-connected:welcome", "expect-shutdown")) {
                jofi.expectConnReq(data("first"));
                jofi.reject(data("REJECT-DATA"));
                jofi.expectConnReq(data("second"));
                jofi.accept(data("welcome"));
                jofi.shutdown();
                c.assertSucceeded();
            }
        }
    }

    @Test
    void cServerRejectsAJofiClient() throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(Progress.AUTO);
             VerbsNativePeer c = VerbsNativePeer.server("expect-connreq:JofiData", "reject:@55")) {
            jofi.connect(c.port(), data("JofiData"));
            jofi.expectRefused(data("@55"));
            c.assertSucceeded();
        }
    }

    @Test
    void shutdownFromTheCServerReachesTheJofiClientOnce() throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(Progress.AUTO);
             VerbsNativePeer c = VerbsNativePeer.server("expect-connreq:", "accept:", "recv:1", "shutdown",
                     "expect-shutdown")) {
            jofi.connect(c.port(), data(""));
            jofi.expectConnected(data(""));
            jofi.send(1, null);
            jofi.expectShutdown();
            jofi.expectNoMoreEvents(200);
            c.assertSucceeded();
        }
    }

    @Test
    void shutdownFromTheJofiServerReachesTheCClientOnce() throws FabricException {
        try (JofiVerbsMsgPeer jofi = new JofiVerbsMsgPeer(Progress.AUTO)) {
            int port = jofi.listen();
            try (VerbsNativePeer c = VerbsNativePeer.client(port, "connect:", "expect-connected:", "send:1",
                    "expect-shutdown", "quiet:200")) {
                jofi.expectConnReq(data(""));
                jofi.accept(data(""));
                jofi.recv(1, 1, null);
                jofi.shutdown();
                jofi.expectShutdown();
                c.assertSucceeded();
            }
        }
    }
}
