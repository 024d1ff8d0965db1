package io.jofi.rsa;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.osgi.util.promise.Promise;

/** The service the end-to-end tests export and import. */
public interface Echo {
    byte[] echo(byte[] data);

    ByteBuffer echoBuffer(ByteBuffer data);

    String greet(String name);

    int add(int a, int b);

    Promise<String> later(String text);

    CompletableFuture<Integer> square(int x);

    Future<String> future(String text);

    void fail(String message) throws EchoProblem;

    void failUnchecked(String message);

    String slow(long millis) throws InterruptedException;

    int size(Collection<?> items);

    List<Point> points(int n);
}
