package io.picomq.sql.kv;

/** A command of the test key-value machine. */
public sealed interface KvCommand {
  String key();

  /** Sets {@code key} to {@code value}. */
  record Put(String key, String value) implements KvCommand {}

  /** Sets {@code key} to {@code value} only if {@code key} is absent. */
  record PutIfAbsent(String key, String value) implements KvCommand {}

  /** Sets {@code key} to {@code value} only if its value is {@code expected} now. */
  record CompareAndPut(String key, String expected, String value) implements KvCommand {}

  /** Removes {@code key}. */
  record Delete(String key) implements KvCommand {}
}
