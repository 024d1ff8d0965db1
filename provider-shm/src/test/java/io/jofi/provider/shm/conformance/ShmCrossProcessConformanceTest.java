package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.CrossProcessConformance;

/** Runs {@link CrossProcessConformance} on shm RDM endpoints with side b in a child JVM: AUTO progress on both sides. */
class ShmCrossProcessConformanceTest extends CrossProcessConformance {
    @Override
    protected String provider() {
        return "shm";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }

    @Override
    protected Progress progress() {
        return Progress.AUTO;
    }

    @Override
    protected Progress remoteProgress() {
        return Progress.AUTO;
    }

    /** The inline threshold (16 KiB) and the bounce slot size (64 KiB), and one byte more each. */
    @Override
    protected int[] providerSizes() {
        return new int[] {16 << 10, (16 << 10) + 1, 64 << 10, (64 << 10) + 1};
    }

    /** Regions from Domain.allocateBuffer are shared: RMA and atomics need no target progress. */
    @Override
    protected boolean oneSidedRma() {
        return true;
    }
}
