package io.jofi.rsa.wire;

import java.io.InvalidClassException;

/** A serialized value named a class the filter does not admit: the value is refused, the channel goes on. */
public final class RefusedValueException extends InvalidClassException {
    private static final long serialVersionUID = 1L;

    public RefusedValueException(String className, Throwable cause) {
        super(className, "refused by the remote-services filter: not an exported interface type, a type its methods"
                + " name (or a subtype of one), nor a JDK value type");
        initCause(cause);
    }
}
