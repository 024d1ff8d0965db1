package io.jofi.examples.rsa;

import java.util.List;

/**
 * A key-value store offered across containers. Remote calls carry the arguments and results
 * (strings, lists of strings) through JOFI's codec; a lost or slow peer surfaces as
 * {@code org.osgi.framework.ServiceException} (type REMOTE) in the caller.
 */
public interface KeyValueStore {

    /** Stores {@code value} under {@code key}; returns the value it replaces, or {@code null}. */
    String put(String key, String value);

    /** The value under {@code key}, or {@code null}. */
    String get(String key);

    /** Removes {@code key}; returns the value it had, or {@code null}. */
    String remove(String key);

    /** Every key, sorted. */
    List<String> keys();
}
