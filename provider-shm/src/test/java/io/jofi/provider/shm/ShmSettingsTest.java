package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.annotation.Annotation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How DS settings and the {@code jofi.shm.*} system properties combine in
 * {@link ShmProvider#activate}: a configured value wins; a value the configuration leaves at
 * its default takes the system property when one is set (the {@code ./jofi} container has no
 * configuration, so system properties are how a run there is tuned).
 */
class ShmSettingsTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty("jofi.shm.cmaThreshold");
        System.clearProperty("jofi.shm.bounceSlotCount");
    }

    @Test
    void defaultsWithoutPropertiesOrConfiguration() {
        ShmProvider p = new ShmProvider();
        p.activate(settings(ShmSettings.DEFAULT_CMA_THRESHOLD, ShmSettings.DEFAULT_BOUNCE_SLOT_COUNT));
        assertEquals(ShmSettings.DEFAULT_CMA_THRESHOLD, p.cmaThreshold());
        assertEquals(ShmSettings.DEFAULT_BOUNCE_SLOT_COUNT, p.bounceSlotCount());
    }

    @Test
    void aSystemPropertyFillsASettingLeftAtItsDefault() {
        System.setProperty("jofi.shm.cmaThreshold", "0");
        System.setProperty("jofi.shm.bounceSlotCount", "64");
        ShmProvider p = new ShmProvider();
        p.activate(settings(ShmSettings.DEFAULT_CMA_THRESHOLD, ShmSettings.DEFAULT_BOUNCE_SLOT_COUNT));
        assertEquals(0, p.cmaThreshold());
        assertEquals(64, p.bounceSlotCount());
    }

    @Test
    void aConfiguredValueWinsOverTheSystemProperty() {
        System.setProperty("jofi.shm.cmaThreshold", "0");
        ShmProvider p = new ShmProvider();
        p.activate(settings(256 << 10, ShmSettings.DEFAULT_BOUNCE_SLOT_COUNT));
        assertEquals(256 << 10, p.cmaThreshold());
    }

    /** The failure settings' defaults: idle peers checked every 500 ms, 60 s without progress is ETIMEDOUT. */
    @Test
    void failureSettingsHaveTheirDefaults() {
        ShmProvider p = new ShmProvider();
        p.activate(settings(ShmSettings.DEFAULT_CMA_THRESHOLD, ShmSettings.DEFAULT_BOUNCE_SLOT_COUNT));
        assertEquals(500, p.peerCheckMillis());
        assertEquals(60_000, p.progressTimeoutMillis());
        p.failureTimes(1, -5);
        assertEquals(10, p.peerCheckMillis(), "at least 10 ms");
        assertEquals(0, p.progressTimeoutMillis(), "0 or less: no bound");
    }

    /** Settings as DS passes them: the annotation's defaults but for the two given values. */
    private static ShmSettings settings(int cmaThreshold, int bounceSlotCount) {
        return new ShmSettings() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return ShmSettings.class;
            }

            @Override
            public String directory() {
                return ShmSettings.DEFAULT_DIRECTORY;
            }

            @Override
            public int ringSize() {
                return ShmSettings.DEFAULT_RING_SIZE;
            }

            @Override
            public int bounceSlotSize() {
                return ShmSettings.DEFAULT_BOUNCE_SLOT_SIZE;
            }

            @Override
            public int bounceSlotCount() {
                return bounceSlotCount;
            }

            @Override
            public int inlineThreshold() {
                return ShmSettings.DEFAULT_INLINE_THRESHOLD;
            }

            @Override
            public int unexpectedBytes() {
                return ShmSettings.DEFAULT_UNEXPECTED_BYTES;
            }

            @Override
            public int cmaThreshold() {
                return cmaThreshold;
            }

            @Override
            public int peerCheckMillis() {
                return ShmSettings.DEFAULT_PEER_CHECK_MILLIS;
            }

            @Override
            public int progressTimeoutMillis() {
                return ShmSettings.DEFAULT_PROGRESS_TIMEOUT_MILLIS;
            }
        };
    }
}
