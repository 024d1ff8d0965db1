package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.spi.util.AddressResolver;
import java.nio.charset.StandardCharsets;

/**
 * The {@link AddressResolver} of shm AVs: addresses are {@code FI_ADDR_STR}
 * {@code fi_shm://<name>} with a terminating NUL, where {@code <name>} is an endpoint's region
 * name ({@link ShmNames}).
 *
 * <ul>
 * <li>{@link #resolve}: {@code insertSvc(node, service)} takes a node that is a whole
 *     {@code fi_shm://} address (service null), or a bare region name; or, as
 *     {@code getInfo} does, a service S with no node or a node naming this host: the
 *     endpoint {@code svc-S} (README "Node and service").</li>
 * <li>{@link #validate}: the text must be {@code fi_shm://} followed by a valid region name;
 *     whether the endpoint exists is found out on first use (peers are mapped lazily).</li>
 * </ul>
 */
final class ShmAddressResolver implements AddressResolver {
    @Override
    public byte[] resolve(String node, String service) throws FabricException {
        if (service != null && !service.isEmpty() && (node == null || ShmProvider.isLocalHost(node))) {
            String named = ShmNames.serviceName(service);
            if (named == null) {
                throw new FabricException(Errno.EINVAL, "insertSvc: service '" + service + "' cannot name an endpoint: "
                        + ShmNames.SERVICE_PREFIX + "<service> must be " + ShmNames.NAME_RULE);
            }
            return ShmNames.address(named);
        }
        if (node == null) {
            throw new FabricException(Errno.EINVAL, "insertSvc: the node is null; give an fi_shm://<name> address");
        }
        String name = node.startsWith(ShmNames.SCHEME) ? node.substring(ShmNames.SCHEME.length()) : node;
        if (service != null && !service.isEmpty()) {
            throw new FabricException(Errno.EINVAL, "insertSvc: shm addresses have no service part, got service '"
                    + service + "' for node '" + node + "'");
        }
        if (!ShmNames.isValidName(name)) {
            throw new FabricException(Errno.EINVAL, "insertSvc: '" + node + "' is not an shm endpoint name ("
                    + ShmNames.NAME_RULE + ")");
        }
        return ShmNames.address(name);
    }

    @Override
    public int validate(byte[] addr) {
        return ShmNames.nameOf(addr) == null ? -Errno.EINVAL : 0;
    }

    /** For messages: the address as text. */
    static String text(byte[] addr) {
        int n = addr.length;
        while (n > 0 && addr[n - 1] == 0) {
            n--;
        }
        return new String(addr, 0, n, StandardCharsets.US_ASCII);
    }
}
