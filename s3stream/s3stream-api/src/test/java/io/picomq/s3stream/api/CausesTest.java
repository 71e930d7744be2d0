package io.picomq.s3stream.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class CausesTest {

  @Test
  void findsTheFailureBeneathNestedFutureWrappers() {
    IOException root = new IOException("disk");
    Throwable wrapped =
        new CompletionException(new ExecutionException(new CompletionException(root)));
    assertThat(Causes.unwrap(wrapped)).isSameAs(root);
  }

  @Test
  void findsWhatADependentStageSees() {
    IllegalStateException root = new IllegalStateException("boom");
    CompletableFuture<Object> failed = CompletableFuture.failedFuture(root);
    Throwable seen = failed.thenApply(x -> x).handle((v, e) -> e).join();
    assertThat(seen).isInstanceOf(CompletionException.class);
    assertThat(Causes.unwrap(seen)).isSameAs(root);
  }

  @Test
  void leavesOtherFailuresAndTheirCausesAlone() {
    RuntimeException outer = new RuntimeException(new IOException("inner"));
    assertThat(Causes.unwrap(outer)).isSameAs(outer);
  }

  @Test
  void aWrapperWithoutACauseIsItsOwnAnswer() {
    CompletionException empty = new CompletionException("no cause", null);
    assertThat(Causes.unwrap(empty)).isSameAs(empty);
  }
}
