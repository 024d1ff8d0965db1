package io.jofi.rsa;

import java.io.Serializable;

/** A serializable value type named by {@link Echo}'s signatures. */
public record Point(int x, int y) implements Serializable {
}
