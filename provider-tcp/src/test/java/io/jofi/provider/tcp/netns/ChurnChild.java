package io.jofi.provider.tcp.netns;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.provider.tcp.TcpProvider;
import java.nio.ByteBuffer;

/**
 * A child JVM in a namespace for connection churn: {@code client ADDRESS PORT N} opens N MSG
 * connections one after another, each connect, one 64-byte delivery-complete send, close;
 * {@code server ADDRESS PORT N} accepts them, receives each message, closes each endpoint. Both
 * print {@link ProcessStats} after the first 100 connections ("warm") and after the last
 * ("end"), and "progress K" every 1000; any failure ends the process with status 1.
 */
public final class ChurnChild {
    private static final int WARM = 100;

    private ChurnChild() {
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        int total = Integer.parseInt(args[3]);
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(Progress.AUTO);
        Info info = provider.getInfo(args[1], args[2], server ? Fi.FI_SOURCE : 0, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.DATA).size(4096), "cq");
        if (server) {
            serve(fabric, domain, info, eq, cq, total);
        } else {
            connect(domain, info, eq, cq, total);
        }
        System.exit(0);
    }

    private static void serve(Fabric fabric, Domain domain, Info info, EventQueue eq, CompletionQueue cq, int total)
            throws Exception {
        PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
        pep.bind(eq, 0);
        pep.listen();
        System.out.println("listening");
        EqEntry e = new EqEntry();
        CqEntry[] done = {new CqEntry()};
        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        int served = 0;
        while (served < total) {
            int rc = eq.read(e, 0);
            if (rc == 1 && e.event() == Fi.FI_CONNREQ) {
                Endpoint ep = domain.endpoint(e.info(), "server");
                ep.bind(eq, 0);
                ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                ep.enable();
                buf.clear();
                check(ep.recv(buf, null, Fi.FI_ADDR_UNSPEC, ep), "recv");
                ep.accept(null);
            } else if (rc == -Errno.EAVAIL) {
                EqErrEntry x = new EqErrEntry();
                eq.readErr(x, 0);
                fail("EQ error " + x.err());
            }
            int n = cq.read(done, 1);
            if (n == 1) {
                ((Endpoint) done[0].context()).close();
                served++;
                mark(served, total);
            } else if (n == -Errno.EAVAIL) {
                CqErrEntry x = new CqErrEntry();
                cq.readErr(x, 0);
                fail("receive failed: " + x.err());
            } else if (rc != 1) {
                Thread.sleep(0, 100_000);
            }
        }
    }

    private static void connect(Domain domain, Info info, EventQueue eq, CompletionQueue cq, int total) throws Exception {
        EqEntry e = new EqEntry();
        CqEntry[] done = {new CqEntry()};
        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        Msg msg = new Msg().buffer(buf, null);
        for (int i = 1; i <= total; i++) {
            Endpoint ep = domain.endpoint(info, "client");
            ep.bind(eq, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            ep.connect(info.destAddr(), null);
            while (true) {
                int rc = eq.read(e, 0);
                if (rc == 1 && e.event() == Fi.FI_CONNECTED) {
                    break;
                }
                if (rc == -Errno.EAVAIL) {
                    EqErrEntry x = new EqErrEntry();
                    eq.readErr(x, 0);
                    fail("connect " + i + " from " + io.jofi.Addresses.fromSockaddr(info.srcAddr()) + " to "
                            + io.jofi.Addresses.fromSockaddr(info.destAddr()) + " failed: " + x.err());
                }
                Thread.sleep(0, 50_000);
            }
            buf.clear();
            check(ep.sendMsg(msg.context(i), Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "send");
            while (true) {
                int n = cq.read(done, 1);
                if (n == 1) {
                    break;
                }
                if (n == -Errno.EAVAIL) {
                    CqErrEntry x = new CqErrEntry();
                    cq.readErr(x, 0);
                    fail("send " + i + " failed: " + x.err());
                }
                Thread.sleep(0, 50_000);
            }
            ep.close();
            mark(i, total);
        }
    }

    private static void mark(int count, int total) throws InterruptedException {
        if (count == WARM) {
            System.out.println(ProcessStats.line("warm"));
        }
        if (count % 1000 == 0) {
            System.out.println("progress " + count);
        }
        if (count == total) {
            Thread.sleep(500); // the last closes settle (sockets released by the loops)
            System.gc();
            System.out.println(ProcessStats.line("end"));
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            fail(what + " refused: " + rc);
        }
    }

    private static void fail(String why) {
        System.out.println("FAIL " + why);
        System.exit(1);
    }
}
