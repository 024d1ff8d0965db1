package io.jofi.rsa.channel;

import java.lang.reflect.Method;

/**
 * One decoded call of an exported method, ready to run: the service, the method, the decoded
 * arguments and where the reply goes. A leader keeps one of these per thread for the call it
 * runs itself after handing the CQ over (so that call allocates no task); calls that go to the
 * executor get their own.
 */
final class ExportedCall implements Runnable {
    private final ExporterSide exporter;
    private Object service;
    private Method method;
    private Object[] args;
    private long peer;
    private long callId;

    ExportedCall(ExporterSide exporter) {
        this.exporter = exporter;
    }

    ExportedCall set(Object service, Method method, Object[] args, long peer, long callId) {
        this.service = service;
        this.method = method;
        this.args = args;
        this.peer = peer;
        this.callId = callId;
        return this;
    }

    @Override
    public void run() {
        Object[] a = args;
        args = null; // a kept task holds no arguments past its call
        exporter.invoke(service, method, a, peer, callId);
    }
}
