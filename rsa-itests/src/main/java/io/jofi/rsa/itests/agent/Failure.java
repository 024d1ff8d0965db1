package io.jofi.rsa.itests.agent;

import org.osgi.framework.ServiceException;

/** One-line descriptions of exceptions for the answer lines: class, ServiceException type, message, causes. */
final class Failure {
    private Failure() {
    }

    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        Throwable current = failure;
        for (int depth = 0; current != null && depth < 6; depth++, current = current.getCause()) {
            if (depth > 0) {
                text.append(" <- ");
            }
            text.append(current.getClass().getName());
            if (current instanceof ServiceException) {
                text.append("[type=").append(((ServiceException) current).getType()).append(']');
            }
            text.append(": ").append(current.getMessage());
        }
        return text.toString();
    }
}
