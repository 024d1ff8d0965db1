package io.jofi.provider.tcp;

import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A child JVM (in a network namespace: {@code netns.NetnsTcpTest}) playing libfabric's
 * {@code fi_pingpong -e rdm} choreography against a real fi_pingpong, as {@link RxmInteropTest}
 * does on loopback: a JOFI rxm endpoint bound to {@code LOCAL}, fi_pingpong's control socket on
 * {@code PORT}. {@code client LOCAL SERVER PORT} connects to fi_pingpong's control port at
 * SERVER; {@code server LOCAL PORT} listens on LOCAL:PORT for fi_pingpong's client. Prints
 * {@code listening} (server), then {@code PASS} and exits 0, or the failure and exits 1.
 */
public final class FiPingpongChild {
    private FiPingpongChild() {
    }

    public static void main(String[] args) {
        boolean client = args[0].equals("client");
        try (RxmOverTcpTest.Side me = new RxmOverTcpTest.Side(Progress.MANUAL, RxmSettings.defaults(), 0, args[1])) {
            RxmInteropTest.Pingpong pp = new RxmInteropTest.Pingpong(me, client, false);
            pp.postReceive();
            if (client) {
                try (Socket ctrl = connect(new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3])))) {
                    ctrl.setSoTimeout(30_000);
                    DataInputStream in = new DataInputStream(ctrl.getInputStream());
                    OutputStream out = ctrl.getOutputStream();
                    byte[] serverName = RxmInteropTest.recvName(in);
                    RxmInteropTest.sendName(out, me.ep.getName());
                    pp.peer = me.insert(serverName);
                    pp.run(in, out);
                }
            } else {
                try (ServerSocket listener = new ServerSocket(Integer.parseInt(args[2]), 1, InetAddress.getByName(args[1]))) {
                    listener.setSoTimeout(60_000);
                    System.out.println("listening");
                    try (Socket ctrl = listener.accept()) {
                        ctrl.setSoTimeout(30_000);
                        DataInputStream in = new DataInputStream(ctrl.getInputStream());
                        OutputStream out = ctrl.getOutputStream();
                        RxmInteropTest.sendName(out, me.ep.getName());
                        pp.peer = me.insert(RxmInteropTest.recvName(in));
                        pp.run(in, out);
                    }
                }
            }
            System.out.println("PASS");
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
        System.exit(0);
    }

    /** fi_pingpong's server listens once it started: a refused connect is tried again (30 s). */
    private static Socket connect(InetSocketAddress to) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(to, 1000);
                return s;
            } catch (IOException e) {
                s.close();
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
