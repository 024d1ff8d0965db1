package io.jofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Fabrics.standalone(): the registry fed by ServiceLoader (test META-INF/services). */
class StandaloneFabricsTest {
    private String savedFilter;

    @BeforeEach
    void noFilter() {
        savedFilter = System.getProperty(ProviderFilter.PROPERTY);
        System.setProperty(ProviderFilter.PROPERTY, "");
    }

    @AfterEach
    void restoreFilter() {
        if (savedFilter == null) {
            System.clearProperty(ProviderFilter.PROPERTY);
        } else {
            System.setProperty(ProviderFilter.PROPERTY, savedFilter);
        }
    }

    @Test
    void findsProvidersThroughServiceLoader() throws FabricException {
        Fabrics fabrics = Fabrics.standalone();
        assertTrue(fabrics.providers().stream().map(ProviderInfo::name).toList().contains("sltest"),
                fabrics.providers().toString());
        Info hints = new Info();
        hints.fabricAttr().provName("sltest");
        List<Info> infos = fabrics.getInfo(null, null, 0, hints);
        assertEquals(1, infos.size());
        assertEquals("sltest", infos.get(0).fabricAttr().provName());
        assertEquals(EpType.RDM, infos.get(0).epAttr().type());
    }

    @Test
    void eachProviderClassIsLoadedOnceEvenThroughTwoClassLoaders() {
        // The api's loader and the context loader are the same here; a fresh load must not
        // bind the same provider class twice either way.
        FabricsRegistry r = new StandaloneFabrics();
        long n = r.providers().stream().filter(p -> p.name().equals("sltest")).count();
        assertEquals(1, n);
    }

    @Test
    void oneInstanceForEveryThread() throws InterruptedException {
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        ConcurrentHashMap<Integer, Fabrics> seen = new ConcurrentHashMap<>();
        for (int i = 0; i < threads; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                    seen.put(id, Fabrics.standalone());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
            t.start();
        }
        start.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(threads, seen.size());
        Fabrics one = Fabrics.standalone();
        seen.values().forEach(f -> assertSame(one, f));
    }
}
