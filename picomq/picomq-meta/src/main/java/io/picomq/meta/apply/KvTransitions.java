package io.picomq.meta.apply;

import io.picomq.meta.command.Command.KvDelete;
import io.picomq.meta.command.Command.KvPut;
import io.picomq.meta.command.Command.KvPutIfAbsent;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;

/** The KV the name registry is built on. Writing what is already there is redundant. */
final class KvTransitions {

  private KvTransitions() {}

  static Applied put(MetadataState state, KvPut c) {
    Outcome outcome = new Outcome.KeyWritten(c.key());
    if (c.value().equals(state.kv().get(c.key()))) {
      return Applied.redundant(state, outcome);
    }
    return Applied.ok(state.withKv(c.key(), c.value()), outcome);
  }

  static Applied putIfAbsent(MetadataState state, KvPutIfAbsent c) {
    Outcome outcome = new Outcome.KeyWritten(c.key());
    KvValue existing = state.kv().get(c.key());
    if (existing == null) {
      return Applied.ok(state.withKv(c.key(), c.value()), outcome);
    }
    if (existing.equals(c.value())) {
      return Applied.redundant(state, outcome);
    }
    return Applied.rejected(
        state, RejectReason.KEY_EXISTS, "key " + c.key() + " already has another value");
  }

  static Applied delete(MetadataState state, KvDelete c) {
    Outcome outcome = new Outcome.KeyDeleted(c.key());
    if (!state.kv().containsKey(c.key())) {
      return Applied.redundant(state, outcome);
    }
    return Applied.ok(state.withoutKv(c.key()), outcome);
  }
}
