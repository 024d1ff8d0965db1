package io.jofi.provider.tcp.netns;

import io.jofi.Addresses;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.provider.tcp.TcpProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A child JVM in a namespace with one JOFI RDM endpoint (rxm over tcp, AUTO progress), for
 * {@link NetnsCutTest}'s reconnect case. {@code server ADDRESS PORT LAST}: listens, keeps
 * receives posted and prints {@code got SEQ} for each message until {@code LAST} arrived.
 * {@code client ADDRESS PORT COUNT}: sends messages 0..COUNT-1, one at a time, each
 * delivery-complete, 50 ms apart, printing {@code ok SEQ}; a send that fails prints
 * {@code error TIME ERR} and is sent again 200 ms later on the same endpoint (the application
 * reopens nothing; the rxm layer connects again); at the end {@code final ok=N errors=E}.
 */
public final class RdmRetryChild {
    private RdmRetryChild() {
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(Progress.AUTO);
        io.jofi.internal.FabricsRegistry registry = io.jofi.provider.tcp.TcpRdm.registry(provider);
        Info info = io.jofi.provider.tcp.TcpRdm.info(registry, args[1], args[2], server ? Fi.FI_SOURCE : 0, hints);
        Fabric fabric = registry.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.DATA), "cq");
        AddressVector av = domain.openAv(new AvAttr(), "av");
        Endpoint ep = domain.endpoint(info, "rdm");
        ep.bind(av, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
        long last = Long.parseLong(args[3]);
        CqEntry[] done = {new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        if (server) {
            System.out.println("listening");
            ByteBuffer[] bufs = new ByteBuffer[16];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = ByteBuffer.allocateDirect(4096);
                ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
            }
            while (true) {
                int rc = cq.read(done, 1);
                if (rc == 1) {
                    int i = (Integer) done[0].context();
                    long seq = bufs[i].getLong(0);
                    System.out.println("got " + seq);
                    if (seq == last) {
                        System.exit(0);
                    }
                    bufs[i].clear();
                    ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
                } else if (rc == -Errno.EAVAIL) {
                    cq.readErr(err, 0);
                    System.out.println("receive error " + err.err());
                } else {
                    Thread.sleep(1);
                }
            }
        }
        long[] peer = {Fi.FI_ADDR_NOTAVAIL};
        byte[] name = Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2])));
        av.insert(new byte[][] {name}, peer, 0, null);
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        Msg msg = new Msg().buffer(buf, null).addr(peer[0]);
        int errors = 0;
        System.out.println("sending " + System.currentTimeMillis());
        for (long seq = 0; seq < last + 1; ) {
            buf.clear();
            buf.putLong(0, seq);
            msg.context(seq);
            int rc = ep.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION);
            if (rc == -Errno.EAGAIN) {
                Thread.sleep(10);
                continue;
            }
            if (rc != 0) {
                System.out.println("post refused " + rc);
                System.exit(1);
            }
            while (true) {
                int n = cq.read(done, 1);
                if (n == 1) {
                    System.out.println("ok " + seq);
                    seq++;
                    Thread.sleep(50);
                    break;
                }
                if (n == -Errno.EAVAIL) {
                    cq.readErr(err, 0);
                    errors++;
                    System.out.println("error " + System.currentTimeMillis() + " " + err.err());
                    Thread.sleep(200);
                    break;
                }
                Thread.sleep(1);
            }
        }
        System.out.println("final ok=" + (last + 1) + " errors=" + errors);
        System.exit(0);
    }
}
