package io.picomq.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invariant checks run after every applied command in the tests: rebuilding a state from its
 * primary data (which checks every cross-reference) must give back an equal state, with the same
 * placement counts and the same per-stream object index.
 */
public final class StateChecks {

  private StateChecks() {}

  public static void assertConsistent(MetadataState state) {
    MetadataState rebuilt =
        MetadataState.assemble(
            state.nextStreamId(),
            state.nextObjectId(),
            state.nodes().values(),
            state.streams(),
            state.catalog().objects().values(),
            state.preparedObjects(),
            state.destructionQueue(),
            state.pendingTransfers().values(),
            state.kv());
    assertThat(rebuilt).isEqualTo(state);
    assertThat(rebuilt.nodes()).isEqualTo(state.nodes());
    for (long streamId : state.streams().keySet()) {
      assertThat(state.catalog().ranges(streamId))
          .as("index of stream %d", streamId)
          .isEqualTo(rebuilt.catalog().ranges(streamId));
    }
  }
}
