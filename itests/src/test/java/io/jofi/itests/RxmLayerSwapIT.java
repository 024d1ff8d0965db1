package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The {@code ofi_rxm} bundle in a real framework is a provider of its own, layered over tcp: RDM
 * over tcp is {@code tcp;ofi_rxm}, found by the core's name; stopping the rxm bundle takes RDM away
 * and leaves tcp's MSG infos, starting it brings RDM back, and stopping the tcp bundle takes
 * {@code tcp;ofi_rxm} along. Every wait is bounded.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class RxmLayerSwapIT {
    private static final String RXM_BSN = "io.jofi.provider.rxm";
    private static final long DEADLINE_MS = 10_000;

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.tcp()};
    }

    @Test
    public void stoppingTheRxmBundleTakesRdmAwayLeavesTcpMsgAndStartingItBringsRdmBack() throws Exception {
        Bundle rxm = Osgi.bundle(context, RXM_BSN);
        Info rdm = awaitRdm(true);
        assertEquals("tcp;ofi_rxm", rdm.fabricAttr().provName());
        RdmPair pair = new RdmPair(fabrics, rdm);
        assertEquals(3, pair.exchange(0, 3));
        pair.close();

        rxm.stop();
        awaitRdm(false);
        assertEquals("tcp MSG stays", JofiContainer.TCP_NAME, fabrics.getInfo(null, null, 0, hints(EpType.MSG)).get(0)
                .fabricAttr().provName());

        rxm.start();
        RdmPair again = new RdmPair(fabrics, awaitRdm(true));
        assertEquals(3, again.exchange(0, 3));
        again.close();
    }

    @Test
    public void stoppingTheTcpBundleTakesTcpOfiRxmAlong() throws Exception {
        awaitRdm(true);
        Osgi.bundle(context, JofiContainer.TCP_BSN).stop();
        awaitRdm(false);
        assertTrue("the layer stays", fabrics.providers().stream().anyMatch(p -> p.name().equals("ofi_rxm")));
    }

    private static Info hints(EpType type) {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(type);
        hints.fabricAttr().provName(JofiContainer.TCP_NAME);
        hints.domainAttr().dataProgress(Progress.AUTO);
        return hints;
    }

    /** Waits until getInfo for RDM over tcp answers ({@code present}) or answers ENODATA. */
    private Info awaitRdm(boolean present) throws InterruptedException {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (true) {
            try {
                List<Info> infos = fabrics.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints(EpType.RDM));
                if (present) {
                    return infos.get(0);
                }
            } catch (FabricException e) {
                if (!present && e.errno() == Errno.ENODATA) {
                    return null;
                }
            }
            if (System.currentTimeMillis() > deadline) {
                fail("RDM over tcp still " + (present ? "absent" : "present") + " after " + DEADLINE_MS + " ms");
            }
            Thread.sleep(20);
        }
    }
}
