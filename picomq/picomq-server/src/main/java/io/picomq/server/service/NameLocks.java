package io.picomq.server.service;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Locks that keep a fork's source from ending while the fork is built: creating a fork holds its
 * source's name lock from checking the source until the source's entry counts the fork, and ending
 * a stream (delete, expiry, the release of its last fork) takes its name lock to decide between a
 * soft delete and a removal. Nothing else takes them: creates, appends, reads, trims and loading a
 * name never wait on one.
 *
 * <p>Striped by the name's hash, so the locks cost a fixed array whatever the number of names; two
 * names that share a stripe only wait for each other's fork creations and endings. Held across
 * blocking I/O (building a fork reads the source and writes the fork), which is what a striped lock
 * instead of one node-wide lock makes harmless to the other names.
 *
 * <p>Deadlock freedom: a thread holds at most one of these at a time. Nobody looks a name up (which
 * may end an expired stream, taking its lock) while holding one, and the release of a removed
 * fork's hold on its source runs after the fork's lock is released.
 */
final class NameLocks {
  private static final int STRIPES = 1024;

  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

  NameLocks() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** The lock of {@code name}'s stripe. */
  ReentrantLock of(String name) {
    return stripes[Math.floorMod(name.hashCode() * 0x9E3779B9, STRIPES)];
  }
}
