package io.jofi.provider.verbs;

import com.sun.jna.Native;
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.IbvDeviceAttrDescriptor;
import io.jofi.provider.verbs.binding.IbvDeviceDescriptor;
import io.jofi.provider.verbs.binding.IbvPortAttrDescriptor;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.provider.verbs.binding.VerbsLibraries;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The availability check of the verbs provider: the libraries load, a device is listed, one
 * of its ports is active. Every failure becomes the reason the provider reports (docs/VERBS.md "Availability"), never an exception.
 *
 * @param ports  the active ports found (empty when unavailable)
 * @param reason {@code null} when at least one port is active, otherwise why the provider is unavailable
 */
record DeviceScan(List<ActivePort> ports, String reason) {
    /** Whether the provider can work here. */
    boolean available() {
        return reason == null;
    }

    /** Loads the libraries and scans every device's ports. */
    static DeviceScan scan() {
        String failure = VerbsLibraries.load();
        if (failure != null) {
            return new DeviceScan(List.of(), failure);
        }
        try (NativeBlock count = new NativeBlock(8)) {
            long list = Ibv.ibv_get_device_list(count.address());
            if (list == 0) {
                int errno = Native.getLastError();
                return new DeviceScan(List.of(), "no RDMA device: ibv_get_device_list failed (errno " + errno
                        + (errno == 38 ? ", ENOSYS: the kernel has no RDMA support" : "") + ")");
            }
            try {
                int n = count.view().getInt(0);
                if (n == 0) {
                    return new DeviceScan(List.of(), "no RDMA device (ibv_get_device_list found none)");
                }
                List<ActivePort> ports = new ArrayList<>();
                List<String> inactive = new ArrayList<>();
                ByteBuffer devices = new com.sun.jna.Pointer(list).getByteBuffer(0, 8L * n)
                        .order(java.nio.ByteOrder.nativeOrder());
                for (int i = 0; i < n; i++) {
                    scanDevice(devices.getLong(8 * i), ports, inactive);
                }
                if (ports.isEmpty()) {
                    return new DeviceScan(List.of(), "no active port on any RDMA device: " + String.join(", ", inactive));
                }
                return new DeviceScan(List.copyOf(ports), null);
            } finally {
                Ibv.ibv_free_device_list(list);
            }
        } catch (LinkageError | RuntimeException e) {
            return new DeviceScan(List.of(), "the device scan failed: " + e);
        }
    }

    private static void scanDevice(long device, List<ActivePort> ports, List<String> inactive) {
        String name = Ibv.ibv_get_device_name(device);
        long ctx = Ibv.ibv_open_device(device);
        if (ctx == 0) {
            inactive.add(name + " cannot be opened (errno " + Native.getLastError() + ")");
            return;
        }
        try (NativeBlock devAttr = new NativeBlock(IbvDeviceAttrDescriptor.SIZE);
             NativeBlock portAttr = new NativeBlock(IbvPortAttrDescriptor.SIZE)) {
            if (Ibv.ibv_query_device(ctx, devAttr.address()) != 0) {
                inactive.add(name + ": ibv_query_device failed (errno " + Native.getLastError() + ")");
                return;
            }
            ByteBuffer d = devAttr.view();
            boolean iwarp = new com.sun.jna.Pointer(device).getInt(IbvDeviceDescriptor.TRANSPORT_TYPE)
                    == VerbsConstants.IBV_TRANSPORT_IWARP;
            int portCount = d.get(IbvDeviceAttrDescriptor.PHYS_PORT_CNT) & 0xFF;
            for (int port = 1; port <= portCount; port++) {
                portAttr.clear();
                if (Ibv.ibv_query_port(ctx, (byte) port, portAttr.address()) != 0) {
                    inactive.add(name + " port " + port + ": ibv_query_port failed (errno " + Native.getLastError() + ")");
                    continue;
                }
                ByteBuffer p = portAttr.view();
                int state = p.getInt(IbvPortAttrDescriptor.STATE);
                if (state != VerbsConstants.IBV_PORT_ACTIVE) {
                    inactive.add(name + " port " + port + " is not active (state " + state + ")");
                    continue;
                }
                ports.add(new ActivePort(name, port, iwarp,
                        p.get(IbvPortAttrDescriptor.LINK_LAYER) == VerbsConstants.IBV_LINK_LAYER_ETHERNET,
                        d.getInt(IbvDeviceAttrDescriptor.MAX_QP_WR), d.getInt(IbvDeviceAttrDescriptor.MAX_SGE),
                        d.getInt(IbvDeviceAttrDescriptor.MAX_CQE), p.getInt(IbvPortAttrDescriptor.MAX_MSG_SZ) & 0xFFFFFFFFL,
                        d.getInt(IbvDeviceAttrDescriptor.MAX_QP_RD_ATOM),
                        d.getInt(IbvDeviceAttrDescriptor.ATOMIC_CAP) != VerbsConstants.IBV_ATOMIC_NONE));
            }
        } finally {
            Ibv.ibv_close_device(ctx);
        }
    }
}
