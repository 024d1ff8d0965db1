package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.rsa.wire.AdmittedTypes;
import io.jofi.rsa.wire.MessageBuffer;
import io.jofi.rsa.wire.RefusedValueException;
import io.jofi.rsa.wire.ValueCodec;
import io.jofi.rsa.wire.ValueDecoder;
import java.io.Serializable;
import java.math.BigDecimal;
import java.net.URL;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.osgi.framework.ServiceException;

/** The deserialization filter: admitted types pass, a gadget is refused, the channel survives. */
class GadgetFilterTest {
    /** A class no signature of {@link Echo} names: what a gadget chain would smuggle in. */
    static final class Smuggled implements Comparator<Object>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public int compare(Object a, Object b) {
            return 0;
        }
    }

    private static Object roundTrip(Object value) throws Exception {
        MessageBuffer out = new MessageBuffer(64);
        ValueCodec.write(out, value);
        ByteBuffer in = out.flip().position(io.jofi.rsa.wire.CallDescriptor.HEADER);
        return new ValueDecoder(Echo.class.getClassLoader(), new AdmittedTypes(Echo.class)).read(in);
    }

    @Test
    void admittedTypesPass() throws Exception {
        List<Object> values = new ArrayList<>(List.of(new Point(1, 2), "s", 3L, new BigDecimal("1.5"), Instant.EPOCH));
        assertEquals(values, roundTrip(values));
        Map<String, List<Point>> map = new HashMap<>(Map.of("a", List.of(new Point(3, 4))));
        assertEquals(map, roundTrip(map));
        EchoProblem problem = (EchoProblem) roundTrip(new EchoProblem("declared"));
        assertEquals("declared", problem.getMessage());
        assertInstanceOf(IllegalStateException.class, roundTrip(new IllegalStateException("jdk exception")));
        PriorityQueue<Integer> natural = new PriorityQueue<>(List.of(3, 1, 2));
        assertEquals(1, ((PriorityQueue<?>) roundTrip(natural)).peek());
    }

    @Test
    void aPriorityQueueWithASmuggledComparatorIsRefused() {
        PriorityQueue<Object> gadget = new PriorityQueue<>(new Smuggled());
        gadget.add("x");
        RefusedValueException e = assertThrows(RefusedValueException.class, () -> roundTrip(gadget));
        assertTrue(e.getMessage().contains(Smuggled.class.getName()), e.getMessage());
    }

    @Test
    void jdkClassesThatAreNotValuesAreRefused() throws Exception {
        AdmittedTypes admitted = new AdmittedTypes(Echo.class);
        assertFalse(admitted.admits(URL.class));
        assertFalse(admitted.admits(Smuggled.class));
        assertFalse(admitted.admits(Class.forName("javax.management.BadAttributeValueExpException")));
        assertTrue(admitted.admits(Point.class));
        assertTrue(admitted.admits(Point[].class));
        assertThrows(RefusedValueException.class, () -> roundTrip(new URL("http://127.0.0.1/")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aGadgetArgumentFailsItsCallAndTheChannelSurvives(String provider) {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            PriorityQueue<Object> gadget = new PriorityQueue<>(new Smuggled());
            gadget.add("payload");
            ServiceException e = assertThrows(ServiceException.class, () -> echo.size(gadget));
            assertEquals(ServiceException.REMOTE, e.getType());
            assertTrue(e.getMessage().contains("refused") && e.getMessage().contains(Smuggled.class.getName()),
                    e.getMessage());
            assertEquals(1, pair.exporterCounters.refusedValues());
            assertEquals(3, echo.size(List.of(1, 2, 3)));
            assertEquals(2, echo.size(new PriorityQueue<>(List.of("a", "b"))));
        }
    }
}
