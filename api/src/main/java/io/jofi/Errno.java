package io.jofi;

/**
 * The error numbers of the fabric interface, as positive values: the ones libfabric's
 * {@code rdma/fi_errno.h} maps straight onto Linux {@code errno} (so {@code FI_EAGAIN} is
 * {@link #EAGAIN} = 11, exactly as on Linux), a few more Linux numbers the providers meet,
 * and libfabric's own codes from {@link #FI_ERRNO_OFFSET} (256) up.
 *
 * <p>All values are libfabric's (and Linux x86-64/aarch64's) numbers. Data-path calls return
 * {@code -Errno.X}; {@link FabricException#errno()} carries {@code Errno.X}.
 * {@link #strerror(int)} and {@link #name(int)} accept either sign.
 */
public final class Errno {

    private Errno() {
    }

    /** Success (libfabric {@code FI_SUCCESS}); not an error. */
    public static final int FI_SUCCESS = 0;

    // ---- Linux errno values mapped by fi_errno.h ----

    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such file or directory; also "no such entry" (e.g. an unknown address or key). */
    public static final int ENOENT = 2;
    /** Interrupted system call. */
    public static final int EINTR = 4;
    /** Input/output error. */
    public static final int EIO = 5;
    /** Argument list too long. */
    public static final int E2BIG = 7;
    /** Bad file descriptor; here: the object is closed. */
    public static final int EBADF = 9;
    /** Resource temporarily unavailable: try again (queue empty or full). */
    public static final int EAGAIN = 11;
    /** Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** Bad address. */
    public static final int EFAULT = 14;
    /** Device or resource busy (e.g. closing an object other objects are still bound to). */
    public static final int EBUSY = 16;
    /** File exists (Linux value; commented out in fi_errno.h but used by providers). */
    public static final int EEXIST = 17;
    /** No such device; here: the provider has departed. */
    public static final int ENODEV = 19;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files. */
    public static final int EMFILE = 24;
    /** No space left on device. */
    public static final int ENOSPC = 28;
    /** Function not implemented: the operation is not supported by this object. */
    public static final int ENOSYS = 38;
    /** Operation would block; the same number as {@link #EAGAIN}. */
    public static final int EWOULDBLOCK = EAGAIN;
    /** No message of desired type. */
    public static final int ENOMSG = 42;
    /** No data available (e.g. fi_getinfo found no matching provider). */
    public static final int ENODATA = 61;
    /** Value too large for defined data type. */
    public static final int EOVERFLOW = 75;
    /** Message too long. */
    public static final int EMSGSIZE = 90;
    /** Protocol not available: unknown option level or name. */
    public static final int ENOPROTOOPT = 92;
    /** Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** Address already in use. */
    public static final int EADDRINUSE = 98;
    /** Cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** Network is down. */
    public static final int ENETDOWN = 100;
    /** Network is unreachable. */
    public static final int ENETUNREACH = 101;
    /** Software caused connection abort. */
    public static final int ECONNABORTED = 103;
    /** Connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** No buffer space available. */
    public static final int ENOBUFS = 105;
    /** Transport endpoint is already connected. */
    public static final int EISCONN = 106;
    /** Transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** Cannot send after transport endpoint shutdown. */
    public static final int ESHUTDOWN = 108;
    /** Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** Connection refused. */
    public static final int ECONNREFUSED = 111;
    /** Host is down. */
    public static final int EHOSTDOWN = 112;
    /** No route to host. */
    public static final int EHOSTUNREACH = 113;
    /** Operation already in progress. */
    public static final int EALREADY = 114;
    /** Operation now in progress. */
    public static final int EINPROGRESS = 115;
    /** Remote I/O error. */
    public static final int EREMOTEIO = 121;
    /** Operation canceled (e.g. a posted operation removed by fi_cancel). */
    public static final int ECANCELED = 125;
    /** Key was rejected by service. */
    public static final int EKEYREJECTED = 129;

    // ---- further Linux errno values (not in fi_errno.h, met by providers) ----

    /** No such process (Linux value). */
    public static final int ESRCH = 3;
    /** No such device or address (Linux value). */
    public static final int ENXIO = 6;
    /** Broken pipe (Linux value). */
    public static final int EPIPE = 32;
    /** Numerical result out of range (Linux value). */
    public static final int ERANGE = 34;
    /** Timer expired (Linux value). */
    public static final int ETIME = 62;
    /** Protocol error (Linux value). */
    public static final int EPROTO = 71;
    /** Socket operation on non-socket (Linux value). */
    public static final int ENOTSOCK = 88;
    /** Destination address required (Linux value). */
    public static final int EDESTADDRREQ = 89;
    /** Protocol not supported (Linux value). */
    public static final int EPROTONOSUPPORT = 93;
    /** Operation not supported; the same number as {@link #EOPNOTSUPP} on Linux. */
    public static final int ENOTSUP = EOPNOTSUPP;
    /** Address family not supported by protocol (Linux value). */
    public static final int EAFNOSUPPORT = 97;
    /** Network dropped connection on reset (Linux value). */
    public static final int ENETRESET = 102;
    /** Key has expired (Linux value). */
    public static final int EKEYEXPIRED = 127;
    /** Key has been revoked (Linux value). */
    public static final int EKEYREVOKED = 128;

    // ---- libfabric's own codes ----

    /** First libfabric-specific error number ({@code FI_ERRNO_OFFSET}). */
    public static final int FI_ERRNO_OFFSET = 256;
    /** Unspecified error ({@code FI_EOTHER}). */
    public static final int FI_EOTHER = 256;
    /** Provided buffer is too small ({@code FI_ETOOSMALL}). */
    public static final int ETOOSMALL = 257;
    /** Operation not permitted in current state ({@code FI_EOPBADSTATE}). */
    public static final int EOPBADSTATE = 258;
    /** Error available: read the error entry with readerr ({@code FI_EAVAIL}). */
    public static final int EAVAIL = 259;
    /** Flags not supported ({@code FI_EBADFLAGS}). */
    public static final int EBADFLAGS = 260;
    /** Missing or unavailable event queue ({@code FI_ENOEQ}). */
    public static final int ENOEQ = 261;
    /** Invalid resource domain ({@code FI_EDOMAIN}). */
    public static final int EDOMAIN = 262;
    /** Missing or unavailable completion queue ({@code FI_ENOCQ}). */
    public static final int ENOCQ = 263;
    /** CRC error ({@code FI_ECRC}). */
    public static final int ECRC = 264;
    /** Truncation error: the receive buffer was too small ({@code FI_ETRUNC}). */
    public static final int ETRUNC = 265;
    /** Required key not available ({@code FI_ENOKEY}). */
    public static final int ENOKEY = 266;
    /** Missing or unavailable address vector ({@code FI_ENOAV}). */
    public static final int ENOAV = 267;
    /** Queue has been overrun ({@code FI_EOVERRUN}). */
    public static final int EOVERRUN = 268;
    /** Receiver not ready, no receive buffers available ({@code FI_ENORX}). */
    public static final int ENORX = 269;
    /** Memory registration limit exceeded ({@code FI_ENOMR}; added after libfabric 1.17). */
    public static final int ENOMR = 270;

    /**
     * The message text for an error number, as libfabric's {@code fi_strerror} gives it
     * (Linux {@code strerror} text below 256, libfabric's own text from 256 to 270).
     * Negative values are taken as their absolute value; numbers nobody defines give
     * {@code "Unknown error N"}. Allocates nothing for known numbers.
     */
    public static String strerror(int errno) {
        int n = errno < 0 ? -errno : errno;
        return switch (n) {
            case FI_SUCCESS -> "Success";
            case EPERM -> "Operation not permitted";
            case ENOENT -> "No such file or directory";
            case ESRCH -> "No such process";
            case EINTR -> "Interrupted system call";
            case EIO -> "Input/output error";
            case ENXIO -> "No such device or address";
            case E2BIG -> "Argument list too long";
            case EBADF -> "Bad file descriptor";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EACCES -> "Permission denied";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EEXIST -> "File exists";
            case ENODEV -> "No such device";
            case EINVAL -> "Invalid argument";
            case EMFILE -> "Too many open files";
            case ENOSPC -> "No space left on device";
            case EPIPE -> "Broken pipe";
            case ERANGE -> "Numerical result out of range";
            case ENOSYS -> "Function not implemented";
            case ENOMSG -> "No message of desired type";
            case ENODATA -> "No data available";
            case ETIME -> "Timer expired";
            case EPROTO -> "Protocol error";
            case EOVERFLOW -> "Value too large for defined data type";
            case ENOTSOCK -> "Socket operation on non-socket";
            case EDESTADDRREQ -> "Destination address required";
            case EMSGSIZE -> "Message too long";
            case ENOPROTOOPT -> "Protocol not available";
            case EPROTONOSUPPORT -> "Protocol not supported";
            case EOPNOTSUPP -> "Operation not supported";
            case EAFNOSUPPORT -> "Address family not supported by protocol";
            case EADDRINUSE -> "Address already in use";
            case EADDRNOTAVAIL -> "Cannot assign requested address";
            case ENETDOWN -> "Network is down";
            case ENETUNREACH -> "Network is unreachable";
            case ENETRESET -> "Network dropped connection on reset";
            case ECONNABORTED -> "Software caused connection abort";
            case ECONNRESET -> "Connection reset by peer";
            case ENOBUFS -> "No buffer space available";
            case EISCONN -> "Transport endpoint is already connected";
            case ENOTCONN -> "Transport endpoint is not connected";
            case ESHUTDOWN -> "Cannot send after transport endpoint shutdown";
            case ETIMEDOUT -> "Connection timed out";
            case ECONNREFUSED -> "Connection refused";
            case EHOSTDOWN -> "Host is down";
            case EHOSTUNREACH -> "No route to host";
            case EALREADY -> "Operation already in progress";
            case EINPROGRESS -> "Operation now in progress";
            case EREMOTEIO -> "Remote I/O error";
            case ECANCELED -> "Operation canceled";
            case EKEYEXPIRED -> "Key has expired";
            case EKEYREVOKED -> "Key has been revoked";
            case EKEYREJECTED -> "Key was rejected by service";
            case FI_EOTHER -> "Unspecified error";
            case ETOOSMALL -> "Provided buffer is too small";
            case EOPBADSTATE -> "Operation not permitted in current state";
            case EAVAIL -> "Error available";
            case EBADFLAGS -> "Flags not supported";
            case ENOEQ -> "Missing or unavailable event queue";
            case EDOMAIN -> "Invalid resource domain";
            case ENOCQ -> "Missing or unavailable completion queue";
            case ECRC -> "CRC error";
            case ETRUNC -> "Truncation error";
            case ENOKEY -> "Required key not available";
            case ENOAV -> "Missing or unavailable address vector";
            case EOVERRUN -> "Queue has been overrun";
            case ENORX -> "Receiver not ready, no receive buffers available";
            case ENOMR -> "Memory registration limit exceeded";
            default -> "Unknown error " + n;
        };
    }

    /**
     * The symbolic name of an error number: {@code "EAGAIN"}, {@code "ETRUNC"},
     * {@code "FI_EOTHER"}, ... Negative values are taken as their absolute value; where two
     * names share a number the first one wins ({@code EAGAIN} over {@code EWOULDBLOCK},
     * {@code EOPNOTSUPP} over {@code ENOTSUP}); unknown numbers give {@code "E" + n}.
     * Allocates nothing for known numbers.
     */
    public static String name(int errno) {
        int n = errno < 0 ? -errno : errno;
        return switch (n) {
            case FI_SUCCESS -> "FI_SUCCESS";
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case ESRCH -> "ESRCH";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case ENXIO -> "ENXIO";
            case E2BIG -> "E2BIG";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case EMFILE -> "EMFILE";
            case ENOSPC -> "ENOSPC";
            case EPIPE -> "EPIPE";
            case ERANGE -> "ERANGE";
            case ENOSYS -> "ENOSYS";
            case ENOMSG -> "ENOMSG";
            case ENODATA -> "ENODATA";
            case ETIME -> "ETIME";
            case EPROTO -> "EPROTO";
            case EOVERFLOW -> "EOVERFLOW";
            case ENOTSOCK -> "ENOTSOCK";
            case EDESTADDRREQ -> "EDESTADDRREQ";
            case EMSGSIZE -> "EMSGSIZE";
            case ENOPROTOOPT -> "ENOPROTOOPT";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EAFNOSUPPORT -> "EAFNOSUPPORT";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ENETDOWN -> "ENETDOWN";
            case ENETUNREACH -> "ENETUNREACH";
            case ENETRESET -> "ENETRESET";
            case ECONNABORTED -> "ECONNABORTED";
            case ECONNRESET -> "ECONNRESET";
            case ENOBUFS -> "ENOBUFS";
            case EISCONN -> "EISCONN";
            case ENOTCONN -> "ENOTCONN";
            case ESHUTDOWN -> "ESHUTDOWN";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EHOSTDOWN -> "EHOSTDOWN";
            case EHOSTUNREACH -> "EHOSTUNREACH";
            case EALREADY -> "EALREADY";
            case EINPROGRESS -> "EINPROGRESS";
            case EREMOTEIO -> "EREMOTEIO";
            case ECANCELED -> "ECANCELED";
            case EKEYEXPIRED -> "EKEYEXPIRED";
            case EKEYREVOKED -> "EKEYREVOKED";
            case EKEYREJECTED -> "EKEYREJECTED";
            case FI_EOTHER -> "FI_EOTHER";
            case ETOOSMALL -> "ETOOSMALL";
            case EOPBADSTATE -> "EOPBADSTATE";
            case EAVAIL -> "EAVAIL";
            case EBADFLAGS -> "EBADFLAGS";
            case ENOEQ -> "ENOEQ";
            case EDOMAIN -> "EDOMAIN";
            case ENOCQ -> "ENOCQ";
            case ECRC -> "ECRC";
            case ETRUNC -> "ETRUNC";
            case ENOKEY -> "ENOKEY";
            case ENOAV -> "ENOAV";
            case EOVERRUN -> "EOVERRUN";
            case ENORX -> "ENORX";
            case ENOMR -> "ENOMR";
            default -> "E" + n;
        };
    }
}
