package io.jofi.conformance;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.Fabric;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * The peer {@link StatsTrafficMain} kills (the "killed peer"): a JVM with one RDM
 * endpoint of the provider named in its argument, which prints {@code NAME <hex>}, takes
 * messages into posted receives and reads its CQ (moving progress) until it is killed.
 */
public final class StatsVictimMain {
    private StatsVictimMain() {
    }

    public static void main(String[] args) throws Exception {
        Fabrics fabrics = Fabrics.standalone();
        Info info = fabrics.getInfo(null, null, 0, StatsTrafficMain.hints(args[0], Fi.FI_MSG | Fi.FI_TAGGED)).get(0);
        Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        CompletionQueue cq = domain.openCq(new CqAttr().waitObj(WaitObj.NONE), null);
        AddressVector av = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
        Endpoint ep = domain.endpoint(info, null);
        ep.bind(av, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
        ByteBuffer landing = ByteBuffer.allocateDirect(StatsTrafficMain.SIZE);
        for (int i = 0; i < 4; i++) {
            if (ep.recv(landing.duplicate(), null, Fi.FI_ADDR_UNSPEC, null) != 0) {
                throw new IllegalStateException("the victim cannot post a receive");
            }
        }
        System.out.println("NAME " + HexFormat.of().formatHex(ep.getName()));
        System.out.flush();
        CqEntry[] entry = {new CqEntry()};
        while (true) {
            cq.read(entry, 1); // moves progress (MANUAL providers) until the kill
            Thread.sleep(1);
        }
    }
}
