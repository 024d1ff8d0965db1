package io.jofi.benchmarks.rsa;

import io.jofi.Fabrics;
import io.jofi.rsa.ChannelPool;
import io.jofi.rsa.JofiDistributionProvider;
import io.jofi.rsa.channel.ChannelSettings;
import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.aries.rsa.spi.Endpoint;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.osgi.framework.Constants;
import org.osgi.service.remoteserviceadmin.RemoteConstants;

/**
 * One remote-services call, {@code byte[] echo(byte[])} of {@code size} bytes, through both sides
 * of {@code io.jofi.rsa}'s call path in one JVM without OSGi: an exporting and an importing
 * {@link ChannelPool} (two real RDM endpoints of {@code provider}), the exported service and the
 * imported proxy made by {@link JofiDistributionProvider} as Aries would. One operation is one
 * call answered. With {@code -prof gc}, {@code gc.alloc.rate.norm} is what one call allocates on
 * both sides (JMH sums every thread of the fork): the decoded argument and result ({@code byte[]}
 * twice, 80 B each at 64 B) are the floor. Run:
 * {@code java -jar benchmarks/target/benchmarks.jar RsaCallBenchmark -prof gc -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RsaCallBenchmark {
    /** The exported service. */
    public interface Echo {
        byte[] echo(byte[] data);
    }

    @Param({"shm"})
    public String provider;

    @Param({"64"})
    public int size;

    private ChannelPool exporterPool;
    private ChannelPool importerPool;
    private Echo proxy;
    private byte[] payload;

    @Setup(Level.Trial)
    public void setUp() {
        Fabrics fabrics = Fabrics.standalone();
        ChannelSettings settings = new ChannelSettings(30_000, null, ChannelSettings.MAX_INLINE, 16, 200, null);
        exporterPool = new ChannelPool(fabrics, settings, new ExportedServices(), new RsaCounters());
        importerPool = new ChannelPool(fabrics, settings, new ExportedServices(), new RsaCounters());
        Map<String, Object> props = new HashMap<>();
        props.put(Constants.OBJECTCLASS, new String[] {Echo.class.getName()});
        props.put(Constants.SERVICE_ID, 1L);
        props.put(RemoteConstants.SERVICE_EXPORTED_INTERFACES, "*");
        props.put(RemoteConstants.ENDPOINT_FRAMEWORK_UUID, "benchmark-exporter");
        Echo service = data -> data;
        Endpoint endpoint = new JofiDistributionProvider(exporterPool, provider)
                .exportService(service, null, props, new Class<?>[] {Echo.class});
        proxy = (Echo) new JofiDistributionProvider(importerPool, provider)
                .importEndpoint(Echo.class.getClassLoader(), null, new Class<?>[] {Echo.class}, endpoint.description());
        payload = new byte[size];
        if (proxy.echo(payload).length != size) {
            throw new IllegalStateException("the echo came back with another length");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        importerPool.close("benchmark over");
        exporterPool.close("benchmark over");
    }

    @Benchmark
    public byte[] echo() {
        return proxy.echo(payload);
    }
}
