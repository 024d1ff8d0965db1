package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.EpType;
import io.jofi.Fabrics;
import io.jofi.Progress;
import io.jofi.ResourceMgmt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * The base of every conformance suite: which provider, which endpoint type, which progress
 * mode, which registry — each overridable — and a fresh {@link ConformanceFixture} per test,
 * closed in reverse order after it.
 *
 * <p>A provider runs a suite with a subclass in its test tree:
 * <pre>{@code
 * class TcpCqConformanceTest extends CqConformance {
 *     @Override protected String provider() { return "tcp"; }
 * }
 * class TcpManualMsgConformanceTest extends MsgConformance {
 *     @Override protected String provider() { return "tcp"; }
 *     @Override protected Progress progress() { return Progress.MANUAL; }
 *     @Override protected EpType epType() { return EpType.RDM; }
 * }
 * }</pre>
 *
 * <p>Every test is bounded twice: each wait by {@link #timeoutMs()} (failing with what it
 * waited for) and the whole test by a JUnit {@link Timeout} as the last resort.
 */
@Timeout(120)
public abstract class ProviderTest {
    /** System property naming the provider when {@link #provider()} is not overridden. */
    public static final String PROVIDER_PROPERTY = "jofi.conformance.provider";
    /** System property overriding the bound of each wait, in milliseconds. */
    public static final String TIMEOUT_PROPERTY = "jofi.conformance.timeoutMs";

    /** The fixture of the running test. */
    protected ConformanceFixture fx;

    /** Opens the fixture (nothing of the provider yet: suites open what they need). */
    @BeforeEach
    void openFixture() {
        String name = provider();
        if (name == null || name.isBlank()) {
            fail("no provider to test: set -D" + PROVIDER_PROPERTY + "=NAME or override provider()");
        }
        fx = new ConformanceFixture(fabrics(), name, epType(), progress(), timeoutMs());
    }

    /** Closes everything the test opened, newest first. */
    @AfterEach
    void closeFixture() {
        if (fx != null) {
            ConformanceFixture f = fx;
            fx = null;
            f.close();
        }
    }

    /** The provider under test: by default the system property {@value #PROVIDER_PROPERTY}. */
    protected String provider() {
        return System.getProperty(PROVIDER_PROPERTY);
    }

    /**
     * The endpoint type of the endpoint tests; {@code EpType.UNSPEC} (the default) takes the
     * provider's first choice. Queue tests do not depend on it.
     */
    protected EpType epType() {
        return EpType.UNSPEC;
    }

    /**
     * The data progress to ask for: {@code Progress.UNSPEC} (the default) takes the
     * provider's; {@code AUTO} or {@code MANUAL} run the suite in that mode.
     */
    protected Progress progress() {
        return Progress.UNSPEC;
    }

    /** The registry: {@code Fabrics.standalone()} by default; an OSGi test returns the service. */
    protected Fabrics fabrics() {
        return Fabrics.standalone();
    }

    /** The bound of each wait: {@value #TIMEOUT_PROPERTY}, default 10 000 ms. */
    protected long timeoutMs() {
        return Long.getLong(TIMEOUT_PROPERTY, 10_000L);
    }

    /**
     * Whether the provider promises docs/API.md's "What every provider offers at least"
     * ({@code max_msg_size} ≥ 16 MiB, remote CQ data of 8 bytes, 256 bytes of connection data).
     * True by default: tcp and shm make that promise, and the kit asserts those minimums
     * against what they advertise. A provider bound by its device's limits (verbs:
     * {@code max_msg_sz}, 32-bit immediate data, rdma_cm's private data) overrides this with
     * false; the kit then runs every data test within what the provider <em>advertises</em>
     * ({@code epAttr().maxMsgSize()}, {@code domainAttr().cqDataSize()},
     * {@code FI_OPT_CM_DATA_SIZE}) and skips only the checks of the minimums themselves,
     * with a reason that names the advertised value.
     */
    protected boolean offersApiMinimums() {
        return true;
    }

    /**
     * Skips the running test where the pair's domain offers no remote CQ data
     * ({@code cq_data_size} 0, fi_domain(3): e.g. verbs on an iWARP device, which has no
     * immediate data); such a domain's data operations are checked by
     * {@code MsgConformance.operationsOutsideTheCapsAreEnosys} instead.
     */
    protected void requireCqData(EndpointPair p) {
        Assumptions.assumeTrue(p.a().info().domainAttr().cqDataSize() > 0, "provider " + fx.provider()
                + " offers no remote CQ data on domain " + p.a().info().domainAttr().name() + " (cq_data_size 0)");
    }

    /**
     * Skips the running test where the pair's domain does not manage resources
     * ({@code resource_mgmt} {@code FI_RM_DISABLED}, fi_domain(3): a message that arrives while
     * no receive is posted may be an error — verbs on iWARP, which has no RNR retry, ends the
     * connection). Used by the tests that send on purpose before the receive is posted.
     */
    protected void requireResourceManagement(EndpointPair p) {
        Assumptions.assumeTrue(p.a().info().domainAttr().resourceMgmt() != ResourceMgmt.DISABLED, "provider "
                + fx.provider() + " runs domain " + p.a().info().domainAttr().name() + " with resource_mgmt "
                + "FI_RM_DISABLED: a message sent before its receive is posted may end the connection");
    }

    /** The bounded-wait helper of the running test. */
    protected Await await() {
        return fx.await();
    }
}
