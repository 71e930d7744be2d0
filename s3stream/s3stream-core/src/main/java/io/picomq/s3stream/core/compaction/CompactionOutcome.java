package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import java.util.Objects;

/** What a stream-set object compaction did. */
public sealed interface CompactionOutcome {

  /** The plan that was (or would have been) carried out. */
  CompactionPlan plan();

  /** Nothing was worth compacting; nothing was written or committed. */
  record NothingToCompact(CompactionPlan plan) implements CompactionOutcome {
    public NothingToCompact {
      Objects.requireNonNull(plan, "plan");
    }
  }

  /**
   * The plan was carried out and {@code commit} was accepted: the source objects are replaced.
   *
   * @param commit the request the object manager accepted
   */
  record Compacted(CompactionPlan plan, CommitStreamSetObjectRequest commit)
      implements CompactionOutcome {
    public Compacted {
      Objects.requireNonNull(plan, "plan");
      Objects.requireNonNull(commit, "commit");
    }
  }
}
