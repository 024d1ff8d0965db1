package io.jofi.provider.shm;

import java.nio.file.Path;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names of shm endpoints and the files derived from them.
 *
 * <p>An endpoint's name is {@code <pid>-<domain>-<endpoint>} (decimal numbers; the last two
 * count per process), so it is unique per endpoint among live processes and names its domain
 * too. Its region file is {@code jofi-<name>.region} (with the doorbell socket
 * {@code jofi-<name>.bell}, see {@code ShmRegion}); the domain's registration table
 * ({@link RegistrationTable}) is {@code jofi-<pid>-<domain>.mr}, found by a peer from the
 * endpoint name alone; shareable buffers of a domain are {@code jofi-<pid>-<domain>.buf<k>}.
 * The address is the {@code FI_ADDR_STR} {@code fi_shm://<name>} plus a terminating NUL.
 *
 * <p>An application may choose an endpoint's name ({@code getInfo} with {@code FI_SOURCE}):
 * {@code fi_shm://N} names it N, a service S (with no node or a node naming this host) names it
 * {@code svc-S}; the region keeps its canonical name and N becomes a link to it
 * ({@link ShmAlias}). A name of the provider's own form ({@code <digits>-<digits>-<digits>}) can
 * be chosen only by the process that made it, once its endpoint closed ({@link #whyNotOwnName}):
 * a later endpoint then takes it over as a link too, and peers that hold it in their AV reach
 * the new endpoint.
 */
final class ShmNames {
    /** The address scheme. */
    static final String SCHEME = "fi_shm://";
    /** What {@link #isValidName} accepts, for messages. */
    static final String NAME_RULE = "1..64 characters of [A-Za-z0-9._-], not starting with a dot";
    /** Longest name accepted (the names this provider makes are far shorter). */
    static final int MAX_NAME = 64;

    private static final AtomicLong DOMAINS = new AtomicLong();
    private static final AtomicLong ENDPOINTS = new AtomicLong();

    private ShmNames() {
    }

    /** The prefix of the name a service stands for: service S names {@code svc-S}. */
    static final String SERVICE_PREFIX = "svc-";

    /** A fresh domain prefix {@code <pid>-<n>}. */
    static String newDomainPrefix() {
        return ProcessHandle.current().pid() + "-" + DOMAINS.incrementAndGet();
    }

    /** The file name of a domain's file: {@code jofi-<prefix><suffix>}. */
    static String domainFile(String prefix, String suffix) {
        return "jofi-" + prefix + suffix;
    }

    /** The region file name of an endpoint name: {@code jofi-<name>.region}. */
    static String regionFile(String name) {
        return "jofi-" + name + ".region";
    }

    /**
     * The endpoint name a {@code getInfo} service stands for: {@code svc-<service>}, or null
     * when that is not a valid name.
     */
    static String serviceName(String service) {
        String n = SERVICE_PREFIX + service.trim();
        return isValidName(n) ? n : null;
    }

    /** A fresh endpoint name under a domain prefix. */
    static String newEndpointName(String domainPrefix) {
        return domainPrefix + "-" + ENDPOINTS.incrementAndGet();
    }

    /** The registration-table file name of the domain an endpoint name belongs to. */
    static String tableOf(String endpointName) {
        return "jofi-" + endpointName.substring(0, endpointName.lastIndexOf('-')) + ".mr";
    }

    /** Who owns {@code file}, for messages: "owned by uid N, a FILE|DIRECTORY|LINK|OTHER", or why that is unknown. */
    static String ownerOf(Path file) {
        try {
            Object uid = java.nio.file.Files.getAttribute(file, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            java.nio.file.attribute.BasicFileAttributes a = java.nio.file.Files.readAttributes(file,
                    java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            String kind = a.isRegularFile() ? "a file" : a.isDirectory() ? "a directory" : a.isSymbolicLink() ? "a link" : "a special file";
            return kind + " owned by uid " + uid;
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return "its owner unreadable: " + e.getMessage();
        }
    }

    /** The pid an endpoint name ({@code <pid>-...}) or a file name ({@code jofi-<pid>-...}) starts with, or -1. */
    static long pidOf(String name) {
        int from = name.startsWith("jofi-") ? 5 : 0;
        int end = name.indexOf('-', from);
        try {
            return Long.parseLong(end < 0 ? name.substring(from) : name.substring(from, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Whether {@code name} can name an endpoint's region file: 1..64 characters of
     * {@code [A-Za-z0-9._-]}, not starting with a dot (so never a path, never "." or ".."). The
     * names this provider makes are {@code jofi-<pid>-<domain>-<endpoint>}; others are valid
     * addresses too (an AV stores them) and reach a region of that name if there is one.
     */
    static boolean isValidName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME || name.charAt(0) == '.' || name.charAt(0) == '-') {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code name} is one this provider makes: {@code <digits>-<digits>-<digits>}. */
    static boolean isEndpointName(String name) {
        if (name == null) {
            return false;
        }
        int groups = 0;
        int digits = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= '0' && c <= '9') {
                digits++;
            } else if (c == '-' && digits > 0) {
                groups++;
                digits = 0;
            } else {
                return false;
            }
        }
        return digits > 0 && digits < 19 && groups == 2;
    }

    /**
     * Why this process cannot take {@code name}, an endpoint name of the provider's own form,
     * as a source address, or null when it can: the name must be one this process made for an
     * earlier endpoint (its pid ours, its domain and endpoint numbers already issued, so the
     * provider never makes it again). Whether an open endpoint still holds it is
     * {@link ShmAlias#claim}'s question. fabtests' {@code fi_rdm_multi_client -R} binds each
     * later client to the name the provider chose for the first one.
     */
    static String whyNotOwnName(String name) {
        long pid = pidOf(name);
        if (pid != ProcessHandle.current().pid()) {
            return "it names an endpoint of process " + pid + ", not of this one (" + ProcessHandle.current().pid()
                    + "); a name of the form <pid>-<domain>-<endpoint> can only be taken again by the process that made it";
        }
        int e = name.lastIndexOf('-');
        int d = name.lastIndexOf('-', e - 1);
        long domainNo = Long.parseLong(name.substring(d + 1, e));
        long endpointNo = Long.parseLong(name.substring(e + 1));
        if (domainNo < 1 || domainNo > DOMAINS.get() || endpointNo < 1 || endpointNo > ENDPOINTS.get()) {
            return "this process has made no endpoint of that name (a name of the form <pid>-<domain>-<endpoint>"
                    + " can only be taken again after the provider gave it to an endpoint)";
        }
        return null;
    }

    /** The address bytes of a name: {@code fi_shm://<name>} and a NUL. */
    static byte[] address(String name) {
        byte[] text = (SCHEME + name).getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[text.length + 1];
        System.arraycopy(text, 0, out, 0, text.length);
        return out;
    }

    /** The region name in an address, or null when it is not a valid shm address (trailing NULs allowed). */
    static String nameOf(byte[] addr) {
        if (addr == null) {
            return null;
        }
        int n = addr.length;
        while (n > 0 && addr[n - 1] == 0) {
            n--;
        }
        if (n <= SCHEME.length() || n > SCHEME.length() + MAX_NAME) {
            return null;
        }
        for (int i = 0; i < n; i++) {
            int c = addr[i] & 0xFF;
            if (c < 0x20 || c > 0x7E) {
                return null;
            }
            if (i < SCHEME.length() && c != SCHEME.charAt(i)) {
                return null;
            }
        }
        String name = new String(addr, SCHEME.length(), n - SCHEME.length(), StandardCharsets.US_ASCII);
        return isValidName(name) ? name : null;
    }
}
