package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.Addresses;
import io.jofi.AvAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.spi.util.ProviderSetting;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tcp settings of a plain JVM ({@code jofi.tcp.*}): a malformed one is reported once, the
 * interface setting restricts the infos, the port range is what listeners bind (real sockets).
 */
@Timeout(60)
class TcpSettingsTest {
    private static final List<String> PROPERTIES = List.of("jofi.tcp.keepAliveIdle", "jofi.tcp.iface",
            "jofi.tcp.portLow", "jofi.tcp.portHigh");

    @AfterEach
    void clear() {
        PROPERTIES.forEach(System::clearProperty);
    }

    @Test
    void aMalformedPropertyWarnsOnceWithItsNameAndTheValueKept() {
        List<String> warnings = new ArrayList<>();
        Logger jul = Logger.getLogger("io.jofi.spi.util.ProviderSettings");
        Handler capture = new Handler() {
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
        jul.addHandler(capture);
        try {
            System.setProperty("jofi.tcp.keepAliveIdle", "7s");
            new TcpProvider();
            TcpProvider second = new TcpProvider();
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("jofi.tcp.keepAliveIdle") && warnings.get(0).contains("'7s'")
                    && warnings.get(0).contains("keeping " + TcpSettings.DEFAULT_KEEPALIVE_IDLE), warnings.get(0));
            ProviderSetting idle = setting(second, "jofi.tcp.keepAliveIdle");
            assertEquals(String.valueOf(TcpSettings.DEFAULT_KEEPALIVE_IDLE), idle.value());
        } finally {
            jul.removeHandler(capture);
        }
    }

    @Test
    void settingsListEveryAttributeWithDefaultAndValue() {
        System.setProperty("jofi.tcp.portLow", "40000");
        List<ProviderSetting> all = new TcpProvider().settings();
        assertEquals(13, all.size(), all.toString());
        ProviderSetting low = setting(all, "jofi.tcp.portLow");
        assertEquals("0", low.defaultValue());
        assertEquals("40000", low.value());
        assertEquals("Integer", low.type());
        ProviderSetting user = setting(all, "jofi.tcp.userTimeout");
        assertEquals(String.valueOf(TcpSettings.DEFAULT_USER_TIMEOUT), user.defaultValue());
        // whether TCP_USER_TIMEOUT can be set in this JVM, and why (not): a sentence of its own
        assertTrue(user.description().startsWith("Here: available ("), user.description());
    }

    @Test
    void theInterfaceSettingRestrictsTheInfosToThatInterface() throws Exception {
        System.setProperty("jofi.tcp.iface", "lo");
        List<Info> infos = new TcpProvider().getInfo(null, null, 0, null);
        assertFalse(infos.isEmpty());
        for (Info i : infos) {
            assertEquals("lo", i.domainAttr().name(), i.toShortString());
        }
        System.setProperty("jofi.tcp.iface", "no-such-if0");
        FabricException e = assertThrows(FabricException.class, () -> new TcpProvider().getInfo(null, null, 0, null));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("no-such-if0") && e.getMessage().contains("jofi.tcp.iface"), e.getMessage());
    }

    @Test
    void listenersTakeAFreePortOfTheRangeAndFailWithEaddrinuseWhenAllAreTaken() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        int low = twoFreePorts(lo);
        System.setProperty("jofi.tcp.portLow", String.valueOf(low));
        System.setProperty("jofi.tcp.portHigh", String.valueOf(low + 1));
        TcpProvider provider = new TcpProvider();
        Info msg = info(provider, EpType.MSG);
        try (ServerSocket taken = new ServerSocket(low, 1, lo);
             Fabric fabric = provider.fabric(msg.fabricAttr(), null);
             EventQueue eq = fabric.openEq(new EqAttr(), "eq")) {
            PassiveEndpoint pep = fabric.passiveEndpoint(msg, "pep");
            pep.bind(eq, 0);
            pep.listen();
            assertEquals(low + 1, port(pep.getName()), "the free port of the range");

            // both ports taken now: an RDM endpoint's listener has none left
            io.jofi.internal.FabricsRegistry registry = TcpRdm.registry(provider);
            Info rdm = TcpRdm.info(registry, "127.0.0.1", "0", Fi.FI_SOURCE, null);
            try (Fabric rdmFabric = registry.fabric(rdm.fabricAttr(), null);
                 Domain domain = rdmFabric.domain(rdm, null); AddressVector av = domain.openAv(new AvAttr(), "av")) {
                Endpoint ep = domain.endpoint(rdm, "rdm");
                ep.bind(av, 0);
                FabricException e = assertThrows(FabricException.class, ep::enable);
                assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());
                assertTrue(e.getMessage().contains(low + ".." + (low + 1)), e.getMessage());
                ep.close();
            }
            taken.close();
            // one free again: the RDM endpoint takes it
            try (Fabric rdmFabric = registry.fabric(rdm.fabricAttr(), null);
                 Domain domain = rdmFabric.domain(rdm, null); AddressVector av = domain.openAv(new AvAttr(), "av")) {
                Endpoint ep = domain.endpoint(rdm, "rdm");
                ep.bind(av, 0);
                ep.enable();
                assertEquals(low, port(ep.getName()));
                ep.close();
            }
            pep.close();
        }
    }

    @Test
    void aServiceOtherThanZeroIgnoresTheRange() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        int low = twoFreePorts(lo);
        int elsewhere;
        try (ServerSocket s = new ServerSocket(0, 1, lo)) {
            elsewhere = s.getLocalPort();
        }
        System.setProperty("jofi.tcp.portLow", String.valueOf(low));
        TcpProvider provider = new TcpProvider();
        Info msg = provider.getInfo("127.0.0.1", String.valueOf(elsewhere), Fi.FI_SOURCE, hints(EpType.MSG)).get(0);
        try (Fabric fabric = provider.fabric(msg.fabricAttr(), null);
             EventQueue eq = fabric.openEq(new EqAttr(), "eq")) {
            PassiveEndpoint pep = fabric.passiveEndpoint(msg, "pep");
            pep.bind(eq, 0);
            pep.listen();
            assertEquals(elsewhere, port(pep.getName()));
            pep.close();
        }
    }

    private static Info hints(EpType type) {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(type);
        return hints;
    }

    private static Info info(TcpProvider provider, EpType type) throws FabricException {
        return provider.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints(type)).get(0);
    }

    private static int port(byte[] sockaddr) {
        return ((InetSocketAddress) Addresses.fromSockaddr(sockaddr)).getPort();
    }

    /** A port p such that p and p + 1 are free on {@code a} just now. */
    private static int twoFreePorts(InetAddress a) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int p;
            try (ServerSocket s = new ServerSocket(0, 1, a)) {
                p = s.getLocalPort();
            }
            if (p >= 65535) {
                continue;
            }
            try (ServerSocket s1 = new ServerSocket(p, 1, a); ServerSocket s2 = new ServerSocket(p + 1, 1, a)) {
                return p;
            } catch (IOException busy) {
                // try another
            }
        }
        throw new AssertionError("no two consecutive free ports");
    }

    private static ProviderSetting setting(TcpProvider p, String name) {
        return setting(p.settings(), name);
    }

    private static ProviderSetting setting(List<ProviderSetting> all, String name) {
        return all.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(name));
    }
}
