package io.picomq.sql.log;

/**
 * Told about every view a {@link SqlLog} publishes: once per applied row, and once when the node
 * reinstalls a snapshot (the applied index then jumps past the rows it skipped).
 *
 * <p>Called on the log's tailer thread, in index order. It must return quickly and never block: the
 * next row waits for it. An exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface ViewListener<S> {
  void onApplied(View<S> view);
}
