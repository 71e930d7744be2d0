package io.picomq.s3stream.wal;

import java.util.Objects;

/** Whether a WAL takes appends now, and if not, why not. Public for WAL implementations. */
public sealed interface WalStatus {

  /** Started but not yet {@link WriteAheadLog#reset}: recovery is still going on. */
  record NotOpen() implements WalStatus {}

  /** Appends and trims are taken. */
  record Open() implements WalStatus {}

  /** {@link WriteAheadLog#shutdownGracefully()} began: what was appended is being stored. */
  record Closing() implements WalStatus {}

  /** Shut down or closed; nothing more is stored. */
  record Closed(String reason) implements WalStatus {
    public Closed {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** A newer epoch took over. */
  record Fenced(long epoch, String reason) implements WalStatus {
    public Fenced {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Storage failed for good. */
  record Failed(WalFailedException error) implements WalStatus {
    public Failed {
      Objects.requireNonNull(error, "error");
    }
  }

  /** True once the WAL will never store again. */
  default boolean terminal() {
    return this instanceof Closed || this instanceof Fenced || this instanceof Failed;
  }

  /** What an append gets in this status, if it is refused. */
  default WalAppendResult refusal() {
    return switch (this) {
      case NotOpen n -> new WalAppendResult.Closed("the WAL is not open yet: reset() opens it");
      case Open o -> throw new IllegalStateException("an open WAL refuses nothing");
      case Closing c -> new WalAppendResult.Closed("the WAL is shutting down");
      case Closed c -> new WalAppendResult.Closed(c.reason());
      case Fenced f -> new WalAppendResult.Fenced(f.epoch(), f.reason());
      case Failed f -> new WalAppendResult.Failed(f.error());
    };
  }

  /** The error that fails a pending record or trim in this (terminal or closing) status. */
  default RuntimeException error() {
    return switch (this) {
      case Fenced f -> new WalFencedException(f.epoch(), f.reason());
      case Failed f -> f.error();
      case Closed c ->
          new WalClosedException("the WAL closed before this was stored: " + c.reason());
      case NotOpen n -> new IllegalStateException("the WAL is not open yet: reset() opens it");
      case Closing c -> new WalClosedException("the WAL is shutting down");
      case Open o -> throw new IllegalStateException("an open WAL has no error");
    };
  }
}
