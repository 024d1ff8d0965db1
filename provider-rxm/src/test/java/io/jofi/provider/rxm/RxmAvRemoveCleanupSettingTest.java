package io.jofi.provider.rxm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link RxmSettings#avRemoveCleanup}: off by default, as libfabric's {@code FI_AV_REMOVE_CLEANUP},
 * whose value is read as {@code fi_param_get_bool} reads it. (What each setting does to a removed
 * peer's connection: provider-tcp's {@code RxmPeerLossTest}.)
 */
class RxmAvRemoveCleanupSettingTest {
    @Test
    void offByDefaultAndKeptByTheOtherWithers() {
        assertFalse(RxmSettings.defaults().avRemoveCleanup());
        RxmSettings on = RxmSettings.defaults().withAvRemoveCleanup(true);
        assertTrue(on.avRemoveCleanup());
        assertTrue(on.withEagerLimit(8192).withSarLimit(8192).withRendezvousByWrite(true).withCreditFlowControl(true)
                .avRemoveCleanup(), "another setting changed keeps it");
        assertFalse(on.withAvRemoveCleanup(false).avRemoveCleanup());
    }

    @Test
    void theVariableIsReadAsLibfabricReadsABoolean() {
        assertEquals("FI_AV_REMOVE_CLEANUP", RxmInfos.AV_REMOVE_CLEANUP_VARIABLE);
        for (String yes : new String[] {"1", "true", "YES", " on "}) {
            assertTrue(RxmInfos.avRemoveCleanup(yes), yes);
        }
        for (String no : new String[] {null, "", "0", "false", "No", "off", "maybe", "2"}) {
            assertFalse(RxmInfos.avRemoveCleanup(no), String.valueOf(no));
        }
    }
}
