package io.picomq.sql.liveness;

import java.util.Locale;

/** What the liveness table says about one node process (see {@link LivenessView#state}). */
public enum NodeState {
  /** Its row is current: renewed within the last two renewal intervals and not lapsed. */
  LIVE,
  /**
   * Its row has not lapsed, but the process missed renewals (or the row is an older process's of
   * the same node id): it may be about to die, or the database may be slow. Do not declare it dead
   * yet; prefer other nodes where there is a choice.
   */
  SUSPECT,
  /** No row, or its row lapsed by the database's clock: the process no longer acknowledges. */
  DEAD;

  /**
   * The lower-case name the admin API and the CLI show: {@code live}, {@code suspect}, {@code
   * dead}.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
