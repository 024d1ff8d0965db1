package io.jofi.features;

import java.io.File;
import java.net.InetSocketAddress;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * The main class of a stand-alone ZooKeeper server in a JVM of its own, for the ZooKeeper
 * discovery in {@link KarafFeatureIT}'s Karaf: serves {@code HOST PORT} with its data in
 * {@code DIRECTORY}, prints {@code @@started}, and stops when its stdin ends.
 */
public final class ZooKeeperMain {
    private ZooKeeperMain() {
    }

    public static void main(String[] arguments) throws Exception {
        File data = new File(arguments[2]);
        ZooKeeperServer server = new ZooKeeperServer(data, data, 2000);
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory(
                new InetSocketAddress(arguments[0], Integer.parseInt(arguments[1])), 64);
        factory.startup(server);
        System.out.println("@@started zookeeper " + arguments[0] + ":" + arguments[1]);
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until the test closes stdin
        }
        factory.shutdown();
        System.exit(0);
    }
}
