package io.jofi.provider.verbs;

import com.sun.jna.Pointer;
import io.jofi.Addresses;
import io.jofi.provider.verbs.binding.IbvContextDescriptor;
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which IPv4 addresses of this host rdma_cm maps to an RDMA device, found as libfabric's verbs
 * provider finds them: bind a synchronous rdma_cm id to each address and read which device
 * context ({@code id->verbs}) it landed on. These become the infos' source addresses, so that
 * a passive endpoint listens on an address peers can connect to.
 */
final class DeviceAddresses {
    private DeviceAddresses() {
    }

    /** The IPv4 addresses (sockaddr_in, port 0) whose rdma_cm binding lands on {@code device}. */
    static List<byte[]> of(String device) {
        List<byte[]> out = new ArrayList<>();
        if (io.jofi.provider.verbs.binding.VerbsLibraries.load() != null) {
            return out;
        }
        List<InetAddress> candidates = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp()) {
                    continue;
                }
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    if (ia.getAddress() instanceof Inet4Address) {
                        candidates.add(ia.getAddress());
                    }
                }
            }
        } catch (SocketException e) {
            return out;
        }
        try (NativeBlock idOut = new NativeBlock(8); NativeBlock sa = new NativeBlock(128)) {
            for (InetAddress a : candidates) {
                if (Rdmacm.rdma_create_id(0, idOut.address(), 0, VerbsConstants.RDMA_PS_TCP) != 0) {
                    return out;
                }
                long id = idOut.view().getLong(0);
                try {
                    byte[] s = Addresses.toSockaddr(new InetSocketAddress(a, 0));
                    Sockaddrs.put(s, sa);
                    if (Rdmacm.rdma_bind_addr(id, sa.address()) == 0) {
                        long ctx = new Pointer(id).getLong(RdmaCmIdDescriptor.VERBS);
                        if (ctx != 0) {
                            long dev = new Pointer(ctx).getLong(IbvContextDescriptor.DEVICE);
                            if (device.equals(Ibv.ibv_get_device_name(dev))) {
                                out.add(s);
                            }
                        }
                    }
                } finally {
                    Rdmacm.rdma_destroy_id(id);
                }
            }
        }
        return out;
    }
}
