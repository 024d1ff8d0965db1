package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** System properties read into a property type: parsed, defaulted, a malformed one reported once. */
class ProviderSettingsTest {
    @interface Sample {
        int size() default 16;

        boolean confirm() default true;

        String device() default "";

        long limit() default 1L << 40;
    }

    private final List<String> warnings = new ArrayList<>();
    private final Logger jul = Logger.getLogger(ProviderSettings.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(new java.util.logging.SimpleFormatter().formatMessage(r));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        jul.addHandler(capture);
    }

    @AfterEach
    void clear() {
        jul.removeHandler(capture);
        for (String n : List.of("size", "confirm", "device", "limit")) {
            System.clearProperty("test.ps." + n);
        }
    }

    @Test
    void absentPropertiesAreTheDefaults() {
        Sample s = new ProviderSettings<>(Sample.class, "test.ps.").fromSystemProperties();
        assertEquals(16, s.size());
        assertTrue(s.confirm());
        assertEquals("", s.device());
        assertEquals(1L << 40, s.limit());
        assertEquals(List.of(), warnings);
    }

    @Test
    void propertiesAreParsed() {
        System.setProperty("test.ps.size", " 32 ");
        System.setProperty("test.ps.confirm", "FALSE");
        System.setProperty("test.ps.device", "rxe0");
        Sample s = new ProviderSettings<>(Sample.class, "test.ps.").fromSystemProperties();
        assertEquals(32, s.size());
        assertEquals(false, s.confirm());
        assertEquals("rxe0", s.device());
    }

    @Test
    void aMalformedPropertyWarnsOnceWithItsNameAndTheValueKept() {
        System.setProperty("test.ps.size", "16k");
        System.setProperty("test.ps.confirm", "yes please");
        ProviderSettings<Sample> reader = new ProviderSettings<>(Sample.class, "test.ps.");
        Sample s = reader.fromSystemProperties();
        reader.fromSystemProperties(); // a second provider instance: no second warning
        assertEquals(16, s.size());
        assertTrue(s.confirm());
        assertEquals(2, warnings.size(), warnings.toString());
        String size = warnings.stream().filter(w -> w.contains("test.ps.size")).findFirst().orElseThrow();
        assertTrue(size.contains("'16k'") && size.contains("keeping 16"), size);
        String confirm = warnings.stream().filter(w -> w.contains("test.ps.confirm")).findFirst().orElseThrow();
        assertTrue(confirm.contains("keeping true"), confirm);
    }

    @Test
    void aConfigurationLeftAtTheDefaultTakesTheSystemProperty() {
        ProviderSettings<Sample> reader = new ProviderSettings<>(Sample.class, "test.ps.");
        System.setProperty("test.ps.size", "64");
        System.setProperty("test.ps.device", "mlx5_0");
        Sample configured = reader.fromSystemProperties(); // size 64, device mlx5_0
        System.setProperty("test.ps.size", "8");
        System.clearProperty("test.ps.device");
        Sample merged = reader.withSystemProperties(configured);
        assertEquals(64, merged.size(), "a configured value wins");
        assertEquals("mlx5_0", merged.device());
    }

    @Test
    void describeListsEveryAttributeByPropertyName() {
        System.setProperty("test.ps.size", "48");
        ProviderSettings<Sample> reader = new ProviderSettings<>(Sample.class, "test.ps.");
        List<ProviderSetting> all = reader.describe(reader.fromSystemProperties());
        assertEquals(List.of("test.ps.confirm", "test.ps.device", "test.ps.limit", "test.ps.size"),
                all.stream().map(ProviderSetting::name).toList());
        ProviderSetting size = all.get(3);
        assertEquals("Integer", size.type());
        assertEquals("16", size.defaultValue());
        assertEquals("48", size.value());
        assertEquals("\"\"", all.get(1).defaultValue());
    }
}
