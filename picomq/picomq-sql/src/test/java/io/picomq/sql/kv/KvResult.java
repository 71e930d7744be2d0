package io.picomq.sql.kv;

import java.util.Optional;

/**
 * What applying one command did.
 *
 * @param sequence the command's position in the global apply order, from 1: every node assigns
 *     every command the same one, so the results of all proposals tell whether each was applied
 *     exactly once
 * @param changed whether the state changed
 * @param previous the key's value before the command
 */
public record KvResult(long sequence, boolean changed, Optional<String> previous) {}
