package io.picomq.sql.log;

/**
 * The deterministic state machine a {@link SqlLog} replicates. Every node applies the same commands
 * in the same order to the same initial state, so every method must be a pure function of its
 * arguments: no clock, no randomness, no node-local input, no iteration over unordered collections
 * whose order can differ between processes. A violation forks the nodes' states silently.
 *
 * <p>States are immutable values: the log hands the same state object to readers on other threads
 * and to the snapshot writer while it keeps applying. Persistent (structurally shared) collections
 * keep {@link #apply} cheap.
 *
 * @param <S> the state
 * @param <C> a command
 * @param <R> the result of applying one command (a rejected command is a result, not an exception)
 */
public interface ReplicatedStateMachine<S, C, R> {

  /** The state before the first command. */
  S initial();

  /**
   * Applies one command. Validation failures are results. Throwing is a bug: the log stops rather
   * than continue with a state other nodes may not share.
   */
  Transition<S, R> apply(S state, C command);

  /** Encodes a command for the log; {@link #decodeCommand} must invert it on every node. */
  byte[] encodeCommand(C command);

  /**
   * Decodes a command written by {@link #encodeCommand} of this or an older version.
   *
   * @throws LogDecodeException for an unknown version or a truncated or malformed encoding; never a
   *     partial command
   */
  C decodeCommand(byte[] encoded) throws LogDecodeException;

  /** Encodes a whole state; equal states must encode to equal bytes. */
  byte[] encodeSnapshot(S state);

  /**
   * Decodes a state written by {@link #encodeSnapshot}.
   *
   * @throws LogDecodeException for an unknown version or a truncated or malformed encoding
   */
  S decodeSnapshot(byte[] encoded) throws LogDecodeException;
}
