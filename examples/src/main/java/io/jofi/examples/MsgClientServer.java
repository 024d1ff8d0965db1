package io.jofi.examples;

import io.jofi.Addresses;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.WaitObj;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connected (FI_EP_MSG) server and client, as fi_msg(3) applications are written: the server
 * listens on a passive endpoint and accepts the FI_CONNREQ, the client connects with a
 * greeting, both read FI_CONNECTED, the client sends "ping" and the server answers "pong",
 * then the client shuts the connection down and the server reads FI_SHUTDOWN.
 *
 * <p>Run: {@code java -cp ... io.jofi.examples.MsgClientServer [provider]} (default tcp). Both
 * sides run in this JVM (the server in a thread); in two processes the client would get the
 * server's host and port from its command line — {@link #client} takes nothing else.
 */
public final class MsgClientServer {
    private MsgClientServer() {
    }

    public static void main(String[] args) throws Exception {
        run(Fabrics.standalone(), args.length > 0 ? args[0] : "tcp", System.out);
    }

    /** Runs the server in a thread and the client here; returns the server's answer. */
    public static String run(Fabrics fabrics, String provider, PrintStream out) throws Exception {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName(provider); // null: the best provider that can (fi_getinfo's order)

        CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
            try {
                server(fabrics, hints, listening, out);
            } catch (FabricException e) {
                listening.completeExceptionally(e);
                throw new IllegalStateException(e);
            }
        });
        InetSocketAddress at = listening.get(Waits.TIMEOUT_MS, TimeUnit.MILLISECONDS);
        String answer = client(fabrics, hints, at.getHostString(), String.valueOf(at.getPort()), out);
        server.get(Waits.TIMEOUT_MS, TimeUnit.MILLISECONDS); // rethrows what failed there
        return answer;
    }

    /** Accepts one connection, answers one message, waits for the client's shutdown. */
    public static void server(Fabrics fabrics, Info hints, CompletableFuture<InetSocketAddress> listening, PrintStream out)
            throws FabricException {
        Info info = fabrics.getInfo(null, null, 0, hints).get(0);
        // Connection events of the passive and the accepted endpoint arrive on the EQ.
        try (Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
             EventQueue eq = fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null);
             PassiveEndpoint pep = fabric.passiveEndpoint(info, null)) {
            pep.bind(eq, 0);
            pep.listen();
            InetSocketAddress bound = Addresses.fromSockaddr(pep.getName());
            out.println("server: listening on " + Addresses.toString(pep.getName()));
            listening.complete(bound.getAddress().isAnyLocalAddress()
                    ? new InetSocketAddress("127.0.0.1", bound.getPort()) : bound);

            EqEntry request = Waits.forEvent(eq, Fi.FI_CONNREQ);
            out.println("server: FI_CONNREQ, greeting '" + text(request.payload(), request.payloadLength()) + "'");
            // The request's info() opens the endpoint that takes the connection (its handle()).
            Info accepted = request.info();
            try (Domain domain = fabric.domain(accepted, null);
                 CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.MSG).waitObj(WaitObj.UNSPEC), null);
                 Endpoint ep = domain.endpoint(accepted, null)) {
                ep.bind(eq, 0);
                ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                ep.enable();
                ByteBuffer in = ByteBuffer.allocateDirect(64);
                Waits.post(cq, () -> ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "server-recv"), "recv"); // before accept: nothing is missed
                ep.accept(null);
                Waits.forEvent(eq, Fi.FI_CONNECTED);
                out.println("server: FI_CONNECTED");

                long len = Waits.forCompletion(cq).len();
                out.println("server: received '" + Text.of(in, 0, (int) len) + "'");
                ByteBuffer reply = Text.direct("pong");
                Waits.post(cq, () -> ep.send(reply, null, Fi.FI_ADDR_UNSPEC, "server-send"), "send");
                Waits.forCompletion(cq);

                // The client's fi_shutdown reaches us as FI_SHUTDOWN, exactly once (R14).
                Waits.forEvent(eq, Fi.FI_SHUTDOWN);
                out.println("server: FI_SHUTDOWN");
            }
        }
    }

    /** Connects to {@code node}:{@code service}, sends "ping", returns the answer, shuts down. */
    public static String client(Fabrics fabrics, Info hints, String node, String service, PrintStream out)
            throws FabricException {
        // Like fi_getinfo(node, service): the Info's destAddr() is the server's address.
        Info info = fabrics.getInfo(node, service, 0, hints).get(0);
        try (Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
             EventQueue eq = fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null);
             Domain domain = fabric.domain(info, null);
             CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.MSG).waitObj(WaitObj.UNSPEC), null);
             Endpoint ep = domain.endpoint(info, null)) {
            ep.bind(eq, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            Waits.post(cq, () -> ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "client-recv"), "recv");
            ep.connect(info.destAddr(), "hello".getBytes(StandardCharsets.UTF_8)); // the greeting: connection data
            Waits.forEvent(eq, Fi.FI_CONNECTED);
            out.println("client: FI_CONNECTED");

            ByteBuffer ping = Text.direct("ping");
            Waits.post(cq, () -> ep.send(ping, null, Fi.FI_ADDR_UNSPEC, "client-send"), "send");
            // One CQ for both directions: the context says which operation completed.
            String answer = null;
            for (int i = 0; i < 2; i++) {
                CqEntry done = Waits.forCompletion(cq);
                if ("client-recv".equals(done.context())) {
                    answer = Text.of(in, 0, (int) done.len());
                }
            }
            out.println("client: received '" + answer + "'");
            ep.shutdown(0);
            return answer;
        }
    }

    private static String text(byte[] bytes, int length) {
        return bytes == null ? "" : new String(bytes, 0, length, StandardCharsets.UTF_8);
    }
}
