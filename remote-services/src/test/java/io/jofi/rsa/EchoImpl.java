package io.jofi.rsa;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.osgi.util.promise.Promise;
import org.osgi.util.promise.PromiseFactory;

/** The exported side of {@link Echo}. */
final class EchoImpl implements Echo {
    private final PromiseFactory promises = new PromiseFactory(null);
    /** One permit per {@link #slow} call that has started running here: a test waits until the calls it made arrived. */
    final Semaphore slowCallsStarted = new Semaphore(0);

    @Override
    public byte[] echo(byte[] data) {
        return data;
    }

    @Override
    public ByteBuffer echoBuffer(ByteBuffer data) {
        return data;
    }

    @Override
    public String greet(String name) {
        return "hello " + name;
    }

    @Override
    public int add(int a, int b) {
        return a + b;
    }

    @Override
    public Promise<String> later(String text) {
        return promises.submit(() -> {
            Thread.sleep(20);
            return text.toUpperCase();
        });
    }

    @Override
    public CompletableFuture<Integer> square(int x) {
        return CompletableFuture.supplyAsync(() -> x * x);
    }

    @Override
    public Future<String> future(String text) {
        return CompletableFuture.completedFuture(text + "!");
    }

    @Override
    public void fail(String message) throws EchoProblem {
        throw new EchoProblem(message);
    }

    @Override
    public void failUnchecked(String message) {
        throw new IllegalArgumentException(message);
    }

    @Override
    public String slow(long millis) throws InterruptedException {
        slowCallsStarted.release();
        Thread.sleep(millis);
        return "slept " + millis;
    }

    @Override
    public int size(Collection<?> items) {
        return items.size();
    }

    @Override
    public List<Point> points(int n) {
        List<Point> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new Point(i, -i));
        }
        return list;
    }
}
