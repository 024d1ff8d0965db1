package io.jofi.provider.verbs;

/**
 * An endpoint with a native CQ that the domain's progress step drains (MSG and RDM endpoints):
 * {@link VerbsDomain#progress} polls every attached source, arms them before sleeping on the
 * completion channel, and polls again after it fired.
 */
interface CompletionSource {
    /** Moves the native CQ's completions into the util CQs; returns how many were handled. */
    int pollCompletions();

    /** Arms the native CQ so that its next completion wakes the completion channel. */
    void armCompletions();
}
