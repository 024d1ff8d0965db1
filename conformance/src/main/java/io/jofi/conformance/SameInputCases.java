package io.jofi.conformance;

import io.jofi.Endpoint;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The call table of {@link SameInputConformance}: for each bad input, every data-path call that
 * takes it, made on side a of a pair, as a named {@link Case}. Valid arguments everywhere else
 * (registered buffers where the domain needs them, side b's region as the RMA and atomic
 * target), so that the one bad input is what the provider answers.
 */
final class SameInputCases {
    /** Bit 22: no libfabric flag uses it ({@code FI_PRIORITY} was withdrawn). */
    static final long UNKNOWN_FLAG = 1L << 22;
    /** The tag of every tagged call. */
    static final long TAG = 7;

    /**
     * One call with the bad input: its name, the caps it needs (the case is skipped without
     * them), whether it carries remote CQ data (skipped where {@code cq_data_size} is 0), and
     * whether its answer lands on the transmit side (else the receive side).
     */
    record Case(String name, long needs, boolean data, boolean transmit, IntSupplier call) {
    }

    private final Endpoint ep;
    private final long dest;
    private final MemoryRegion mr;
    private final ByteBuffer out;
    private final MemoryRegion outDesc;
    private final ByteBuffer in;
    private final MemoryRegion inDesc;
    private final ByteBuffer result;
    private final MemoryRegion resultDesc;

    /**
     * @param ep   side a's endpoint
     * @param dest where the transmit calls go (side b's fi_addr, or an address not in the AV)
     * @param mr   side b's region, the target of RMA and atomics (null without RMA and atomics)
     * @param out  a valid 64-byte source buffer and its descriptor
     * @param in   a valid 64-byte landing buffer and its descriptor
     * @param result a valid 8-byte atomic result buffer and its descriptor
     */
    SameInputCases(Endpoint ep, long dest, MemoryRegion mr, ByteBuffer out, MemoryRegion outDesc, ByteBuffer in,
                   MemoryRegion inDesc, ByteBuffer result, MemoryRegion resultDesc) {
        this.ep = ep;
        this.dest = dest;
        this.mr = mr;
        this.out = out;
        this.outDesc = outDesc;
        this.in = in;
        this.inDesc = inDesc;
        this.result = result;
        this.resultDesc = resultDesc;
    }

    private long addr() {
        return mr == null ? 0 : mr.address();
    }

    private long key() {
        return mr == null ? 0 : mr.key();
    }

    private static ByteBuffer readOnly(int n) {
        return ByteBuffer.allocateDirect(n).order(ByteOrder.nativeOrder()).asReadOnlyBuffer();
    }

    private Msg msg(ByteBuffer b, MemoryRegion d, long addr) {
        return new Msg().buffer(b, d).addr(addr).context("bad-msg");
    }

    private TaggedMsg tmsg(ByteBuffer b, MemoryRegion d, long addr) {
        TaggedMsg m = new TaggedMsg();
        m.buffer(b, d).addr(addr).context("bad-tmsg");
        m.tag(TAG).ignore(0);
        return m;
    }

    private RmaMsg rmsg(ByteBuffer b, MemoryRegion d, long length) {
        RmaMsg m = new RmaMsg();
        m.buffer(b, d).addr(dest).context("bad-rmsg");
        m.rma(addr(), length, key());
        return m;
    }

    private static final long MSG = Fi.FI_MSG;
    private static final long TAGGED = Fi.FI_TAGGED;
    private static final long RMA = Fi.FI_RMA;
    private static final long ATOMIC = Fi.FI_ATOMIC;

    private static void add(List<Case> l, String name, long needs, boolean data, boolean transmit, IntSupplier call) {
        l.add(new Case(name, needs, data, transmit, call));
    }

    // =================================================================== the inputs

    /** Every transmit call with valid arguments, to {@link #dest}: for a closed endpoint, an unbound CQ, an unknown address. */
    List<Case> transmits(boolean withInjects) {
        List<Case> l = new ArrayList<>();
        add(l, "send", MSG, false, true, () -> ep.send(out, outDesc, dest, "send"));
        add(l, "sendData", MSG, true, true, () -> ep.sendData(out, outDesc, 5, dest, "sendData"));
        add(l, "sendMsg", MSG, false, true, () -> ep.sendMsg(msg(out, outDesc, dest), 0));
        add(l, "tsend", TAGGED, false, true, () -> ep.tsend(out, outDesc, dest, TAG, "tsend"));
        add(l, "tsendData", TAGGED, true, true, () -> ep.tsendData(out, outDesc, 5, dest, TAG, "tsendData"));
        add(l, "tsendMsg", TAGGED, false, true, () -> ep.tsendMsg(tmsg(out, outDesc, dest), 0));
        add(l, "read", RMA, false, true, () -> ep.read(in, inDesc, dest, addr(), key(), "read"));
        add(l, "readMsg", RMA, false, true, () -> ep.readMsg(rmsg(in, inDesc, 64), 0));
        add(l, "write", RMA, false, true, () -> ep.write(out, outDesc, dest, addr(), key(), "write"));
        add(l, "writeData", RMA, true, true, () -> ep.writeData(out, outDesc, 5, dest, addr(), key(), "writeData"));
        add(l, "writeMsg", RMA, false, true, () -> ep.writeMsg(rmsg(out, outDesc, 64), 0));
        add(l, "atomic", ATOMIC, false, true, () -> ep.atomic(1, dest, addr(), key(), Fi.FI_SUM, "atomic"));
        add(l, "fetchAtomic", ATOMIC, false, true,
                () -> ep.fetchAtomic(1, result, resultDesc, dest, addr(), key(), Fi.FI_SUM, "fetchAtomic"));
        add(l, "compareAtomic", ATOMIC, false, true,
                () -> ep.compareAtomic(0, 1, result, resultDesc, dest, addr(), key(), "compareAtomic"));
        if (withInjects) {
            ByteBuffer small = out.duplicate().limit(8);
            add(l, "inject", MSG, false, true, () -> ep.inject(small, dest));
            add(l, "injectData", MSG, true, true, () -> ep.injectData(small, 5, dest));
            add(l, "tinject", TAGGED, false, true, () -> ep.tinject(small, dest, TAG));
            add(l, "injectWrite", RMA, false, true, () -> ep.injectWrite(small, dest, addr(), key()));
        }
        return l;
    }

    /** Every receive call with valid arguments: for a closed endpoint and an unbound CQ. */
    List<Case> receives() {
        List<Case> l = new ArrayList<>();
        add(l, "recv", MSG, false, false, () -> ep.recv(in, inDesc, Fi.FI_ADDR_UNSPEC, "recv"));
        add(l, "recvMsg", MSG, false, false, () -> ep.recvMsg(msg(in, inDesc, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "trecv", TAGGED, false, false, () -> ep.trecv(in, inDesc, Fi.FI_ADDR_UNSPEC, TAG, 0, "trecv"));
        add(l, "trecvMsg", TAGGED, false, false, () -> ep.trecvMsg(tmsg(in, inDesc, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "trecvMsg(FI_PEEK)", TAGGED, false, false,
                () -> ep.trecvMsg(tmsg(in, inDesc, Fi.FI_ADDR_UNSPEC), Fi.FI_PEEK));
        return l;
    }

    /** An inject above {@code inject_size}: every call that injects. */
    List<Case> oversizedInject(long injectSize) {
        ByteBuffer over = ByteBuffer.allocateDirect((int) injectSize + 1);
        List<Case> l = new ArrayList<>();
        add(l, "inject", MSG, false, true, () -> ep.inject(over, dest));
        add(l, "injectData", MSG, true, true, () -> ep.injectData(over, 5, dest));
        add(l, "sendMsg(FI_INJECT)", MSG, false, true, () -> ep.sendMsg(msg(over, null, dest), Fi.FI_INJECT));
        add(l, "tinject", TAGGED, false, true, () -> ep.tinject(over, dest, TAG));
        add(l, "tsendMsg(FI_INJECT)", TAGGED, false, true, () -> ep.tsendMsg(tmsg(over, null, dest), Fi.FI_INJECT));
        add(l, "injectWrite", RMA, false, true, () -> ep.injectWrite(over, dest, addr(), key()));
        add(l, "writeMsg(FI_INJECT)", RMA, false, true,
                () -> ep.writeMsg(rmsg(over, null, injectSize + 1), Fi.FI_INJECT));
        return l;
    }

    /** One iov more than {@code iov_limit} (and one RMA segment more than {@code rma_iov_limit}). */
    List<Case> tooManyIovs(int iovLimit, int rmaIovLimit) {
        int n = iovLimit + 1;
        List<Case> l = new ArrayList<>();
        add(l, "sendMsg", MSG, false, true, () -> ep.sendMsg(fill(new Msg(n), n, dest), 0));
        add(l, "tsendMsg", TAGGED, false, true, () -> ep.tsendMsg(tagged(fill(new TaggedMsg(n), n, dest)), 0));
        add(l, "recvMsg", MSG, false, false, () -> ep.recvMsg(fill(new Msg(n), n, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "trecvMsg", TAGGED, false, false,
                () -> ep.trecvMsg(tagged(fill(new TaggedMsg(n), n, Fi.FI_ADDR_UNSPEC)), 0));
        add(l, "readMsg", RMA, false, true, () -> ep.readMsg(fill(new RmaMsg(n), n, dest).rma(addr(), 8L * n, key()), 0));
        add(l, "writeMsg", RMA, false, true,
                () -> ep.writeMsg(fill(new RmaMsg(n), n, dest).rma(addr(), 8L * n, key()), 0));
        if (rmaIovLimit > 0) {
            int r = rmaIovLimit + 1;
            add(l, "readMsg (rma_iov_limit + 1 segments)", RMA, false, true, () -> ep.readMsg(segments(r), 0));
            add(l, "writeMsg (rma_iov_limit + 1 segments)", RMA, false, true, () -> ep.writeMsg(segments(r), 0));
        }
        return l;
    }

    private static <M extends Msg> M fill(M m, int n, long addr) {
        for (int i = 0; i < n; i++) {
            m.iov(i, ByteBuffer.allocateDirect(8), null);
        }
        m.iovCount(n).addr(addr).context("many-iovs");
        return m;
    }

    private static TaggedMsg tagged(TaggedMsg m) {
        return m.tag(TAG).ignore(0);
    }

    private RmaMsg segments(int r) {
        RmaMsg m = new RmaMsg(r);
        m.buffer(ByteBuffer.allocateDirect(8 * r), null).addr(dest).context("many-segments");
        m.rmaIovCount(r);
        for (int i = 0; i < r; i++) {
            m.rmaIov(i, addr() + 8L * i, 8, key());
        }
        return m;
    }

    /** A null buffer, message or iov where a call needs one. */
    List<Case> nullBuffer() {
        List<Case> l = new ArrayList<>();
        add(l, "send", MSG, false, true, () -> ep.send(null, null, dest, "null"));
        add(l, "sendData", MSG, true, true, () -> ep.sendData(null, null, 5, dest, "null"));
        add(l, "inject", MSG, false, true, () -> ep.inject(null, dest));
        add(l, "injectData", MSG, true, true, () -> ep.injectData(null, 5, dest));
        add(l, "sendMsg(null)", MSG, false, true, () -> ep.sendMsg(null, 0));
        add(l, "sendMsg(null iov)", MSG, false, true, () -> ep.sendMsg(new Msg().iovCount(1).addr(dest), 0));
        add(l, "tsend", TAGGED, false, true, () -> ep.tsend(null, null, dest, TAG, "null"));
        add(l, "tsendData", TAGGED, true, true, () -> ep.tsendData(null, null, 5, dest, TAG, "null"));
        add(l, "tinject", TAGGED, false, true, () -> ep.tinject(null, dest, TAG));
        add(l, "tsendMsg(null)", TAGGED, false, true, () -> ep.tsendMsg(null, 0));
        add(l, "recv", MSG, false, false, () -> ep.recv(null, null, Fi.FI_ADDR_UNSPEC, "null"));
        add(l, "recvMsg(null)", MSG, false, false, () -> ep.recvMsg(null, 0));
        add(l, "recvMsg(null iov)", MSG, false, false, () -> ep.recvMsg(new Msg().iovCount(1), 0));
        add(l, "trecv", TAGGED, false, false, () -> ep.trecv(null, null, Fi.FI_ADDR_UNSPEC, TAG, 0, "null"));
        add(l, "trecvMsg(null)", TAGGED, false, false, () -> ep.trecvMsg(null, 0));
        add(l, "read", RMA, false, true, () -> ep.read(null, null, dest, addr(), key(), "null"));
        add(l, "readMsg(null)", RMA, false, true, () -> ep.readMsg(null, 0));
        add(l, "write", RMA, false, true, () -> ep.write(null, null, dest, addr(), key(), "null"));
        add(l, "writeData", RMA, true, true, () -> ep.writeData(null, null, 5, dest, addr(), key(), "null"));
        add(l, "injectWrite", RMA, false, true, () -> ep.injectWrite(null, dest, addr(), key()));
        add(l, "writeMsg(null)", RMA, false, true, () -> ep.writeMsg(null, 0));
        add(l, "fetchAtomic(null result)", ATOMIC, false, true,
                () -> ep.fetchAtomic(1, null, null, dest, addr(), key(), Fi.FI_SUM, "null"));
        add(l, "compareAtomic(null result)", ATOMIC, false, true,
                () -> ep.compareAtomic(0, 1, null, null, dest, addr(), key(), "null"));
        return l;
    }

    /** A read-only buffer where the provider would write: every receive, RMA read and fetching atomic. */
    List<Case> readOnlyTarget() {
        ByteBuffer ro = readOnly(64);
        ByteBuffer ro8 = readOnly(8);
        List<Case> l = new ArrayList<>();
        add(l, "recv", MSG, false, false, () -> ep.recv(ro, null, Fi.FI_ADDR_UNSPEC, "ro"));
        add(l, "recvMsg", MSG, false, false, () -> ep.recvMsg(msg(ro, null, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "trecv", TAGGED, false, false, () -> ep.trecv(ro, null, Fi.FI_ADDR_UNSPEC, TAG, 0, "ro"));
        add(l, "trecvMsg", TAGGED, false, false, () -> ep.trecvMsg(tmsg(ro, null, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "trecvMsg(FI_PEEK)", TAGGED, false, false,
                () -> ep.trecvMsg(tmsg(ro, null, Fi.FI_ADDR_UNSPEC), Fi.FI_PEEK));
        add(l, "trecvMsg(FI_PEEK|FI_CLAIM)", TAGGED, false, false,
                () -> ep.trecvMsg(tmsg(ro, null, Fi.FI_ADDR_UNSPEC), Fi.FI_PEEK | Fi.FI_CLAIM));
        add(l, "read", RMA, false, true, () -> ep.read(ro, null, dest, addr(), key(), "ro"));
        add(l, "readMsg", RMA, false, true, () -> ep.readMsg(rmsg(ro, null, 64), 0));
        add(l, "fetchAtomic", ATOMIC, false, true,
                () -> ep.fetchAtomic(1, ro8, null, dest, addr(), key(), Fi.FI_SUM, "ro"));
        add(l, "compareAtomic", ATOMIC, false, true,
                () -> ep.compareAtomic(0, 1, ro8, null, dest, addr(), key(), "ro"));
        return l;
    }

    /** A buffer one byte above {@code max_msg_size}: every send, receive and RMA. */
    List<Case> overMaxMsgSize(long max) {
        ByteBuffer big = SparseBuffers.of(max + 1);
        List<Case> l = new ArrayList<>();
        add(l, "send", MSG, false, true, () -> ep.send(big, null, dest, "big"));
        add(l, "sendData", MSG, true, true, () -> ep.sendData(big, null, 5, dest, "big"));
        add(l, "sendMsg", MSG, false, true, () -> ep.sendMsg(msg(big, null, dest), 0));
        add(l, "tsend", TAGGED, false, true, () -> ep.tsend(big, null, dest, TAG, "big"));
        add(l, "tsendData", TAGGED, true, true, () -> ep.tsendData(big, null, 5, dest, TAG, "big"));
        add(l, "tsendMsg", TAGGED, false, true, () -> ep.tsendMsg(tmsg(big, null, dest), 0));
        add(l, "recv", MSG, false, false, () -> ep.recv(big, null, Fi.FI_ADDR_UNSPEC, "big"));
        add(l, "recvMsg", MSG, false, false, () -> ep.recvMsg(msg(big, null, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "trecv", TAGGED, false, false, () -> ep.trecv(big, null, Fi.FI_ADDR_UNSPEC, TAG, 0, "big"));
        add(l, "trecvMsg", TAGGED, false, false, () -> ep.trecvMsg(tmsg(big, null, Fi.FI_ADDR_UNSPEC), 0));
        add(l, "read", RMA, false, true, () -> ep.read(big, null, dest, addr(), key(), "big"));
        add(l, "readMsg", RMA, false, true, () -> ep.readMsg(rmsg(big, null, max + 1), 0));
        add(l, "write", RMA, false, true, () -> ep.write(big, null, dest, addr(), key(), "big"));
        add(l, "writeData", RMA, true, true, () -> ep.writeData(big, null, 5, dest, addr(), key(), "big"));
        add(l, "writeMsg", RMA, false, true, () -> ep.writeMsg(rmsg(big, null, max + 1), 0));
        return l;
    }

    /** A flag bit no call takes: every {@code *Msg} call. */
    List<Case> unknownFlag() {
        List<Case> l = new ArrayList<>();
        add(l, "sendMsg", MSG, false, true, () -> ep.sendMsg(msg(out, outDesc, dest), UNKNOWN_FLAG));
        add(l, "tsendMsg", TAGGED, false, true, () -> ep.tsendMsg(tmsg(out, outDesc, dest), UNKNOWN_FLAG));
        add(l, "recvMsg", MSG, false, false, () -> ep.recvMsg(msg(in, inDesc, Fi.FI_ADDR_UNSPEC), UNKNOWN_FLAG));
        add(l, "trecvMsg", TAGGED, false, false,
                () -> ep.trecvMsg(tmsg(in, inDesc, Fi.FI_ADDR_UNSPEC), UNKNOWN_FLAG));
        add(l, "readMsg", RMA, false, true, () -> ep.readMsg(rmsg(in, inDesc, 64), UNKNOWN_FLAG));
        add(l, "writeMsg", RMA, false, true, () -> ep.writeMsg(rmsg(out, outDesc, 64), UNKNOWN_FLAG));
        return l;
    }
}
