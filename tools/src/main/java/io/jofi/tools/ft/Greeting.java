package io.jofi.tools.ft;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * fabtests' greeting ({@code ft_send_greeting}, {@code ft_recv_greeting}): the client sends
 * {@code "Hello from Client!"} with its NUL; the server checks it as {@code check_recv_msg} does
 * and prints it.
 */
final class Greeting {
    static final String GREETING = "Hello from Client!";

    private Greeting() {
    }

    /** ft_send_greeting. */
    static void send(FtSession s) {
        s.out.println("Sending message...");
        byte[] greeting = (GREETING + "\0").getBytes(StandardCharsets.US_ASCII);
        s.txBuf.put(0, greeting);
        s.tx(greeting.length, s.txCtx);
        s.out.println("Send completion received");
    }

    /** ft_recv_greeting: the greeting in the receive posted last, checked as check_recv_msg does. */
    static void receive(FtSession s) {
        s.out.println("Waiting for message from client...");
        s.getRxComp(s.rxSeq);
        String received = cString(s.rxBuf);
        if (received.length() != GREETING.length()) {
            throw new FtError(-1, "Received length does not match expected length.");
        }
        if (!received.equals(GREETING)) {
            throw new FtError(-1, "Received message does not match expected message.");
        }
        s.out.println("Data check OK");
        s.out.println("Received data from client: " + received);
    }

    /** ft_send_recv_greeting: the client sends, the server receives. */
    static void sendOrReceive(FtSession s) {
        if (s.opts.client()) {
            send(s);
        } else {
            receive(s);
        }
    }

    /** The NUL-terminated string at the start of {@code buf}. */
    static String cString(ByteBuffer buf) {
        int n = 0;
        while (n < buf.capacity() && buf.get(n) != 0) {
            n++;
        }
        byte[] bytes = new byte[n];
        buf.get(0, bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
