package io.jofi.spi.util;

import io.jofi.FabricException;

/**
 * What a provider tells its {@link UtilAddressVector}: how {@code fi_av_insertsvc} turns a
 * node and service into a raw address, and which raw addresses the provider can reach
 * ({@code fi_av_insert} validates every entry, fi_av(3)). Both are control-path calls.
 */
public interface AddressResolver {
    /**
     * {@code fi_av_insertsvc}: the raw address, in the AV's format, of {@code node} and
     * {@code service}.
     *
     * @throws FabricException with the errno the insert reports ({@code EINVAL} for a
     *         malformed name, {@code EADDRNOTAVAIL} for a name that does not resolve), and a
     *         message that names the node and service
     */
    byte[] resolve(String node, String service) throws FabricException;

    /**
     * Checks one raw address of an insert, after the AV has checked it is non-empty and of the
     * AV's format.
     *
     * @return 0 when the provider can use it, {@code -EINVAL} when not
     */
    int validate(byte[] addr);
}
