package io.jofi.tools;

import io.jofi.WaitObj;

/**
 * How {@code pingpong}/{@code bw} wait for a completion ({@code -c}), as fabtests' {@code -c}.
 */
public enum CompletionWait {
    /** Busy {@code cq.read} on a CQ without wait object; the domain asks for manual progress, so the reads drive it. */
    SPIN(WaitObj.NONE),
    /** {@code cq.sread} on a CQ with an {@code UNSPEC} wait object. */
    SREAD(WaitObj.UNSPEC),
    /** An {@code FD} wait object: {@code cq.read}, then {@code fabric.tryWait} and a {@code Selector} on the channel. */
    FD(WaitObj.FD),
    /** {@code cq.sread} on a CQ with a {@code YIELD} wait object. */
    YIELD(WaitObj.YIELD);

    final WaitObj waitObj;

    CompletionWait(WaitObj waitObj) {
        this.waitObj = waitObj;
    }
}
