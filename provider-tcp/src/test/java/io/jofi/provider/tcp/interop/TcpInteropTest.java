package io.jofi.provider.tcp.interop;

import static io.jofi.provider.tcp.interop.JofiMsgPeer.data;

import io.jofi.FabricException;
import io.jofi.Progress;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JOFI's tcp provider against libfabric's own tcp provider (Debian's libfabric 1.17, through
 * the C peer jofi_peer.c): C client with JOFI server and JOFI client with C server; send/recv
 * of 0, 1, 4 KiB and 1 MiB; remote CQ data; FI_DELIVERY_COMPLETE (the wire ack, R11);
 * connection data both ways and reject (R14); shutdown from either side, FI_SHUTDOWN exactly
 * once (R14). Each test runs with auto and with manual progress on the JOFI side.
 * Skipped, with the apt-get command in the reason, when the native library is missing.
 */
class TcpInteropTest {

    private static final long CQ_DATA = 0xa1b2c3d4e5f60718L;
    /** CQ_DATA as the C peer reads it (strtoull, base prefix). */
    private static final String CQ_DATA_TEXT = "0x" + Long.toHexString(CQ_DATA);

    /** Per test, not per class: surefire shows a class-level assumption as 0 tests, hiding the reason. */
    @BeforeEach
    void nativeLibfabric() {
        NativePeer.assumeNativeLibfabric();
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void cClientToJofiServerEverySizeAndShutdownFromC(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress)) {
            int port = jofi.listen();
            try (NativePeer c = NativePeer.client(port, "connect:ClientData", "expect-connected:JofiAccept",
                    "send:0", "send:1", "send:4096", "send:1M",
                    "recv:0", "recv:1", "recv:4096", "recv:1M",
                    "shutdown", "expect-shutdown", "quiet:200")) {
                jofi.expectConnReq(data("ClientData"));
                jofi.accept(data("JofiAccept"));
                for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                    jofi.recv(size, size, null);
                }
                for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                    jofi.send(size, null, false);
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
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress);
             NativePeer c = NativePeer.server("expect-connreq:@256", "accept:CAccept",
                     "recv:0", "recv:1", "recv:4096", "recv:1M",
                     "send:0", "send:1", "send:4096", "send:1M",
                     "expect-shutdown", "quiet:200")) {
            jofi.connect(c.port(), data("@256"));
            jofi.expectConnected(data("CAccept"));
            for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                jofi.send(size, null, false);
            }
            for (int size : new int[] {0, 1, 4096, 1 << 20}) {
                jofi.recv(size, size, null);
            }
            jofi.shutdown();
            c.assertSucceeded();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void remoteCqDataAndDeliveryCompleteWithAJofiServer(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress)) {
            int port = jofi.listen();
            try (NativePeer c = NativePeer.client(port, "connect:", "expect-connected:",
                    "senddata:8:" + CQ_DATA_TEXT, "senddata:1M:7:dc", "send:4096:dc", "inject:64",
                    "recvdata:0:5", "recvdata:4096:" + CQ_DATA_TEXT, "recv:1M", "recv:17:4096",
                    "expect-shutdown")) {
                jofi.expectConnReq(data(""));
                jofi.accept(data(""));
                jofi.recv(8, 8, CQ_DATA);
                jofi.recv(1 << 20, 1 << 20, 7L);
                jofi.recv(4096, 4096, null);
                jofi.recv(64, 128, null);
                jofi.send(0, 5L, false);
                jofi.send(4096, CQ_DATA, true);
                jofi.send(1 << 20, null, true);
                jofi.send(17, null, false);
                jofi.shutdown();
                c.assertSucceeded();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void remoteCqDataAndDeliveryCompleteWithACServer(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress);
             NativePeer c = NativePeer.server("expect-connreq:", "accept:",
                     "recvdata:8:" + CQ_DATA_TEXT, "recvdata:1M:7", "recv:4096", "recv:64",
                     "senddata:0:5", "senddata:4096:" + CQ_DATA_TEXT + ":dc", "send:1M:dc", "send:17",
                     "shutdown", "expect-shutdown")) {
            jofi.connect(c.port(), data(""));
            jofi.expectConnected(data(""));
            jofi.send(8, CQ_DATA, false);
            jofi.send(1 << 20, 7L, true);
            jofi.send(4096, null, true);
            jofi.inject(64);
            jofi.recv(0, 0, 5L);
            jofi.recv(4096, 4096, CQ_DATA);
            jofi.recv(1 << 20, 1 << 20, null);
            jofi.recv(17, 4096, null);
            jofi.expectShutdown();
            jofi.expectNoMoreEvents(200);
            c.assertSucceeded();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void jofiServerRejectsACClientThenAcceptsTheNext(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress)) {
            int port = jofi.listen();
            try (NativePeer c = NativePeer.client(port, "connect:first", "expect-refused:REJECT-DATA",
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

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void cServerRejectsAJofiClient(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress);
             NativePeer c = NativePeer.server("expect-connreq:JofiData", "reject:@200")) {
            jofi.connect(c.port(), data("JofiData"));
            jofi.expectRefused(data("@200"));
            c.assertSucceeded();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shutdownFromTheCServerReachesTheJofiClientOnce(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress);
             NativePeer c = NativePeer.server("expect-connreq:", "accept:", "recv:1", "shutdown",
                     "expect-shutdown")) {
            jofi.connect(c.port(), data(""));
            jofi.expectConnected(data(""));
            jofi.send(1, null, false);
            jofi.expectShutdown();
            jofi.expectNoMoreEvents(200);
            c.assertSucceeded();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shutdownFromTheJofiServerReachesTheCClientOnce(Progress progress) throws FabricException {
        try (JofiMsgPeer jofi = new JofiMsgPeer(progress)) {
            int port = jofi.listen();
            try (NativePeer c = NativePeer.client(port, "connect:", "expect-connected:", "send:1",
                    "expect-shutdown", "quiet:200")) {
                jofi.expectConnReq(data(""));
                jofi.accept(data(""));
                jofi.recv(1, 1, null);
                jofi.shutdown();
                c.assertSucceeded();
            }
        }
    }
}
