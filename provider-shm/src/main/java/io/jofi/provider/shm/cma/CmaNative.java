package io.jofi.provider.shm.cma;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/**
 * libc's {@code process_vm_readv(2)} bound by JNA direct mapping ({@code Native.register}:
 * a call allocates nothing), and the two other JNA services the CMA path needs. This is the
 * only class of the bundle that names {@code com.sun.jna}: the bundle imports that package
 * optionally, so without JNA only this class fails to link, and {@link CrossMemoryAttach}
 * reports it as the reason CMA is off.
 */
final class CmaNative {
    private CmaNative() {
    }

    /**
     * {@code ssize_t process_vm_readv(pid_t pid, const struct iovec *local_iov,
     * unsigned long liovcnt, const struct iovec *remote_iov, unsigned long riovcnt,
     * unsigned long flags)}: bytes read, or -1 with errno in {@link #lastError()}.
     */
    static native long process_vm_readv(int pid, long localIov, long localCount, long remoteIov, long remoteCount,
                                        long flags);

    /** Binds {@link #process_vm_readv} to the C library (throws the linkage errors the caller reports). */
    static void bind() {
        Native.register(CmaNative.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    /** The errno the last native call of this thread left. */
    static int lastError() {
        return Native.getLastError();
    }

    /** The native address of byte 0 of a direct buffer (allocates a {@code Pointer}: cache it). */
    static long address(ByteBuffer direct) {
        Pointer p = Native.getDirectBufferPointer(direct);
        return p == null ? 0 : Pointer.nativeValue(p);
    }
}
