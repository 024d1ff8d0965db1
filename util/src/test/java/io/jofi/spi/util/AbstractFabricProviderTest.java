package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** getInfo through AbstractFabricProvider: filter, provName/provVersion, FI_PROV_ATTR_ONLY. */
class AbstractFabricProviderTest {

    /** Offers one MSG info and leaves fabric attributes to the base class. */
    private static final class MsgOnly extends AbstractFabricProvider {
        @Override
        public String name() {
            return "msgonly";
        }

        @Override
        public String version() {
            return "2.7.1-SNAPSHOT";
        }

        @Override
        protected List<Info> offeredInfos(String node, String service, long flags) {
            Info i = new Info().caps(Fi.FI_MSG);
            i.epAttr().type(EpType.MSG);
            return List.of(i);
        }

        @Override
        public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "not needed here");
        }
    }

    @Test
    void returnedInfosCarryTheProviderNameAndVersion() throws FabricException {
        List<Info> r = new MsgOnly().getInfo(null, null, 0, new Info().caps(Fi.FI_MSG));
        assertEquals("msgonly", r.get(0).fabricAttr().provName());
        assertEquals(Fi.version(2, 7), r.get(0).fabricAttr().provVersion());
    }

    @Test
    void mismatchesAreEnodataNamingTheProvider() {
        Info hints = new Info();
        hints.epAttr().type(EpType.RDM);
        FabricException e = assertThrows(FabricException.class,
                () -> new MsgOnly().getInfo(null, null, 0, hints));
        assertEquals(Errno.ENODATA, e.errno());
        assertEquals("msgonly: ep_type FI_EP_RDM not offered (FI_EP_MSG)", e.getMessage());
    }

    @Test
    void provAttrOnlyIsOneStub() throws FabricException {
        Info hints = new Info();
        hints.epAttr().type(EpType.RDM); // ignored, as fi_getinfo(3) says
        List<Info> r = new MsgOnly().getInfo(null, null, Fi.FI_PROV_ATTR_ONLY, hints);
        Info expected = new Info();
        expected.fabricAttr().provName("msgonly").provVersion(Fi.version(2, 7));
        assertEquals(List.of(expected), r);
    }

    @Test
    void versionParsing() {
        assertEquals(Fi.version(1, 2), AbstractFabricProvider.parseVersion("1.2.3"));
        assertEquals(Fi.version(7, 0), AbstractFabricProvider.parseVersion("7"));
        assertEquals(Fi.version(0, 9), AbstractFabricProvider.parseVersion("0.9-rc1"));
        assertEquals(0, AbstractFabricProvider.parseVersion("unknown"));
        assertEquals(0, AbstractFabricProvider.parseVersion(null));
    }

    /** A step that sleeps (no busy loop) so the AUTO engine has a live thread to stop. */
    private static final ProgressEngine.Step IDLE = new ProgressEngine.Step() {
        @Override
        public int progress(long timeoutNanos) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0;
        }

        @Override
        public void wakeup() {
        }
    };

    @Test
    void stopEnginesAndDepartStopsEveryEngineThenDepartsAndRefusesNewEngines() throws Exception {
        MsgOnly p = new MsgOnly();
        ProgressEngine auto = p.startEngine(Progress.AUTO, "jofi-test-engine", IDLE);
        ProgressEngine manual = p.startEngine(Progress.MANUAL, "jofi-test-manual", IDLE);
        Thread t = auto.thread();
        assertTrue(t.isAlive());

        p.stopEnginesAndDepart();

        assertFalse(t.isAlive(), "the engine's thread is joined before departure (R15)");
        assertTrue(p.resources().isDeparted());
        FabricException e = assertThrows(FabricException.class,
                () -> p.startEngine(Progress.AUTO, "jofi-test-late", IDLE));
        assertEquals(Errno.ENODEV, e.errno());
        p.stopEngine(manual);            // idempotent after departure
        p.stopEnginesAndDepart();        // idempotent
    }

    @Test
    void stopEngineForgetsTheEngine() throws Exception {
        MsgOnly p = new MsgOnly();
        ProgressEngine auto = p.startEngine(Progress.AUTO, "jofi-test-engine", IDLE);
        Thread t = auto.thread();
        p.stopEngine(auto);
        assertFalse(t.isAlive());
        p.stopEnginesAndDepart();
        assertTrue(p.resources().isDeparted());
    }
}
