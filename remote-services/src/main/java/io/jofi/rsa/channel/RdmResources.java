package io.jofi.rsa.channel;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;

/**
 * The fabric objects of one channel: fabric, domain, one CQ for both directions, an address
 * vector and the enabled RDM endpoint bound to them; closed in reverse order.
 */
record RdmResources(Fabric fabric, Domain domain, CompletionQueue cq, AddressVector av, Endpoint ep) {
    /** CQ entries: room for every operation that many concurrent callers may have posted. */
    static final int CQ_SIZE = 8192;

    static RdmResources open(Fabrics fabrics, Info info) throws FabricException {
        Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
        Domain domain = null;
        CompletionQueue cq = null;
        AddressVector av = null;
        try {
            domain = fabric.domain(info, null);
            cq = domain.openCq(new CqAttr().size(CQ_SIZE).format(CqFormat.TAGGED).waitObj(WaitObj.UNSPEC), null);
            av = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
            Endpoint ep = domain.endpoint(info, null);
            ep.bind(av, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            return new RdmResources(fabric, domain, cq, av, ep);
        } catch (FabricException | RuntimeException e) {
            for (AutoCloseable opened : new AutoCloseable[] {av, cq, domain, fabric}) {
                try {
                    if (opened != null) {
                        opened.close();
                    }
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** Closes everything; the first failure is thrown after all were tried, the others suppressed. */
    void close() throws FabricException {
        FabricException first = null;
        for (io.jofi.Fid fid : new io.jofi.Fid[] {ep, av, cq, domain, fabric}) {
            try {
                fid.close();
            } catch (FabricException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
