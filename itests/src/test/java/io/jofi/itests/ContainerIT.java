package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/** The container boots the framework of this run and every JOFI bundle resolves and starts. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ContainerIT {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.all()};
    }

    /** The failsafe execution (felix or equinox) really booted its framework, not the other. */
    @Test
    public void theFrameworkIsTheOneThisRunIsFor() {
        String expected = System.getProperty("jofi.framework");
        assertNotNull("jofi.framework is not set: run through failsafe (itests pom)", expected);
        assertEquals(expected, context.getBundle(0).getSymbolicName());
    }

    @Test
    public void everyJofiBundleIsActive() {
        for (String bsn : new String[] {JofiContainer.API_BSN, JofiContainer.TOOLS_BSN, JofiContainer.FIXTURE_BSN}) {
            Bundle bundle = find(bsn);
            assertNotNull(bsn + " is not installed", bundle);
            assertEquals(bsn + " is not active", Bundle.ACTIVE, bundle.getState());
        }
    }

    private Bundle find(String bsn) {
        for (Bundle b : context.getBundles()) {
            if (bsn.equals(b.getSymbolicName())) {
                return b;
            }
        }
        return null;
    }
}
