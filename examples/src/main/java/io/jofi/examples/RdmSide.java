package io.jofi.examples;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * One side of an RDM exchange: fabric, domain, one CQ for both directions, an address vector
 * and an enabled endpoint bound to them — what every RDM example opens, as one process would.
 * {@link #close} closes them in reverse order (an object still bound is {@code EBUSY}, R9).
 */
public record RdmSide(Fabric fabric, Domain domain, CompletionQueue cq, AddressVector av, Endpoint ep)
        implements AutoCloseable {

    /** Opens the objects for {@code info}; the CQ with {@code cqAttr} (its wait object, format). */
    public static RdmSide open(Fabrics fabrics, Info info, CqAttr cqAttr) throws FabricException {
        Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
        Domain domain = null;
        CompletionQueue cq = null;
        AddressVector av = null;
        try {
            domain = fabric.domain(info, null);
            cq = domain.openCq(cqAttr, null);
            av = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
            Endpoint ep = domain.endpoint(info, null);
            ep.bind(av, 0); // RDM: peers are addressed by the fi_addr_t this AV gives them
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable(); // from here getName() is a concrete address peers can insert
            return new RdmSide(fabric, domain, cq, av, ep);
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

    /** Inserts {@code other}'s address into this side's AV: the {@code fi_addr_t} to send to. */
    public long insert(RdmSide other) throws FabricException {
        return av.insert(other.ep.getName());
    }

    @Override
    public void close() throws FabricException {
        ep.close();
        av.close();
        cq.close();
        domain.close();
        fabric.close();
    }
}
