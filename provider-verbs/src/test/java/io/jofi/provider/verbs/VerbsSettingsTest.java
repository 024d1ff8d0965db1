package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The settings of a plain JVM ({@code jofi.verbs.*} system properties, {@link VerbsSettings}):
 * what is given is taken, what is absent or malformed keeps the default. Runs without a device
 * (the provider is then unavailable, its settings are read all the same).
 */
class VerbsSettingsTest {
    private static final String CONFIRM = "jofi.verbs.iwarpWriteConfirm";
    private static final String INLINE = "jofi.verbs.inlineSize";

    @AfterEach
    void clear() {
        System.clearProperty(CONFIRM);
        System.clearProperty(INLINE);
    }

    @Test
    void iwarpWriteConfirmIsOnUnlessTurnedOff() {
        assertTrue(new VerbsProvider().iwarpWriteConfirm(), "default: writes on iWARP are confirmed");
        System.setProperty(CONFIRM, "false");
        assertFalse(new VerbsProvider().iwarpWriteConfirm(), CONFIRM + "=false");
        System.setProperty(CONFIRM, "no-such-value");
        assertTrue(new VerbsProvider().iwarpWriteConfirm(), "a malformed value keeps the default");
    }

    @Test
    void numericSettingsOutsideTheirRangeKeepTheDefault() {
        System.setProperty(INLINE, "100");
        assertEquals(100, new VerbsProvider().inlineSize());
        System.setProperty(INLINE, "999999");
        assertEquals(VerbsSettings.DEFAULT_INLINE_SIZE, new VerbsProvider().inlineSize(), "above 1024");
        System.setProperty(INLINE, "many");
        assertEquals(VerbsSettings.DEFAULT_INLINE_SIZE, new VerbsProvider().inlineSize(), "not a number");
    }
}
