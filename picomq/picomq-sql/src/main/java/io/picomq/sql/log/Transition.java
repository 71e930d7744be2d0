package io.picomq.sql.log;

/**
 * What applying one command produced.
 *
 * @param state the state after the command (the same object if nothing changed)
 * @param result what the proposer of the command receives
 */
public record Transition<S, R>(S state, R result) {}
