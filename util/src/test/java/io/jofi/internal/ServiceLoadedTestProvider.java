package io.jofi.internal;

import io.jofi.EpType;

/** Listed in the test META-INF/services so that {@link StandaloneFabrics} finds it. */
public final class ServiceLoadedTestProvider extends TestProvider {
    /** ServiceLoader needs a public no-argument constructor. */
    public ServiceLoadedTestProvider() {
        super("sltest", EpType.RDM);
    }
}
