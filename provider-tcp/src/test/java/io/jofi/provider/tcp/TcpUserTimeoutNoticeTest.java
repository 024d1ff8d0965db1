package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/**
 * The notice a plain JVM prints when TCP_USER_TIMEOUT cannot be set reads as written: System.Logger formats
 * it with MessageFormat, which took the apostrophe of "kernel's" as a quote and printed "kernels".
 */
class TcpUserTimeoutNoticeTest {
    @Test
    void theNoticeKeepsItsApostrophe() {
        Logger jul = Logger.getLogger(TcpUserTimeout.class.getName());
        List<String> seen = new ArrayList<>();
        SimpleFormatter formatter = new SimpleFormatter();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                seen.add(formatter.formatMessage(record));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(handler);
        try {
            assertFalse(TcpUserTimeout.unavailable("a reason").available());
        } finally {
            jul.removeHandler(handler);
        }
        assertEquals(List.of("TCP_USER_TIMEOUT unavailable: a reason; a cut link with data in flight is found by "
                + "progressTimeout or the kernel's retransmission limit"), seen);
    }
}
