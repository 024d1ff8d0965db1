package io.jofi.provider.verbs.binding;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.SymbolProvider;
import java.util.Map;

/**
 * The four data-path functions of a device context's operation table bound by JNA direct
 * mapping, so that a call allocates nothing (a {@code Function} call copies its argument
 * array). Direct mapping binds names to addresses once per class: a {@link SymbolProvider}
 * answers the names below with the function pointers read from the first context bound
 * ({@link #bind}); contexts of another driver (different pointers) keep using
 * {@link ContextOps}' {@code Function}s.
 */
public final class DataPath {
    private static final Object LOCK = new Object();
    /** The ops pointers bound: post_send, post_recv, poll_cq, req_notify_cq; null before. */
    private static long[] bound;

    private DataPath() {
    }

    /** {@code context->ops.post_send(qp, wr, bad_wr)}. */
    public static native int post_send(long qp, long wr, long badWr);

    /** {@code context->ops.post_recv(qp, wr, bad_wr)}. */
    public static native int post_recv(long qp, long wr, long badWr);

    /** {@code context->ops.poll_cq(cq, num_entries, wc)}. */
    public static native int poll_cq(long cq, int numEntries, long wc);

    /** {@code context->ops.req_notify_cq(cq, solicited_only)}. */
    public static native int req_notify_cq(long cq, int solicitedOnly);

    /**
     * Binds the methods above to these function pointers, unless bound already.
     *
     * @return true when the methods call exactly these pointers (bound now or before)
     */
    static boolean bind(long postSend, long postRecv, long pollCq, long reqNotifyCq) {
        synchronized (LOCK) {
            long[] want = {postSend, postRecv, pollCq, reqNotifyCq};
            if (bound != null) {
                return java.util.Arrays.equals(bound, want);
            }
            if (postSend == 0 || postRecv == 0 || pollCq == 0 || reqNotifyCq == 0) {
                return false;
            }
            SymbolProvider ops = (handle, name, parent) -> {
                switch (name) {
                    case "post_send":
                        return postSend;
                    case "post_recv":
                        return postRecv;
                    case "poll_cq":
                        return pollCq;
                    case "req_notify_cq":
                        return reqNotifyCq;
                    default:
                        return parent.getSymbolAddress(handle, name, null);
                }
            };
            try {
                NativeLibrary lib = NativeLibrary.getInstance(VerbsLibraries.IBVERBS,
                        Map.of(Library.OPTION_SYMBOL_PROVIDER, ops));
                Native.register(DataPath.class, lib);
                bound = want;
                return true;
            } catch (LinkageError | RuntimeException e) {
                return false;
            }
        }
    }
}
