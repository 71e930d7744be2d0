package io.picomq.meta.apply;

import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;

/**
 * The apply function. Pure and deterministic: the result depends only on the state and the command,
 * so nodes applying the same log agree exactly. A command either applies entirely or not at all.
 */
public final class MetadataApplier {

  private MetadataApplier() {}

  public static Applied apply(MetadataState state, Command command) {
    return switch (command) {
      case Command.RegisterNode c -> NodeTransitions.register(state, c);
      case Command.SetNodeSlots c -> NodeTransitions.setSlots(state, c);
      case Command.PlaceStream c -> StreamTransitions.place(state, c);
      case Command.CreateStream c -> StreamTransitions.create(state, 1);
      case Command.CreateStreams c -> StreamTransitions.create(state, c.count());
      case Command.OpenStream c -> StreamTransitions.open(state, c);
      case Command.TrimStream c -> StreamTransitions.trim(state, c);
      case Command.CloseStream c -> StreamTransitions.close(state, c);
      case Command.DeleteStream c -> StreamTransitions.delete(state, c);
      case Command.PrepareObjects c -> ObjectTransitions.prepare(state, c);
      case Command.CommitStreamSetObject c -> CommitTransitions.commit(state, c);
      case Command.CompactStreamObjects c -> ObjectTransitions.compactStreamObjects(state, c);
      case Command.ExpirePreparedObjects c -> ObjectTransitions.expire(state, c);
      case Command.CleanDestroyedObjects c -> ObjectTransitions.clean(state, c);
      case Command.KvPut c -> KvTransitions.put(state, c);
      case Command.KvPutIfAbsent c -> KvTransitions.putIfAbsent(state, c);
      case Command.KvDelete c -> KvTransitions.delete(state, c);
      case Command.TransferStream c -> TransferTransitions.transfer(state, c);
      case Command.CompleteTransfer c -> TransferTransitions.complete(state, c);
      case Command.CancelTransfer c -> TransferTransitions.cancel(state, c);
      case Command.TakeOverNode c -> NodeTransitions.takeOver(state, c);
    };
  }
}
