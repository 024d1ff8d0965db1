package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/** A fabric: the root of a provider's objects ({@code fi_fabric}). */
@ProviderType
public interface Fabric extends Fid {
    /** {@code fi_domain}: opens a domain for {@code info} (an {@code Info} of this provider). */
    Domain domain(Info info, Object context) throws FabricException;

    /** {@code fi_passive_ep}: a listening endpoint for MSG connections. */
    PassiveEndpoint passiveEndpoint(Info info, Object context) throws FabricException;

    /** {@code fi_eq_open}: an event queue (fi_eq(3)). */
    EventQueue openEq(EqAttr attr, Object context) throws FabricException;

    /** {@code fi_wait_open}: a wait set that CQs, EQs and counters may signal. */
    WaitSet openWaitSet(WaitAttr attr) throws FabricException;

    /**
     * {@code fi_trywait}: whether it is safe to block on the wait objects of {@code fids}.
     *
     * @return {@code 0} when none of them has anything to read (block now), {@code -EAGAIN}
     *         when one has (read it first), {@code -EINVAL} for an object without a wait
     *         object
     */
    int tryWait(Fid... fids);
}
