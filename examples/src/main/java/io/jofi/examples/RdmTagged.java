package io.jofi.examples;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reliable datagrams (FI_EP_RDM) with tagged messages (fi_tagged(3)): two endpoints, no
 * connection; each inserts the other's address ({@code getName()}) into its address vector and
 * addresses it by the {@code fi_addr_t} the AV gave. The receiver posts receives for tags 1 and
 * 2 and one for "any tag of the 0x100 group" (an ignore mask); the sender sends in another
 * order, and each message lands in the receive whose tag it matches, not the oldest one.
 *
 * <p>Run: {@code java -cp ... io.jofi.examples.RdmTagged [provider]} (default: the best
 * provider with FI_TAGGED on RDM endpoints, e.g. shm, else tcp).
 */
public final class RdmTagged {
    private RdmTagged() {
    }

    public static void main(String[] args) throws Exception {
        run(Fabrics.standalone(), args.length > 0 ? args[0] : null, System.out);
    }

    /** Sends three tagged messages from one endpoint to another; returns tag → text as received. */
    public static Map<Long, String> run(Fabrics fabrics, String provider, PrintStream out) throws FabricException {
        Info hints = new Info().caps(Fi.FI_TAGGED);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        Info info = fabrics.getInfo(null, null, 0, hints).get(0);
        out.println("provider " + info.fabricAttr().provName());

        // TAGGED format: completions carry the tag that matched.
        CqAttr cqAttr = new CqAttr().format(CqFormat.TAGGED).waitObj(WaitObj.UNSPEC);
        try (RdmSide sender = RdmSide.open(fabrics, info, cqAttr); RdmSide receiver = RdmSide.open(fabrics, info, cqAttr)) {
            // Address exchange. Between processes, send getName()'s bytes out of band
            // (a file, a socket, a job launcher) — here both sides share this JVM.
            long toReceiver = sender.insert(receiver);
            receiver.insert(sender); // not needed to receive (any source), shown for symmetry

            // Receives first: each buffer's tag says which message it wants.
            long[][] wanted = {{1, 0}, {2, 0}, {0x100, 0xff}}; // {tag, ignore}: 0x100..0x1ff for the third
            ByteBuffer[] buffers = new ByteBuffer[wanted.length];
            for (int i = 0; i < wanted.length; i++) {
                ByteBuffer buf = buffers[i] = ByteBuffer.allocateDirect(64);
                long tag = wanted[i][0];
                long ignore = wanted[i][1];
                Waits.post(receiver.cq(), () -> receiver.ep().trecv(buf, null, Fi.FI_ADDR_UNSPEC, tag, ignore, buf), "trecv");
            }

            // Sends in another order than the receives were posted.
            String[] texts = {"two", "one", "group member 0x142"};
            long[] tags = {2, 1, 0x142};
            for (int i = 0; i < texts.length; i++) {
                ByteBuffer msg = Text.direct(texts[i]);
                long tag = tags[i];
                Waits.post(sender.cq(), () -> sender.ep().tsend(msg, null, toReceiver, tag, "send " + tag), "tsend");
            }
            for (int i = 0; i < texts.length; i++) {
                Waits.forCompletion(sender.cq()); // the send buffers may be reused from here
            }

            Map<Long, String> received = new TreeMap<>();
            for (int i = 0; i < texts.length; i++) {
                CqEntry done = Waits.forCompletion(receiver.cq());
                ByteBuffer buf = (ByteBuffer) done.context(); // the receive's context: its buffer
                String text = Text.of(buf, 0, (int) done.len());
                out.printf("received tag 0x%x into receive #%d: '%s'%n", done.tag(), indexOf(buffers, buf), text);
                received.put(done.tag(), text);
            }
            return received;
        }
    }

    private static int indexOf(ByteBuffer[] buffers, ByteBuffer buf) {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] == buf) {
                return i;
            }
        }
        return -1;
    }
}
