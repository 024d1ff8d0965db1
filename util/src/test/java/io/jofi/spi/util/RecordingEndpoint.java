package io.jofi.spi.util;

import io.jofi.FabricException;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A test double of a provider endpoint on {@link UtilEndpoint}: each funnel records its
 * arguments and answers 0, so that a test sees which funnel a call reached and with what.
 */
final class RecordingEndpoint extends UtilEndpoint {
    /** One funnel call: its name and arguments (unused ones 0 or null). */
    record Call(String funnel, ByteBuffer buf, Msg msg, long length, long addr, boolean tagged, long tag, long extra,
                long flags, Object context, int op, long operand, long compare, ByteBuffer result, long remoteAddr,
                long key, boolean read) {
    }

    final List<Call> calls = new ArrayList<>();
    /** False: funnels only count (an allocation test measures the base class, not this double). */
    boolean recording = true;
    long funnelCalls;
    final List<Long> boundFlags = new ArrayList<>();
    /** The registration (desc, resultDesc) each recorded funnel call carried, in call order. */
    final List<MemoryRegion> descs = new ArrayList<>();

    RecordingEndpoint(ProgressEngine engine, Limits limits) {
        super("ep", engine, EndpointBindings.ALL_COUNTER_ROLES, limits);
    }

    Call only() {
        if (calls.size() != 1) {
            throw new AssertionError("expected one funnel call, got " + calls);
        }
        return calls.get(0);
    }

    @Override
    protected int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr, boolean tagged,
                           long tag, long data, long flags, Object context) {
        funnelCalls++;
        if (recording) {
            descs.add(desc);
            calls.add(new Call("send", buf, msg, length, destAddr, tagged, tag, data, flags, context, 0, 0, 0, null, 0, 0,
                false));
        }
        return 0;
    }

    @Override
    protected int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged, long tag,
                           long ignore, long flags, Object context) {
        funnelCalls++;
        if (recording) {
            descs.add(desc);
            calls.add(new Call("recv", buf, msg, 0, srcAddr, tagged, tag, ignore, flags, context, 0, 0, 0, null, 0, 0,
                false));
        }
        return 0;
    }

    @Override
    protected int postPeek(TaggedMsg msg, long flags) {
        funnelCalls++;
        if (recording) {
            calls.add(new Call("peek", null, msg, 0, 0, true, 0, 0, flags, null, 0, 0, 0, null, 0, 0, false));
        }
        return 0;
    }

    @Override
    protected int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr,
                          long addr, long key, long data, long flags, Object context) {
        funnelCalls++;
        if (recording) {
            descs.add(desc);
            calls.add(new Call("rma", buf, msg, length, peerAddr, false, 0, data, flags, context, 0, 0, 0, null, addr, key,
                read));
        }
        return 0;
    }

    @Override
    protected int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc,
                             long destAddr, long addr, long key, long flags, Object context) {
        funnelCalls++;
        if (recording) {
            descs.add(resultDesc);
            calls.add(new Call("atomic", null, null, 0, destAddr, false, 0, 0, flags, context, op, operand, compare, result,
                addr, key, false));
        }
        return 0;
    }

    @Override
    protected void onBind(io.jofi.Fid fid, long flags) {
        boundFlags.add(flags);
    }

    @Override
    protected void onClose() {
        releaseBindings(this);
    }

    // ---- the control calls are not the unit here

    @Override
    public void enable() throws FabricException {
        sealBindings();
    }

    @Override
    public byte[] getName() {
        return new byte[0];
    }

    @Override
    public byte[] getPeer() {
        return new byte[0];
    }

    @Override
    public void connect(byte[] addr, byte[] param) {
    }

    @Override
    public void accept(byte[] param) {
    }

    @Override
    public void shutdown(long flags) {
    }

    @Override
    public int cancel(Object context) {
        return 0;
    }

    @Override
    public long getOpt(int level, int name) {
        return 0;
    }

    @Override
    public void setOpt(int level, int name, long value) {
    }
}
