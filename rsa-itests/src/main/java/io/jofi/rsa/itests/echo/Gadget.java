package io.jofi.rsa.itests.echo;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a deserialization gadget: a serializable class that no exported method names,
 * whose {@code readObject} leaves a trace. A distribution provider that filters what it
 * deserializes never runs it; {@link #READS} counts the times one did.
 */
public final class Gadget implements Serializable {
    private static final long serialVersionUID = 1L;

    /** How many times a container deserialized a gadget (read by the agent's {@code gadgets} command). */
    public static final AtomicInteger READS = new AtomicInteger();

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        READS.incrementAndGet();
    }
}
