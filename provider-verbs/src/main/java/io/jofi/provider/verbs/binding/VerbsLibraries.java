package io.jofi.provider.verbs.binding;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * Loads {@code libibverbs.so.1} and {@code librdmacm.so.1} (the runtime sonames: the
 * unversioned {@code .so} links only come with the -dev packages) and binds {@link Ibv} and
 * {@link Rdmacm} to them by JNA direct mapping, once per class loader.
 *
 * <p>A machine without the libraries, or without JNA's native part, is an ordinary state
 * here, not an error: {@link #load()} then answers the reason in words and nothing throws.
 */
public final class VerbsLibraries {
    /** The runtime soname of libibverbs. */
    public static final String IBVERBS = "libibverbs.so.1";
    /** The runtime soname of librdmacm. */
    public static final String RDMACM = "librdmacm.so.1";

    private static final Object LOCK = new Object();
    private static String failure;
    private static boolean tried;

    private VerbsLibraries() {
    }

    /**
     * Binds both libraries (the first call does the work; later calls answer the same).
     *
     * @return {@code null} when {@link Ibv} and {@link Rdmacm} are callable, otherwise why not
     *         (e.g. {@code "libibverbs.so.1 not found: ..."})
     */
    public static String load() {
        synchronized (LOCK) {
            if (!tried) {
                tried = true;
                failure = bind();
            }
            return failure;
        }
    }

    private static String bind() {
        String current = IBVERBS;
        try {
            Native.register(Ibv.class, NativeLibrary.getInstance(IBVERBS));
            current = RDMACM;
            Native.register(Rdmacm.class, NativeLibrary.getInstance(RDMACM));
            current = "the C library";
            Native.register(Libc.class, NativeLibrary.getInstance(com.sun.jna.Platform.C_LIBRARY_NAME));
            return null;
        } catch (UnsatisfiedLinkError e) {
            return current + " cannot be loaded (install rdma-core's libibverbs1 and librdmacm1): " + firstLine(e);
        } catch (LinkageError | SecurityException e) {
            // NoClassDefFoundError / ExceptionInInitializerError: JNA's own native part did not load
            return "JNA cannot load its native part: " + firstLine(e);
        }
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
