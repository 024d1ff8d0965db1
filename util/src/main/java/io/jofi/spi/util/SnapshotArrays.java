package io.jofi.spi.util;

import java.util.Arrays;

/**
 * Copy-on-write arrays for a provider's lists that a hot loop walks by index while other threads
 * seldom change them (a domain's endpoints, a wait set's members, polled keys): the writer, under
 * its own lock, replaces the whole array in a {@code volatile} field; the loop reads the field
 * once and walks what it read — no iterator, no lock, nothing allocated per pass (a
 * {@code CopyOnWriteArrayList}'s for-each allocates an iterator that only escape analysis may
 * remove).
 */
public final class SnapshotArrays {
    private SnapshotArrays() {
    }

    /** A copy of {@code array} with {@code element} appended. */
    public static <T> T[] with(T[] array, T element) {
        T[] more = Arrays.copyOf(array, array.length + 1);
        more[array.length] = element;
        return more;
    }

    /** A copy of {@code array} without the first element identical to {@code element}; {@code array} itself when it has none. */
    public static <T> T[] without(T[] array, T element) {
        for (int i = 0; i < array.length; i++) {
            if (array[i] == element) {
                T[] less = Arrays.copyOf(array, array.length - 1);
                System.arraycopy(array, i + 1, less, i, array.length - i - 1);
                return less;
            }
        }
        return array;
    }
}
