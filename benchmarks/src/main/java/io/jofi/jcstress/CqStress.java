package io.jofi.jcstress;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.FabricException;
import io.jofi.spi.util.UtilCompletionQueue;

/** Helpers shared by the completion-queue jcstress tests. */
final class CqStress {
    private CqStress() {
    }

    /** A CQ of {@code size} entries in the DATA format, no wait object. */
    static UtilCompletionQueue open(int size) {
        try {
            return new UtilCompletionQueue(new CqAttr().size(size).format(CqFormat.DATA), null);
        } catch (FabricException e) {
            throw new IllegalStateException(e);
        }
    }

    static CqEntry[] entries(int n) {
        CqEntry[] e = new CqEntry[n];
        for (int i = 0; i < n; i++) {
            e[i] = new CqEntry();
        }
        return e;
    }

    /** The id a test stored as context, or 0 for none. */
    static int id(CqEntry e) {
        return e.context() == null ? 0 : (Integer) e.context();
    }
}
