package io.jofi.examples;

import io.jofi.*;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Hello, fabric: two RDM endpoints of one domain; the first sends a message, the second prints it. */
public final class HelloWorld {
    public static void main(String[] args) throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(args.length > 0 ? args[0] : null); // e.g. shm; none: the best one
        Fabrics fabrics = Fabrics.standalone(); // in an OSGi container: the Fabrics service
        Info info = fabrics.getInfo(null, null, 0, hints).get(0);
        try (Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
                Domain domain = fabric.domain(info, null);
                CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.MSG).waitObj(WaitObj.UNSPEC), null);
                AddressVector av = domain.openAv(new AvAttr(), null);
                Endpoint sender = domain.endpoint(info, null);
                Endpoint receiver = domain.endpoint(info, null)) {
            for (Endpoint ep : new Endpoint[] {sender, receiver}) {
                ep.bind(av, 0);
                ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                ep.enable();
            }
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            ByteBuffer out = ByteBuffer.allocateDirect(64).put("hello, fabric".getBytes(StandardCharsets.UTF_8)).flip();
            check(receiver.recv(in, null, Fi.FI_ADDR_UNSPEC, "receive"));
            check(sender.send(out, null, av.insert(receiver.getName()), "send"));
            CqEntry[] done = {new CqEntry()};
            for (int completions = 0; completions < 2; ) { // the send's and the receive's
                completions += check(cq.sread(done, 1, 0, 10_000));
                in.limit((done[0].flags() & Fi.FI_RECV) != 0 ? (int) done[0].len() : in.limit());
            }
            System.out.println(StandardCharsets.UTF_8.decode(in) + " (over " + info.fabricAttr().provName() + ")");
        }
    }

    /** A data-path call answers {@code >= 0} or {@code -errno}: the latter becomes an exception. */
    private static int check(int rc) throws FabricException {
        if (rc < 0) {
            throw new FabricException(-rc, Errno.strerror(-rc));
        }
        return rc;
    }
}
