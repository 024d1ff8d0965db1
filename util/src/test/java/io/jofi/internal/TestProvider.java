package io.jofi.internal;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.ProviderState;
import io.jofi.WaitAttr;
import io.jofi.WaitSet;
import io.jofi.spi.util.AbstractFabricProvider;
import java.util.ArrayList;
import java.util.List;

/**
 * A real (if tiny) provider for the registry tests: offers one Info per endpoint type given,
 * with FI_MSG caps and a fabric named after the provider; can be made unavailable, made to
 * fail with an exception, and opens a {@link TestFabric}.
 */
class TestProvider extends AbstractFabricProvider {
    private final String name;
    private final long caps;
    private final EpType[] types;
    volatile ProviderState state = ProviderState.AVAILABLE;
    volatile String reason;
    volatile RuntimeException failure;
    volatile FabricException refusal;

    TestProvider(String name, EpType... types) {
        this(name, Fi.FI_MSG | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_MULTI_RECV, types);
    }

    TestProvider(String name, long caps, EpType... types) {
        this.name = name;
        this.caps = caps;
        this.types = types;
    }

    TestProvider unavailable(String why) {
        state = ProviderState.UNAVAILABLE;
        reason = why;
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String version() {
        return "1.4.2";
    }

    @Override
    public ProviderState state() {
        return state;
    }

    @Override
    public String unavailableReason() {
        return reason;
    }

    @Override
    protected List<Info> offeredInfos(String node, String service, long flags)
            throws FabricException {
        if (failure != null) {
            throw failure;
        }
        if (refusal != null) {
            throw refusal;
        }
        List<Info> out = new ArrayList<>();
        for (EpType t : types) {
            Info i = new Info().caps(caps);
            i.epAttr().type(t).maxMsgSize(16L << 20);
            i.fabricAttr().name(name + "-fabric").provName(name);
            i.domainAttr().name(name + "-domain");
            i.txAttr().caps(caps).injectSize(64);
            i.rxAttr().caps(caps);
            out.add(i);
        }
        return out;
    }

    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        if (!(name + "-fabric").equals(attr.name())) {
            throw new FabricException(Errno.EINVAL, name + ": no fabric named " + attr.name());
        }
        return new TestFabric(this, context);
    }

    /** The fabric a TestProvider opens: knows its provider and context, opens nothing. */
    static final class TestFabric implements Fabric {
        final TestProvider provider;
        private final Object context;

        TestFabric(TestProvider provider, Object context) {
            this.provider = provider;
            this.context = context;
        }

        @Override
        public FidClass fidClass() {
            return FidClass.FABRIC;
        }

        @Override
        public Object context() {
            return context;
        }

        @Override
        public void close() {
        }

        @Override
        public Domain domain(Info info, Object ctx) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "test fabric opens no domain");
        }

        @Override
        public PassiveEndpoint passiveEndpoint(Info info, Object ctx) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "test fabric opens no passive endpoint");
        }

        @Override
        public EventQueue openEq(EqAttr attr, Object ctx) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "test fabric opens no EQ");
        }

        @Override
        public WaitSet openWaitSet(WaitAttr attr) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "test fabric opens no wait set");
        }

        @Override
        public int tryWait(Fid... fids) {
            return 0;
        }
    }
}
