package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/** A passive (listening) endpoint for MSG connections ({@code fi_passive_ep}). */
@ProviderType
public interface PassiveEndpoint extends Fid {
    /** Binds the EQ that receives {@code FI_CONNREQ} events. */
    void bind(EventQueue eq, long flags) throws FabricException;

    /** {@code fi_listen}. */
    void listen() throws FabricException;

    /** {@code fi_getname}: the address peers connect to. */
    byte[] getName() throws FabricException;

    /** {@code fi_reject}: the active side gets an {@code ECONNREFUSED} error event with {@code param} (R14). */
    void reject(ConnReq handle, byte[] param) throws FabricException;
}
