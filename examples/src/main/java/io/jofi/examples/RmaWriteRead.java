package io.jofi.examples;

import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.RmaMsg;
import io.jofi.WaitObj;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One-sided RMA (fi_rma(3)) as libfabric applications do it: the target registers a region
 * ({@code fi_mr_reg}) for remote reads and writes and sends its {@code (address, key)} to the
 * initiator in a message; the initiator then writes into the region ({@code fi_write}, with
 * FI_DELIVERY_COMPLETE so the bytes are there when the completion is read) and reads another
 * part of it back ({@code fi_read}) — the target's CPU takes no part in either.
 *
 * <p>Run: {@code java -cp ... io.jofi.examples.RmaWriteRead [provider]} (default: the best
 * provider with RMA on RDM endpoints).
 */
public final class RmaWriteRead {
    /** What the target found written into its region, and what the initiator read from it. */
    public record Result(String written, String read) {
    }

    private static final long REMOTE_ACCESS = Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;

    private RmaWriteRead() {
    }

    public static void main(String[] args) throws Exception {
        run(Fabrics.standalone(), args.length > 0 ? args[0] : null, System.out);
    }

    public static Result run(Fabrics fabrics, String provider, PrintStream out) throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | REMOTE_ACCESS);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        // The registration modes this program handles: it targets address() + offset (FI_MR_VIRT_ADDR),
        // uses the key the region reports (FI_MR_PROV_KEY) and registers allocated memory only.
        // Not FI_MR_LOCAL: it passes no descriptors for its local buffers (null desc).
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_PROV_KEY | Fi.FI_MR_ALLOCATED);
        Info info = fabrics.getInfo(null, null, 0, hints).get(0);
        out.println("provider " + info.fabricAttr().provName());

        CqAttr cqAttr = new CqAttr().format(CqFormat.DATA).waitObj(WaitObj.UNSPEC);
        try (RdmSide target = RdmSide.open(fabrics, info, cqAttr); RdmSide initiator = RdmSide.open(fabrics, info, cqAttr)) {
            long toTarget = initiator.insert(target);
            long toInitiator = target.insert(initiator);

            // The target's region: remote peers may read and write it, with its key.
            ByteBuffer region = ByteBuffer.allocateDirect(4096);
            region.put(1024, "answer from the target".getBytes(StandardCharsets.UTF_8));
            try (MemoryRegion mr = target.domain().register(region, REMOTE_ACCESS, 0, 42, 0, null)) {
                // Key exchange: (address, key) in a 16-byte message. address() is the region's
                // virtual address where the hardware needs one (verbs), 0 where offsets suffice.
                ByteBuffer keyIn = ByteBuffer.allocateDirect(16);
                Waits.post(initiator.cq(), () -> initiator.ep().recv(keyIn, null,
                        Fi.FI_ADDR_UNSPEC, "key-recv"), "recv");
                ByteBuffer keyOut = ByteBuffer.allocateDirect(16).putLong(0, mr.address()).putLong(8, mr.key());
                Waits.post(target.cq(), () -> target.ep().send(keyOut, null,
                        toInitiator, "key-send"), "send");
                Waits.forCompletion(target.cq());
                Waits.forCompletion(initiator.cq());
                long base = keyIn.getLong(0);
                long key = keyIn.getLong(8);
                out.printf("initiator: region at 0x%x, key 0x%x%n", base, key);

                // fi_write to region offset 0, delivered (in the target's memory) when it completes.
                ByteBuffer src = Text.direct("written by fi_write");
                RmaMsg write = new RmaMsg().buffer(src, null).addr(toTarget).context("write");
                write.rma(base, src.remaining(), key);
                Waits.post(initiator.cq(), () -> initiator.ep().writeMsg(write, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "write");
                Waits.forCompletion(initiator.cq());
                String written = Text.of(region, 0, src.remaining());
                out.println("target: its region now holds '" + written + "'");

                // fi_read of region offset 1024 into a local buffer.
                ByteBuffer dst = ByteBuffer.allocateDirect(22);
                Waits.post(initiator.cq(), () -> initiator.ep().read(dst, null, toTarget,
                        base + 1024, key, "read"), "read");
                Waits.forCompletion(initiator.cq());
                String read = Text.of(dst, 0, dst.capacity());
                out.println("initiator: fi_read returned '" + read + "'");
                return new Result(written, read);
            }
        }
    }

}
