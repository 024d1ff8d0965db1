package io.jofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * docs/API.md's names are binding: code outside this repo compiles against them. {@link #spelling}
 * spells every call of docs/API.md exactly as written there, so a renamed method or a changed
 * signature breaks this test's compilation; the tests check the numbers docs/API.md fixes.
 */
class ApiSurfaceTest {

    /** Never run: it only has to compile. */
    @SuppressWarnings({"unused", "resource"})
    static void spelling(Fabrics fabrics, Fabric fabric, Domain domain, Endpoint ep, PassiveEndpoint pep,
                         CompletionQueue cq, EventQueue eq, Counter cntr, AddressVector av, MemoryRegion mr,
                         WaitSet ws, PollSet ps, ConnReq handle, ProviderListener listener) throws FabricException {
        List<Info> infos = fabrics.getInfo("node", "service", Fi.FI_SOURCE | Fi.FI_NUMERICHOST | Fi.FI_PROV_ATTR_ONLY,
                new Info());
        Fabric f = fabrics.fabric(new FabricAttr(), null);
        List<ProviderInfo> providers = fabrics.providers();
        fabrics.addListener(listener);
        fabrics.removeListener(listener);
        Fabrics standalone = Fabrics.standalone();
        ProviderInfo pi = new ProviderInfo("tcp", "1.0", ProviderState.AVAILABLE, null);
        String n = pi.name() + pi.version() + pi.state() + pi.reason();
        listener.providerAdded(pi);
        listener.providerRemoved(pi);

        FidClass fc = cq.fidClass();
        Object ctx = cq.context();
        cq.close();
        Domain d = fabric.domain(new Info(), null);
        PassiveEndpoint p = fabric.passiveEndpoint(new Info(), null);
        EventQueue e = fabric.openEq(new EqAttr(), null);
        WaitSet w = fabric.openWaitSet(new WaitAttr());
        int tw = fabric.tryWait(cq, eq);
        Endpoint en = domain.endpoint(new Info(), null);
        CompletionQueue c = domain.openCq(new CqAttr(), null);
        Counter ct = domain.openCounter(new CounterAttr(), null);
        AddressVector a = domain.openAv(new AvAttr(), null);
        PollSet pset = domain.openPollSet(new PollAttr());
        MemoryRegion m = domain.register(ByteBuffer.allocateDirect(8), Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ
                | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0L, 0L, 0L, null);
        domain.bind(eq, Fi.FI_REG_MR);

        CqAttr cqa = new CqAttr().size(0L).flags(Fi.FI_AFFINITY).format(CqFormat.DATA).waitObj(WaitObj.FD)
                .signalingVector(0).waitCond(CqWaitCond.THRESHOLD).waitSet(ws);
        CqEntry[] buf = {new CqEntry()};
        long[] src = new long[1];
        int r = cq.read(buf, 1) + cq.readFrom(buf, 1, src) + cq.readErr(new CqErrEntry(), 0L)
                + cq.sread(buf, 1, 1L, -1) + cq.sreadFrom(buf, 1, src, 1L, 100) + cq.signal();
        String s = cq.strerror(0, null);
        WaitObject wo = cq.getWait();
        CqAttr back = cq.attr();
        CqEntry ce = buf[0];
        Object o = ce.context();
        long l = ce.flags() + ce.len() + ce.bufOffset() + ce.data() + ce.tag();
        ByteBuffer bb = ce.buf();
        ce.set(null, 0L, 0L, null, 0, 0L, 0L);
        CqErrEntry cee = new CqErrEntry().errData(new byte[8]);
        l = cee.olen() + cee.err() + cee.provErrno() + cee.errDataSize();
        byte[] ed = cee.errData();

        EqAttr eqa = new EqAttr().size(0L).flags(Fi.FI_WRITE).waitObj(WaitObj.UNSPEC).signalingVector(0).waitSet(ws);
        EqEntry ee = new EqEntry().event(Fi.FI_NOTIFY).fid(cq).context(null).data(0L).info(new Info())
                .payload(new byte[0]).payloadLength(0);
        r = eq.read(ee, Fi.FI_PEEK) + eq.readErr(new EqErrEntry(), 0L) + eq.write(ee, 0L) + eq.sread(ee, -1, 0L);
        s = eq.strerror(0, null);
        wo = eq.getWait();
        EqAttr eqBack = eq.attr();
        int ev = ee.event();
        Fid fid = ee.fid();
        o = ee.context();
        l = ee.data() + ee.payloadLength();
        Info info = ee.info();
        ConnReq h = info.handle();
        byte[] pl = ee.payload();
        EqErrEntry eqe = new EqErrEntry().errData(new byte[4]);
        fid = eqe.fid();
        o = eqe.context();
        l = eqe.data() + eqe.err() + eqe.provErrno() + eqe.errDataSize();
        ed = eqe.errData();

        if (wo instanceof WaitObject.Fd fd) {
            SelectableChannel ch = fd.channel();
        } else if (wo instanceof WaitObject.MutexCond mc) {
            Lock lock = mc.mutex();
            Condition cond = mc.cond();
        }
        r = ws.await(-1);
        ps.add(cq);
        ps.remove(cq);
        r = ps.poll(new Object[4]);
        l = cntr.read() + cntr.readErr() + cntr.add(1) + cntr.set(1) + cntr.addErr(1) + cntr.setErr(1)
                + cntr.await(1L, 100);
        wo = cntr.getWait();

        pep.bind(eq, 0L);
        pep.listen();
        byte[] name = pep.getName();
        pep.reject(handle, new byte[0]);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV | Fi.FI_SELECTIVE_COMPLETION);
        ep.enable();
        name = ep.getName();
        name = ep.getPeer();
        ep.connect(name, new byte[0]);
        ep.accept(new byte[0]);
        ep.shutdown(0L);
        r = ep.cancel(null);
        l = ep.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV);
        ep.setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_CM_DATA_SIZE, 0L);
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        r = ep.recv(b, mr, Fi.FI_ADDR_UNSPEC, null) + ep.send(b, mr, 0L, null) + ep.sendData(b, mr, 1L, 0L, null)
                + ep.inject(b, 0L) + ep.injectData(b, 1L, 0L) + ep.recvMsg(new Msg(), Fi.FI_MULTI_RECV)
                + ep.sendMsg(new Msg(), Fi.FI_REMOTE_CQ_DATA);
        r = ep.trecv(b, mr, 0L, 1L, 0L, null) + ep.tsend(b, mr, 0L, 1L, null) + ep.tsendData(b, mr, 1L, 0L, 1L, null)
                + ep.tinject(b, 0L, 1L) + ep.trecvMsg(new TaggedMsg(), Fi.FI_PEEK | Fi.FI_CLAIM | Fi.FI_DISCARD)
                + ep.tsendMsg(new TaggedMsg(), 0L);
        r = ep.read(b, mr, 0L, 0L, 1L, null) + ep.write(b, mr, 0L, 0L, 1L, null) + ep.writeData(b, mr, 1L, 0L, 0L, 1L, null)
                + ep.injectWrite(b, 0L, 0L, 1L) + ep.readMsg(new RmaMsg(), 0L) + ep.writeMsg(new RmaMsg(), 0L);
        r = ep.atomic(1L, 0L, 0L, 1L, Fi.FI_SUM, null) + ep.fetchAtomic(1L, b, mr, 0L, 0L, 1L, Fi.FI_ATOMIC_READ, null)
                + ep.compareAtomic(1L, 2L, b, mr, 0L, 0L, 1L, null);

        byte[][] addrs = {new byte[16]};
        long[] fiAddrs = new long[1];
        r = av.insert(addrs, fiAddrs, 0L, null) + av.insertSvc("node", "svc", fiAddrs, 0L, null)
                + av.remove(fiAddrs, 0L);
        byte[] looked = av.lookup(0L);
        s = av.straddr(looked);
        av.bind(eq, 0L);
        AvAttr ava = new AvAttr().type(AvType.MAP).count(0L).flags(Fi.FI_EVENT).name(null);
        l = mr.key() + mr.address();
        o = mr.desc();
        bb = mr.buffer();
        mr.close();
    }

    @Test
    void attributeDefaultsAreThoseOfApiMd() {
        Info info = new Info();
        assertNotNull(info.txAttr());
        assertNotNull(info.rxAttr());
        assertNotNull(info.epAttr());
        assertNotNull(info.domainAttr());
        assertNotNull(info.fabricAttr());
        assertEquals(0L, info.caps());
        assertEquals(WaitObj.NONE, new CqAttr().waitObj());
        assertEquals(WaitObj.NONE, new EqAttr().waitObj());
        assertEquals(CqFormat.UNSPEC, new CqAttr().format());
        assertEquals(EpType.UNSPEC, info.epAttr().type());
        assertEquals(Progress.UNSPEC, info.domainAttr().dataProgress());
        Info copy = info.caps(Fi.FI_MSG).copy();
        assertEquals(info, copy);
        assertTrue(copy.epAttr() != info.epAttr(), "copy() is deep");
    }

    @Test
    void constantsHaveLibfabricsValues() {
        assertEquals(1L << 1, Fi.FI_MSG);
        assertEquals(1L << 2, Fi.FI_RMA);
        assertEquals(1L << 3, Fi.FI_TAGGED);
        assertEquals(1L << 4, Fi.FI_ATOMIC);
        assertEquals(1L << 8, Fi.FI_READ);
        assertEquals(1L << 9, Fi.FI_WRITE);
        assertEquals(1L << 10, Fi.FI_RECV);
        assertEquals(1L << 11, Fi.FI_SEND);
        assertEquals(Fi.FI_SEND, Fi.FI_TRANSMIT);
        assertEquals(1L << 12, Fi.FI_REMOTE_READ);
        assertEquals(1L << 13, Fi.FI_REMOTE_WRITE);
        assertEquals(1L << 16, Fi.FI_MULTI_RECV);
        assertEquals(1L << 17, Fi.FI_REMOTE_CQ_DATA);
        assertEquals(1L << 18, Fi.FI_MORE);
        assertEquals(1L << 19, Fi.FI_PEEK);
        assertEquals(1L << 21, Fi.FI_FENCE);
        assertEquals(1L << 24, Fi.FI_COMPLETION);
        assertEquals(1L << 25, Fi.FI_INJECT);
        assertEquals(1L << 26, Fi.FI_INJECT_COMPLETE);
        assertEquals(1L << 27, Fi.FI_TRANSMIT_COMPLETE);
        assertEquals(1L << 28, Fi.FI_DELIVERY_COMPLETE);
        assertEquals(1L << 29, Fi.FI_AFFINITY);
        assertEquals(1L << 30, Fi.FI_COMMIT_COMPLETE);
        assertEquals(1L << 31, Fi.FI_MATCH_COMPLETE);
        assertEquals(1L << 50, Fi.FI_SOURCE_ERR);
        assertEquals(1L << 51, Fi.FI_LOCAL_COMM);
        assertEquals(1L << 52, Fi.FI_REMOTE_COMM);
        assertEquals(1L << 56, Fi.FI_RMA_EVENT);
        assertEquals(1L << 57, Fi.FI_SOURCE);
        assertEquals(-1L, Fi.FI_ADDR_UNSPEC);
        assertEquals(-1L, Fi.FI_ADDR_NOTAVAIL);
        assertEquals(0, Fi.FI_NOTIFY);
        assertEquals(1, Fi.FI_CONNREQ);
        assertEquals(2, Fi.FI_CONNECTED);
        assertEquals(3, Fi.FI_SHUTDOWN);
        assertEquals(4, Fi.FI_MR_COMPLETE);
        assertEquals(5, Fi.FI_AV_COMPLETE);
        assertEquals(6, Fi.FI_JOIN_COMPLETE);
    }

    @Test
    void errnosHaveLibfabricsNumbers() {
        int[][] pairs = {
            {Errno.EAGAIN, 11}, {Errno.EINVAL, 22}, {Errno.ENOSYS, 38}, {Errno.ENODATA, 61}, {Errno.ECANCELED, 125},
            {Errno.EBUSY, 16}, {Errno.ENODEV, 19}, {Errno.ECONNREFUSED, 111}, {Errno.ECONNRESET, 104},
            {Errno.ETIMEDOUT, 110}, {Errno.EADDRNOTAVAIL, 99}, {Errno.ENOENT, 2}, {Errno.FI_EOTHER, 256},
            {Errno.ETOOSMALL, 257}, {Errno.EOPBADSTATE, 258}, {Errno.EAVAIL, 259}, {Errno.EBADFLAGS, 260},
            {Errno.ENOEQ, 261}, {Errno.EDOMAIN, 262}, {Errno.ENOCQ, 263}, {Errno.ECRC, 264}, {Errno.ETRUNC, 265},
            {Errno.ENOKEY, 266}, {Errno.ENOAV, 267}, {Errno.EOVERRUN, 268}, {Errno.ENORX, 269}, {Errno.ENOMR, 270},
        };
        for (int[] p : pairs) {
            assertEquals(p[1], p[0], Errno.name(p[0]));
            assertTrue(Errno.strerror(p[0]).length() > 3, Errno.name(p[0]) + " has a message");
            assertEquals(Errno.strerror(p[0]), Errno.strerror(-p[0]), "strerror takes -errno too");
        }
    }
}
