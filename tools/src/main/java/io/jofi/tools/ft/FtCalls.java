package io.jofi.tools.ft;

import io.jofi.Errno;
import io.jofi.FabricException;

/**
 * A libfabric call as a fabtests program makes it: a {@link FabricException} becomes the
 * {@link FtError} with fabtests' {@code FT_PRINTERR} line ({@code fi_getinfo(): ret=-61 (No data
 * available)}) and the negative errno the program exits with.
 */
final class FtCalls {
    private FtCalls() {
    }

    interface FabricCall<T> {
        T call() throws FabricException;
    }

    interface FabricAction {
        void run() throws FabricException;
    }

    static <T> T call(String what, FabricCall<T> call) {
        try {
            return call.call();
        } catch (FabricException e) {
            throw printErr(what, -e.errno(), e.getMessage());
        }
    }

    static void call(String what, FabricAction action) {
        try {
            action.run();
        } catch (FabricException e) {
            throw printErr(what, -e.errno(), e.getMessage());
        }
    }

    /** fabtests' FT_PRINTERR line: {@code call(): ret=-N (strerror)} and what the provider said. */
    static FtError printErr(String what, int ret, String detail) {
        return new FtError(ret, what + "(): ret=" + ret + " (" + Errno.strerror(-ret) + ")"
                + (detail == null || detail.isEmpty() ? "" : ": " + detail));
    }
}
