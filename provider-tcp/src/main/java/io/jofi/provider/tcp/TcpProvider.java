package io.jofi.provider.tcp;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;
import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.Threading;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.AbstractFabricProvider;
import io.jofi.spi.util.ProviderSetting;
import io.jofi.spi.util.ProviderSettings;
import io.jofi.spi.util.SafeLog;
import io.jofi.spi.util.rxm.RxmEndpoint;
import io.jofi.spi.util.rxm.RxmSettings;
import io.jofi.spi.util.rxm.RxmWireDescriptor;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;

/**
 * The {@code tcp} provider: MSG endpoints over {@code java.nio} sockets speaking libfabric's
 * tcp wire format (docs/TCP-WIRE.md), so that JOFI and C libfabric programs interoperate.
 *
 * <p>Offers one MSG info per IP address of each interface that is up, named as libfabric's
 * tcp provider names them: domain = the interface ({@code "lo"}), fabric = its network
 * ({@code "127.0.0.0/8"}). Found as a DS component in OSGi and through
 * {@link java.util.ServiceLoader} in a plain JVM. Its deactivation departs everything it
 * opened and stops every progress thread (R15).
 */
@Component(service = FabricProvider.class, immediate = true, configurationPid = "io.jofi.provider.tcp")
@ServiceProvider(value = FabricProvider.class, resolution = Resolution.OPTIONAL)
public final class TcpProvider extends AbstractFabricProvider {
    /** The provider name. */
    public static final String NAME = "tcp";
    /** The provider version ({@code fi_info -l}). */
    public static final String VERSION = "0.1";
    private static final System.Logger LOG = System.getLogger(TcpProvider.class.getName());
    /** The inject size of every endpoint (libfabric tcp's). */
    static final int INJECT_SIZE = 128;
    /** The largest message an endpoint sends or receives. */
    static final long MAX_MSG_SIZE = 1L << 30;
    /** Transmit and receive queue depth per endpoint. */
    static final int QUEUE_SIZE = 1024;
    /** Buffers per message ({@code Msg} iovs). */
    static final int IOV_LIMIT = 4;
    /** Connection data travels up to 256 bytes (docs/TCP-WIRE.md). */
    static final int CM_DATA_SIZE = 256;
    /** Transmit-side caps: messages, tagged messages, RMA and (JOFI peers only) atomics. */
    static final long TX_CAPS = Fi.FI_MSG | Fi.FI_SEND | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_READ
            | Fi.FI_WRITE;
    /** Receive-side caps: the target of RMA/atomics, multi-receive buffers, directed receives. */
    static final long RX_CAPS = Fi.FI_MSG | Fi.FI_RECV | Fi.FI_SOURCE | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC
            | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_MULTI_RECV | Fi.FI_RMA_EVENT | Fi.FI_DIRECTED_RECV;
    /**
     * The caps of an MSG endpoint (docs/TCP-WIRE.md "JOFI's extension"): atomics work only towards a peer that announced
     * JOFI in the CM handshake (elsewhere {@code -EOPNOTSUPP}, libfabric's tcp wire has none).
     */
    static final long CAPS = TX_CAPS | RX_CAPS | Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM;
    /**
     * The op flags an application may ask as defaults (hints' {@code tx_attr/rx_attr->op_flags}), as
     * libfabric's tcp and rxm offer them: each completion level, inject, completion; multi-receive buffers.
     */
    static final long TX_OP_FLAGS = Fi.FI_INJECT | Fi.FI_INJECT_COMPLETE | Fi.FI_TRANSMIT_COMPLETE
            | Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION;
    static final long RX_OP_FLAGS = Fi.FI_MULTI_RECV | Fi.FI_COMPLETION;

    /**
     * The caps of an RDM endpoint ({@link RxmEndpoint}, rxm over tcp MSG): what it offers of
     * {@link #CAPS} (sends to itself too: {@code FI_LOCAL_COMM}) plus unknown senders as errors (R10).
     */
    static final long RDM_CAPS = (CAPS & (RxmEndpoint.CAPS | Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM)) | Fi.FI_SOURCE_ERR;

    /** The {@code jofi.tcp.*} system properties of {@link TcpSettings}. */
    private static final ProviderSettings<TcpSettings> SETTINGS = new ProviderSettings<>(TcpSettings.class, "jofi.tcp.");

    /** The settings in effect, as given (for {@link #settings()}); the fields below are their clamped values. */
    private volatile TcpSettings settings;
    private volatile int unexpectedBytes;
    private volatile int unexpectedMessages;
    private volatile int socketSendBuffer;
    private volatile int socketReceiveBuffer;
    private volatile int connectionSetupTimeout;
    private volatile int keepAliveIdle;
    private volatile int keepAliveInterval;
    private volatile int keepAliveCount;
    private volatile int progressTimeout;
    private volatile int userTimeout;
    private volatile String iface;
    private volatile PortRange portRange;
    /** The range's ends in effect: the settings', else the environment's (FI_TCP_PORT_*_RANGE). */
    private volatile int portLow;
    private volatile int portHigh;

    /** For DS and {@link java.util.ServiceLoader}: settings from the system properties {@code jofi.tcp.*}. */
    public TcpProvider() {
        fromSystemProperties();
    }

    /**
     * DS: the configured settings; a setting the configuration leaves at its default takes the
     * system property {@code jofi.tcp.<name>} when that is set.
     */
    @Activate
    void activate(TcpSettings configured) {
        apply(SETTINGS.withSystemProperties(configured));
    }

    /**
     * DS: a configuration change, applied without deactivation, so that no open endpoint is
     * shut down (a deactivation departs everything, R15). Every setting is read when the
     * object it shapes is made (its metatype description says which: a connection, an
     * endpoint, a domain or fabric), so objects already open keep what they were made with.
     */
    @Modified
    void modified(TcpSettings configured) {
        apply(SETTINGS.withSystemProperties(configured));
    }

    /** Reads the {@link TcpSettings} of a plain JVM from the system properties {@code jofi.tcp.<name>}. */
    void fromSystemProperties() {
        apply(SETTINGS.fromSystemProperties());
    }

    private void apply(TcpSettings s) {
        unexpectedBytes = Math.max(0, s.unexpectedBytes());
        unexpectedMessages = Math.max(0, s.unexpectedMessages());
        socketSendBuffer = Math.max(0, s.socketSendBuffer());
        socketReceiveBuffer = Math.max(0, s.socketReceiveBuffer());
        connectionSetupTimeout = Math.max(0, s.connectionSetupTimeout());
        keepAliveIdle = Math.max(0, s.keepAliveIdle());
        keepAliveInterval = Math.max(1, s.keepAliveInterval());
        keepAliveCount = Math.max(1, s.keepAliveCount());
        progressTimeout = Math.max(0, s.progressTimeout());
        userTimeout = Math.max(0, s.userTimeout());
        iface = s.iface() == null || s.iface().isBlank() ? environmentIface() : s.iface().trim();
        portLow = s.portLow() != 0 ? s.portLow() : environmentPort(PORT_LOW_VARIABLE);
        portHigh = s.portHigh() != 0 ? s.portHigh() : environmentPort(PORT_HIGH_VARIABLE);
        portRange = PortRange.of(portLow, portHigh);
        settings = s;
    }

    /** libfabric's names of the listener port range, read when the settings leave it at 0. */
    static final String PORT_LOW_VARIABLE = "FI_TCP_PORT_LOW_RANGE";
    static final String PORT_HIGH_VARIABLE = "FI_TCP_PORT_HIGH_RANGE";

    /**
     * The port that environment variable {@code name} gives, 0 when it is unset; a value that is
     * no port (not 1..65535) is ignored with a warning that names it (a provider cannot refuse
     * to start for its environment).
     */
    private static int environmentPort(String name) {
        String env = System.getenv(name);
        if (env == null || env.isBlank()) {
            return 0;
        }
        try {
            int port = Integer.parseInt(env.trim());
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        SafeLog.log(LOG, System.Logger.Level.WARNING, name + "='" + env + "' is not a port (1..65535): ignored", null);
        return 0;
    }

    /** libfabric's {@code FI_TCP_IFACE}, the interface when the {@code iface} setting is empty; "" when unset. */
    private static String environmentIface() {
        String env = System.getenv("FI_TCP_IFACE");
        return env == null ? "" : env.trim();
    }

    /** The settings; {@code iface} as in effect (FI_TCP_IFACE included), {@code userTimeout} says if it is available here. */
    @Override
    public List<ProviderSetting> settings() {
        List<ProviderSetting> out = new ArrayList<>(SETTINGS.describe(settings));
        for (int i = 0; i < out.size(); i++) {
            ProviderSetting p = out.get(i);
            if (p.name().endsWith(".userTimeout")) {
                out.set(i, new ProviderSetting(p.name(), p.type(), p.defaultValue(), p.value(),
                        (p.description().isEmpty() ? "" : p.description() + " ") + "Here: "
                                + TcpUserTimeout.availability() + "."));
            } else if (p.name().endsWith(".iface") && settings.iface().isBlank() && !iface.isEmpty()) {
                out.set(i, new ProviderSetting(p.name(), p.type(), p.defaultValue(), '"' + iface + "\" (FI_TCP_IFACE)",
                        p.description()));
            } else if (p.name().endsWith(".portLow") && settings.portLow() == 0 && portLow != 0) {
                out.set(i, new ProviderSetting(p.name(), p.type(), p.defaultValue(), portLow + " (" + PORT_LOW_VARIABLE + ")",
                        p.description()));
            } else if (p.name().endsWith(".portHigh") && settings.portHigh() == 0 && portHigh != 0) {
                out.set(i, new ProviderSetting(p.name(), p.type(), p.defaultValue(), portHigh + " (" + PORT_HIGH_VARIABLE + ")",
                        p.description()));
            }
        }
        return out;
    }

    /** The ports a listener binds when its service is 0 ({@link TcpSettings#portLow}); {@link PortRange#ANY} when unset. */
    PortRange portRange() {
        return portRange;
    }

    /** {@link TcpSettings#connectionSetupTimeout}, ms (0: off). */
    int connectionSetupTimeoutMillis() {
        return connectionSetupTimeout;
    }

    /** {@link TcpSettings#progressTimeout}, ms (0: off). */
    int progressTimeoutMillis() {
        return progressTimeout;
    }

    /**
     * The data-path options of a connection's socket: {@code TCP_NODELAY} (every frame leaves
     * at once; a header and its payload are one gathering write) and the configured socket
     * buffer sizes ({@link TcpSettings#socketSendBuffer}, {@link TcpSettings#socketReceiveBuffer}),
     * keepalive and {@code TCP_USER_TIMEOUT} ({@link TcpSettings#userTimeout}).
     */
    void configure(java.nio.channels.SocketChannel ch) throws java.io.IOException {
        ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
        int snd = socketSendBuffer;
        if (snd > 0) {
            ch.setOption(java.net.StandardSocketOptions.SO_SNDBUF, snd);
        }
        int rcv = socketReceiveBuffer;
        if (rcv > 0) {
            ch.setOption(java.net.StandardSocketOptions.SO_RCVBUF, rcv);
        }
        KeepAlive.apply(ch, keepAliveIdle, keepAliveInterval, keepAliveCount);
        TcpUserTimeout.apply(ch, userTimeout);
    }

    /**
     * A listening socket's {@code SO_RCVBUF} (inherited by the sockets it accepts; set before
     * {@code bind} so that the window scale of the handshake covers it).
     */
    void configure(java.nio.channels.ServerSocketChannel s) throws java.io.IOException {
        int rcv = socketReceiveBuffer;
        if (rcv > 0) {
            s.setOption(java.net.StandardSocketOptions.SO_RCVBUF, rcv);
        }
    }

    int unexpectedBytes() {
        return unexpectedBytes;
    }

    int unexpectedMessages() {
        return unexpectedMessages;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String version() {
        return VERSION;
    }

    /**
     * One MSG info per address of each interface that is up, loopback first when the
     * destination is a loopback address. {@code node}/{@code service} resolve to
     * {@code srcAddr} with {@code Fi.FI_SOURCE}, to {@code destAddr} otherwise (fi_getinfo(3)).
     *
     * @throws FabricException {@code ENODATA} for a host that does not resolve, {@code EINVAL}
     *         for a service that is not a port number
     */
    @Override
    protected List<Info> offeredInfos(String node, String service, long flags) throws FabricException {
        boolean source = (flags & Fi.FI_SOURCE) != 0;
        InetSocketAddress named = null;
        if (node != null || service != null) {
            named = resolve(node, service, source);
        }
        List<Info> out = new ArrayList<>();
        List<Info> rest = new ArrayList<>();
        for (Local l : locals(iface)) {
            if (source && named != null && !named.getAddress().isAnyLocalAddress()
                    && !named.getAddress().equals(l.address)) {
                continue;
            }
            if (named != null && (named.getAddress() instanceof Inet6Address) != (l.address instanceof Inet6Address)) {
                continue;
            }
            Info info = offer(l);
            if (named != null) {
                byte[] sa = Addresses.toSockaddr(named);
                if (source) {
                    info.srcAddr(sa);
                } else {
                    info.destAddr(sa);
                    info.srcAddr(Addresses.toSockaddr(new InetSocketAddress(l.address, 0)));
                }
            } else {
                info.srcAddr(Addresses.toSockaddr(new InetSocketAddress(l.address, 0)));
            }
            boolean first = named != null && !source && l.contains(named.getAddress());
            (first || (named == null && l.address.isLoopbackAddress()) ? out : rest).add(info);
        }
        out.addAll(rest);
        // One RDM info per address too, after all MSG infos (so MSG stays the first choice).
        int msgInfos = out.size();
        for (int i = 0; i < msgInfos; i++) {
            out.add(rdm(out.get(i)));
        }
        return out;
    }

    /**
     * The RDM info of the same address as an MSG info: the caps the rxm layer offers
     * ({@link #RDM_CAPS}), its inject size (the eager limit) and iov limit, the same attributes otherwise.
     */
    private static Info rdm(Info msg) {
        Info info = msg.copy().caps(msg.caps() & RDM_CAPS | Fi.FI_SOURCE_ERR);
        info.epAttr().type(EpType.RDM);
        info.txAttr().caps(info.txAttr().caps() & RDM_CAPS).injectSize(RxmSettings.defaults().eagerLimit())
                .iovLimit(RxmWireDescriptor.IOV_LIMIT);
        info.rxAttr().caps(info.rxAttr().caps() & RDM_CAPS | Fi.FI_SOURCE_ERR).iovLimit(RxmWireDescriptor.IOV_LIMIT);
        return info;
    }

    /** The rxm layer's sizes for this provider's RDM endpoints: its queue sizes and unexpected limits. */
    RxmSettings rxmSettings() {
        RxmSettings d = RxmSettings.defaults();
        return new RxmSettings(d.eagerLimit(), d.receiveBuffers(), QUEUE_SIZE, QUEUE_SIZE, unexpectedBytes,
                unexpectedMessages, d.msgCqSize(), d.rendezvousByWrite());
    }

    private static InetSocketAddress resolve(String node, String service, boolean source) throws FabricException {
        int port = 0;
        if (service != null) {
            try {
                port = Integer.parseInt(service.trim());
            } catch (NumberFormatException e) {
                throw new FabricException(Errno.EINVAL, "tcp: service '" + service + "' is not a port number");
            }
            if (port < 0 || port > 65535) {
                throw new FabricException(Errno.EINVAL, "tcp: port " + port + " is outside 0..65535");
            }
        }
        try {
            InetAddress a = node == null
                    ? (source ? InetAddress.getByName("0.0.0.0") : InetAddress.getLoopbackAddress())
                    : InetAddress.getByName(node);
            return new InetSocketAddress(a, port);
        } catch (UnknownHostException e) {
            throw new FabricException(Errno.ENODATA, "tcp: cannot resolve host '" + node + "'");
        }
    }

    /** An address of an interface that is up, with its network prefix. */
    private record Local(String ifName, InetAddress address, int prefix) {
        boolean contains(InetAddress a) {
            byte[] x = address.getAddress();
            byte[] y = a.getAddress();
            if (x.length != y.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int m = 0x80 >> (bit & 7);
                if ((x[bit >> 3] & m) != (y[bit >> 3] & m)) {
                    return false;
                }
            }
            return true;
        }

        String network() {
            byte[] b = address.getAddress();
            for (int bit = prefix; bit < b.length * 8; bit++) {
                b[bit >> 3] &= (byte) ~(0x80 >> (bit & 7));
            }
            return numeric(b) + "/" + prefix;
        }
    }

    /** An address as inet_ntop writes it (IPv6 with the longest run of zero groups as "::"). */
    static String numeric(byte[] b) {
        if (b.length == 4) {
            return (b[0] & 0xFF) + "." + (b[1] & 0xFF) + "." + (b[2] & 0xFF) + "." + (b[3] & 0xFF);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF);
        }
        int bestAt = -1;
        int bestLen = 1; // a single zero group is not compressed
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestAt = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /**
     * The addresses of the interfaces that are up; only those of {@code only} when it is not
     * empty ({@link TcpSettings#iface}, as libfabric's {@code FI_TCP_IFACE}).
     *
     * @throws FabricException {@code ENODATA} when {@code only} names no interface that is up with an address
     */
    private static List<Local> locals(String only) throws FabricException {
        List<Local> all = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || (!only.isEmpty() && !only.equals(nif.getName()))) {
                    continue;
                }
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    InetAddress a = ia.getAddress();
                    if (a instanceof Inet4Address || (a instanceof Inet6Address && !a.isLinkLocalAddress())) {
                        all.add(new Local(nif.getName(), a, ia.getNetworkPrefixLength()));
                    }
                }
            }
        } catch (SocketException e) {
            throw new FabricException(Errno.ENODATA, "tcp: cannot list the network interfaces: " + e.getMessage(), e);
        }
        if (all.isEmpty() && !only.isEmpty()) {
            throw new FabricException(Errno.ENODATA, "tcp: the interface '" + only
                    + "' (setting jofi.tcp.iface or FI_TCP_IFACE) is not up or has no address");
        }
        if (all.isEmpty()) {
            all.add(new Local("lo", InetAddress.getLoopbackAddress(), 8));
        }
        // IPv4 first, then IPv6 (as libfabric lists them); the JDK's order within each family
        all.sort(java.util.Comparator.comparingInt(l -> l.address instanceof Inet6Address ? 1 : 0));
        return all;
    }

    private static Info offer(Local l) {
        Info info = new Info()
                .caps(CAPS)
                .addrFormat(l.address instanceof Inet6Address ? AddrFormat.SOCKADDR_IN6 : AddrFormat.SOCKADDR_IN);
        info.epAttr().type(EpType.MSG).protocol(Fi.FI_PROTO_SOCK_TCP).maxMsgSize(MAX_MSG_SIZE).txCtxCnt(1).rxCtxCnt(1);
        info.txAttr().caps(TX_CAPS).opFlags(TX_OP_FLAGS).injectSize(INJECT_SIZE).size(QUEUE_SIZE).iovLimit(IOV_LIMIT)
                .rmaIovLimit(TcpWireDescriptor.MAX_RMA_IOV_COUNT).msgOrder(Fi.FI_ORDER_SAS);
        info.rxAttr().caps(RX_CAPS).opFlags(RX_OP_FLAGS).size(QUEUE_SIZE).iovLimit(IOV_LIMIT)
                .msgOrder(Fi.FI_ORDER_SAS); // one stream, receives matched in order
        info.domainAttr().name(l.ifName).threading(Threading.SAFE)
                .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO)
                // FI_RM_ENABLED, as libfabric's tcp and rxm: posts answer -EAGAIN before a queue or
                // CQ overruns (R6), unexpected messages push back instead of being dropped
                .resourceMgmt(io.jofi.ResourceMgmt.ENABLED)
                .cqDataSize(8).epCnt(8192).cqCnt(256).txCtxCnt(8192).rxCtxCnt(8192)
                .maxEpTxCtx(1).maxEpRxCtx(1).mrIovLimit(1).maxErrData(CM_DATA_SIZE);
        info.fabricAttr().name(l.network()).provName(NAME);
        return info;
    }

    /**
     * {@code fi_fabric}: a tcp fabric.
     *
     * @throws FabricException {@code EINVAL} when {@code attr} names another provider;
     *         {@code ENODEV} after departure (R15)
     */
    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "fabric attributes are required (take them from an Info of getInfo)");
        }
        if (attr.provName() != null && !NAME.equals(attr.provName())) {
            throw new FabricException(Errno.EINVAL, "provider name " + attr.provName() + " is not " + NAME);
        }
        if (resources().isDeparted()) {
            throw new FabricException(Errno.ENODEV, "the tcp provider has departed");
        }
        try {
            return new TcpFabric(attr, context, resources(), this);
        } catch (IllegalStateException departedMeanwhile) {
            throw new FabricException(Errno.ENODEV, "the tcp provider has departed");
        }
    }

    /**
     * The component deactivates: no engine may start, every engine stops (its thread joined),
     * then every object departs (R15: pending operations ECANCELED, connected endpoints
     * FI_SHUTDOWN).
     */
    @Deactivate
    void deactivate() {
        stopEnginesAndDepart();
    }

}
