package io.jofi.itests;

import static org.junit.Assert.assertEquals;

import io.jofi.Fabrics;
import io.jofi.Info;
import java.util.List;
import org.junit.Test;

/**
 * The other world of the same jar: in a plain JVM (no framework; the fixture bundle's jar is
 * on the class path), {@code Fabrics.standalone()} finds the fixture provider through
 * {@link java.util.ServiceLoader} and the {@code META-INF/services} file bnd generated.
 */
public class StandaloneIT {

    @Test
    public void standaloneRegistryFindsTheFixtureThroughServiceLoader() throws Exception {
        List<Info> infos = Fabrics.standalone().getInfo(null, null, 0, FabricsServiceIT.fixtureHints());
        assertEquals(2, infos.size());
        for (Info info : infos) {
            assertEquals(JofiContainer.FIXTURE_NAME, info.fabricAttr().provName());
        }
    }
}
