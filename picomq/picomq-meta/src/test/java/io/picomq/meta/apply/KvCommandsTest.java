package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import org.junit.jupiter.api.Test;

class KvCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();
  private final KvValue one = KvValue.ofUtf8("stream 1");
  private final KvValue two = KvValue.ofUtf8("stream 2");

  @Test
  void putWritesAndOverwritesAndRewritingTheSameValueIsRedundant() {
    assertThat(machine.ok(new Command.KvPut("names/orders", one)))
        .isEqualTo(new Outcome.KeyWritten("names/orders"));
    machine.ok(new Command.KvPut("names/orders", two));
    machine.redundant(new Command.KvPut("names/orders", two));

    assertThat(machine.state.kvValue("names/orders")).contains(two);
  }

  @Test
  void putIfAbsentWritesOnceRepeatsAreRedundantAndADifferentValueLoses() {
    machine.ok(new Command.KvPutIfAbsent("names/orders", one));
    machine.redundant(new Command.KvPutIfAbsent("names/orders", one));
    machine.rejected(new Command.KvPutIfAbsent("names/orders", two), RejectReason.KEY_EXISTS);

    assertThat(machine.state.kvValue("names/orders")).contains(one);
  }

  @Test
  void deleteRemovesAndDeletingAnAbsentKeyIsRedundant() {
    machine.ok(new Command.KvPut("names/orders", one));

    assertThat(machine.ok(new Command.KvDelete("names/orders")))
        .isEqualTo(new Outcome.KeyDeleted("names/orders"));
    assertThat(machine.state.kvValue("names/orders")).isEmpty();
    machine.redundant(new Command.KvDelete("names/orders"));
    machine.ok(new Command.KvPutIfAbsent("names/orders", two)); // the name is free again
  }

  @Test
  void valuesAreCopiedSoTheCallersArrayCannotChangeTheState() {
    byte[] bytes = {1, 2, 3};
    KvValue value = KvValue.of(bytes);
    machine.ok(new Command.KvPut("k", value));
    bytes[0] = 9;
    value.toByteArray()[1] = 9;

    assertThat(machine.state.kvValue("k").orElseThrow().toByteArray()).containsExactly(1, 2, 3);
  }

  @Test
  void keysAreNonEmptyWellFormedAndBounded() {
    assertThatThrownBy(() -> new Command.KvDelete("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Command.KvDelete("\uD800"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Command.KvDelete("x".repeat(Command.MAX_KEY_BYTES + 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KvValue.of(new byte[KvValue.MAX_BYTES + 1]))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
