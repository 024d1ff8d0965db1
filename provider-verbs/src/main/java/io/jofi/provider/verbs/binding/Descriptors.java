package io.jofi.provider.verbs.binding;

import java.util.List;

/** Every struct layout the binding relies on, for the ABI check (one entry per descriptor class). */
public final class Descriptors {
    /** All layouts, in the order the ABI check prints them. */
    public static final List<StructLayout> ALL = List.of(
            IbvContextDescriptor.LAYOUT, IbvDeviceDescriptor.LAYOUT, IbvDeviceAttrDescriptor.LAYOUT,
            IbvPortAttrDescriptor.LAYOUT, IbvCompChannelDescriptor.LAYOUT, IbvCqDescriptor.LAYOUT,
            IbvPdDescriptor.LAYOUT, IbvMrDescriptor.LAYOUT, IbvQpDescriptor.LAYOUT, IbvSgeDescriptor.LAYOUT,
            IbvSendWrDescriptor.LAYOUT, IbvRecvWrDescriptor.LAYOUT, IbvWcDescriptor.LAYOUT,
            IbvQpInitAttrDescriptor.LAYOUT, RdmaCmIdDescriptor.LAYOUT, RdmaEventChannelDescriptor.LAYOUT,
            RdmaCmEventDescriptor.LAYOUT, RdmaConnParamDescriptor.LAYOUT, PollFdDescriptor.LAYOUT, IbvAsyncEventDescriptor.LAYOUT);

    private Descriptors() {
    }
}
