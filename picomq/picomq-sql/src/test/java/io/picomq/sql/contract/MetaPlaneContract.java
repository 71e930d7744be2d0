package io.picomq.sql.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.UnsupportedSchemaException;
import io.picomq.sql.fault.Eventually;
import io.picomq.sql.fault.FaultyBackend;
import io.picomq.sql.fault.MutableClock;
import io.picomq.sql.kv.KvCommand;
import io.picomq.sql.kv.KvMachine;
import io.picomq.sql.kv.KvResult;
import io.picomq.sql.kv.KvState;
import io.picomq.sql.lease.LeaseOptions;
import io.picomq.sql.lease.LeaseRow;
import io.picomq.sql.lease.LeaseState;
import io.picomq.sql.lease.LeaseTable;
import io.picomq.sql.lease.MaintenanceLease;
import io.picomq.sql.log.LogClosedException;
import io.picomq.sql.log.LogDecodeException;
import io.picomq.sql.log.LogOptions;
import io.picomq.sql.log.LogOverloadedException;
import io.picomq.sql.log.LogRow;
import io.picomq.sql.log.LogStoppedException;
import io.picomq.sql.log.ProposalOutcomeUnknownException;
import io.picomq.sql.log.RowCodec;
import io.picomq.sql.log.SqlLog;
import io.picomq.sql.log.Transition;
import io.picomq.sql.log.View;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of the metadata plane's SQL parts (schema, command log, snapshots, lease), run
 * against every backend by a small subclass. Nodes are separate {@link SqlLog} and {@link
 * MaintenanceLease} instances, each with its own {@link FaultyBackend} in front of the database and
 * its own connections, so they race through the database exactly as separate processes do.
 */
public abstract class MetaPlaneContract {
  protected static final Duration WAIT = Duration.ofSeconds(30);
  private static final KvMachine MACHINE = new KvMachine();

  private final List<AutoCloseable> closeables = new ArrayList<>();

  /**
   * A handle on the database under test for one more node. The subclass keeps what it opens and
   * releases it in {@link #closeBackends()}.
   */
  protected abstract SqlBackend openNodeBackend() throws SQLException;

  /** Closes the backends {@link #openNodeBackend()} opened; called after every test. */
  protected abstract void closeBackends() throws Exception;

  @AfterEach
  final void closeEverything() throws Exception {
    // Injected faults end with the test, so nothing hangs on a stalled node while closing.
    for (AutoCloseable closeable : closeables) {
      if (closeable instanceof FaultyBackend faulty) {
        faulty.resume();
      }
    }
    Collections.reverse(closeables);
    for (AutoCloseable closeable : closeables) {
      closeable.close();
    }
    closeables.clear();
    closeBackends();
  }

  protected FaultyBackend node() throws SQLException {
    FaultyBackend backend = new FaultyBackend(openNodeBackend());
    closeables.add(backend);
    return backend;
  }

  private static LogOptions.Builder fastLog(String name) {
    return log(name, Duration.ofMillis(5));
  }

  /**
   * A log whose tailer reads only when its own flusher wakes it after a write: the test then knows
   * exactly which rows it has seen.
   */
  protected static LogOptions.Builder wokenOnlyByItsOwnWrites(String name) {
    return log(name, Duration.ofHours(1));
  }

  private static LogOptions.Builder log(String name, Duration pollInterval) {
    return LogOptions.builder()
        .name(name)
        .pollInterval(pollInterval)
        // Small chunks: every snapshot in these tests is stored in several.
        .snapshotChunkBytes(16)
        .maxRetryBackoff(Duration.ofMillis(50));
  }

  protected SqlLog<KvState, KvCommand, KvResult> startLog(SqlBackend backend, LogOptions options)
      throws Exception {
    SqlLog<KvState, KvCommand, KvResult> log = new SqlLog<>(backend, MACHINE, options);
    closeables.add(log);
    log.start().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    return log;
  }

  protected static KvResult propose(SqlLog<KvState, KvCommand, KvResult> log, KvCommand command)
      throws Exception {
    return log.propose(command).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  // ---------------------------------------------------------------------------------- schema

  @Test
  void schemaCreationIsIdempotentEvenWhenNodesRace() throws Exception {
    List<SqlBackend> backends = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      backends.add(openNodeBackend());
    }
    try (ExecutorService racers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<CompletableFuture<Integer>> versions = new ArrayList<>();
      for (SqlBackend backend : backends) {
        versions.add(CompletableFuture.supplyAsync(() -> ensure(backend), racers));
      }
      for (CompletableFuture<Integer> version : versions) {
        assertThat(version.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Schema.VERSION);
      }
    }
    SqlBackend any = backends.get(0);
    assertThat(count(any, any.tables().schemaVersion())).isEqualTo(1);
    assertThat(count(any, any.tables().lease())).isEqualTo(1);
    assertThat(new LeaseTable(any).read()).isEqualTo(new LeaseRow(Optional.empty(), 0, 0));
  }

  private static int ensure(SqlBackend backend) {
    try {
      return Schema.ensure(backend);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aSchemaFromANewerVersionIsRefused() throws Exception {
    SqlBackend backend = openNodeBackend();
    execute(
        backend,
        "INSERT INTO "
            + backend.tables().schemaVersion()
            + " (version) VALUES ("
            + (Schema.VERSION + 1)
            + ")");
    assertThatThrownBy(() -> Schema.ensure(backend))
        .isInstanceOf(UnsupportedSchemaException.class)
        .hasMessageContaining("schema version " + (Schema.VERSION + 1))
        .hasMessageContaining("upgrade PicoMQ");
  }

  // ------------------------------------------------------------------------------------- log

  @Test
  void racingWritersApplyEveryProposalExactlyOnceInOneOrderOnEveryNode() throws Exception {
    int nodes = 3;
    int proposersPerNode = 4;
    int proposalsPerProposer = 50;
    List<SqlLog<KvState, KvCommand, KvResult>> logs = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      logs.add(startLog(node(), fastLog("node-" + n).build()));
    }
    List<CompletableFuture<KvResult>> results = new CopyOnWriteArrayList<>();
    try (ExecutorService proposers = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int n = 0; n < nodes; n++) {
        for (int p = 0; p < proposersPerNode; p++) {
          SqlLog<KvState, KvCommand, KvResult> log = logs.get(n);
          String prefix = "n" + n + "-p" + p + "-";
          proposers.execute(
              () -> {
                for (int i = 0; i < proposalsPerProposer; i++) {
                  results.add(log.propose(new KvCommand.PutIfAbsent(prefix + i, "v")));
                }
              });
        }
      }
    }
    long total = (long) nodes * proposersPerNode * proposalsPerProposer;
    List<Long> sequences = new ArrayList<>();
    for (CompletableFuture<KvResult> result : results) {
      KvResult applied = result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(applied.changed()).as("each key is proposed once").isTrue();
      sequences.add(applied.sequence());
    }
    // Every proposal got its own position in the global order, and no position is missing.
    assertThat(sequences).containsExactlyInAnyOrderElementsOf(range(1, total));
    for (SqlLog<KvState, KvCommand, KvResult> log : logs) {
      Eventually.await(WAIT, "every node applied all", () -> log.view().state().applied() == total);
    }
    KvState first = logs.get(0).view().state();
    assertThat(first.entries()).hasSize((int) total);
    for (SqlLog<KvState, KvCommand, KvResult> log : logs) {
      assertThat(log.view().state()).isEqualTo(first);
    }
  }

  private static List<Long> range(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().toList();
  }

  @Test
  void groupCommitPacksConcurrentProposalsIntoFewRows() throws Exception {
    int cap = 50;
    int proposals = 2000;
    FaultyBackend backend = node();
    SqlLog<KvState, KvCommand, KvResult> log =
        startLog(backend, fastLog("packer").maxCommandsPerRow(cap).build());
    List<CompletableFuture<KvResult>> results = new CopyOnWriteArrayList<>();
    try (ExecutorService proposers = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int p = 0; p < 8; p++) {
        int proposer = p;
        proposers.execute(
            () -> {
              for (int i = 0; i < proposals / 8; i++) {
                results.add(log.propose(new KvCommand.Put("p" + proposer + "-" + i, "v")));
              }
            });
      }
    }
    for (CompletableFuture<KvResult> result : results) {
      result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    List<Integer> commandsPerRow = new ArrayList<>();
    for (byte[] payload : payloads(backend)) {
      commandsPerRow.add(RowCodec.decode(payload).commands().size());
    }
    assertThat(commandsPerRow.stream().mapToInt(Integer::intValue).sum()).isEqualTo(proposals);
    assertThat(commandsPerRow).allSatisfy(size -> assertThat(size).isBetween(1, cap));
    assertThat(commandsPerRow.size())
        .as("rows for %d concurrent proposals", proposals)
        .isLessThanOrEqualTo(proposals / 8);
    assertThat(log.view().state().applied()).isEqualTo(proposals);
  }

  @Test
  void aLaggingTailerCrossesATruncationByReinstallingTheSnapshot() throws Exception {
    SqlLog<KvState, KvCommand, KvResult> writer =
        startLog(node(), fastLog("writer").snapshotEveryRows(16).build());
    FaultyBackend laggardBackend = node();
    SqlLog<KvState, KvCommand, KvResult> laggard =
        startLog(laggardBackend, fastLog("laggard").snapshotEveryRows(16).build());
    List<View<KvState>> seenByLaggard = new CopyOnWriteArrayList<>();
    laggard.addListener(seenByLaggard::add);
    for (int i = 0; i < 5; i++) {
      propose(writer, new KvCommand.Put("early-" + i, "v"));
    }
    laggard.awaitApplied(5, WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    laggardBackend.stall();
    for (int i = 0; i < 100; i++) {
      propose(writer, new KvCommand.Put("late-" + (i % 7), "v" + i));
    }
    SqlBackend raw = openNodeBackend();
    Eventually.await(
        WAIT,
        "the snapshot through row 96 truncated the rows the laggard needs",
        () -> oldestIndex(raw) >= 96);
    laggardBackend.resume();

    long last = writer.view().appliedIndex();
    View<KvState> caughtUp =
        laggard.awaitApplied(last, WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(caughtUp.state()).isEqualTo(writer.view().state());
    assertThat(jumps(seenByLaggard))
        .as("the laggard skipped the truncated rows by installing a snapshot")
        .isNotEmpty();
  }

  private static List<Long> jumps(List<View<KvState>> views) {
    List<Long> jumps = new ArrayList<>();
    for (int i = 1; i < views.size(); i++) {
      if (views.get(i).appliedIndex() > views.get(i - 1).appliedIndex() + 1) {
        jumps.add(views.get(i).appliedIndex());
      }
    }
    return jumps;
  }

  @Test
  void aProposalWhoseRowALaggingNodeCrossesOnASnapshotReportsAnUnknownResult() throws Exception {
    FaultyBackend laggardBackend = node();
    SqlLog<KvState, KvCommand, KvResult> laggard =
        startLog(laggardBackend, fastLog("laggard").snapshotEveryRows(16).build());
    SqlLog<KvState, KvCommand, KvResult> writer =
        startLog(node(), fastLog("writer").snapshotEveryRows(16).build());
    SqlBackend raw = openNodeBackend();
    laggardBackend.stallAfterNextLogInsert();
    CompletableFuture<KvResult> crossed = laggard.propose(new KvCommand.Put("mine", "v"));
    // The stall starts as the insert starts: wait for the row itself before the writer races it.
    Eventually.await(WAIT, "the laggard's row is stored", () -> lastIndex(raw) == 1);
    for (int i = 0; i < 40; i++) {
      propose(writer, new KvCommand.Put("other-" + i, "v"));
    }
    Eventually.await(WAIT, "the laggard's row is truncated", () -> oldestIndex(raw) >= 32);
    laggardBackend.resume();

    assertThatThrownBy(() -> crossed.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(ProposalOutcomeUnknownException.class)
        .hasMessageContaining("took effect once");
    laggard
        .awaitApplied(writer.view().appliedIndex(), WAIT)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(laggard.view().state().entries()).containsEntry("mine", "v");
    assertThat(laggard.view().state()).isEqualTo(writer.view().state());
  }

  @Test
  void catchingUpAppliesWhatAnotherNodeHasJustWritten() throws Exception {
    // The reader's tailer polls once an hour: only catching up can show it the writer's row (on
    // Postgres a notification may too; catching up must hold either way).
    SqlLog<KvState, KvCommand, KvResult> reader =
        startLog(node(), wokenOnlyByItsOwnWrites("reader").build());
    SqlLog<KvState, KvCommand, KvResult> writer = startLog(node(), fastLog("writer").build());
    propose(writer, new KvCommand.Put("just-created", "v"));

    View<KvState> caughtUp = reader.catchUp(WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(caughtUp.appliedIndex()).isGreaterThanOrEqualTo(writer.view().appliedIndex());
    assertThat(caughtUp.state().entries()).containsEntry("just-created", "v");
  }

  @Test
  void anInsertWhoseAnswerIsLostIsNeitherLostNorDuplicated() throws Exception {
    FaultyBackend backend = node();
    SqlLog<KvState, KvCommand, KvResult> log = startLog(backend, fastLog("unsure").build());
    backend.loseAnswerOfNextLogInsert();
    assertThat(propose(log, new KvCommand.Put("once", "v")).sequence()).isEqualTo(1);
    assertThat(propose(log, new KvCommand.Put("then", "v")).sequence()).isEqualTo(2);
    List<byte[]> rows = payloads(openNodeBackend());
    assertThat(rows).hasSize(2);
    assertThat(replay(rows).applied()).isEqualTo(2);
  }

  @Test
  void proposalsBeyondTheQueueLimitAreRefusedNotQueued() throws Exception {
    FaultyBackend backend = node();
    SqlLog<KvState, KvCommand, KvResult> log =
        startLog(backend, fastLog("small").maxPendingProposals(1).build());
    backend.stall();
    CompletableFuture<KvResult> writing = log.propose(new KvCommand.Put("a", "1"));
    Eventually.await(
        WAIT, "the flusher and the tailer hang in the stall", () -> backend.stalledCalls() >= 2);
    CompletableFuture<KvResult> queued = log.propose(new KvCommand.Put("b", "2"));
    CompletableFuture<KvResult> refused = log.propose(new KvCommand.Put("c", "3"));
    assertThat(refused).isCompletedExceptionally();
    assertThatThrownBy(refused::join).cause().isInstanceOf(LogOverloadedException.class);
    backend.resume();
    assertThat(writing.get(WAIT.toSeconds(), TimeUnit.SECONDS).sequence()).isEqualTo(1);
    assertThat(queued.get(WAIT.toSeconds(), TimeUnit.SECONDS).sequence()).isEqualTo(2);
    assertThat(log.view().state().entries()).containsOnlyKeys("a", "b");
  }

  @Test
  void aRestartedNodeLoadsTheSnapshotAndReplaysTheTail() throws Exception {
    LogOptions options = fastLog("first").snapshotEveryRows(16).build();
    SqlLog<KvState, KvCommand, KvResult> first = startLog(node(), options);
    for (int i = 0; i < 40; i++) {
      propose(first, new KvCommand.Put("k" + (i % 5), "v" + i));
    }
    SqlBackend raw = openNodeBackend();
    Eventually.await(WAIT, "the snapshot through row 32 is stored", () -> snapshotIndex(raw) == 32);
    View<KvState> before = first.view();
    first.close();

    SqlLog<KvState, KvCommand, KvResult> restarted =
        new SqlLog<>(node(), MACHINE, fastLog("restarted").snapshotEveryRows(16).build());
    closeables.add(restarted);
    List<View<KvState>> seen = new CopyOnWriteArrayList<>();
    restarted.addListener(seen::add);
    View<KvState> started = restarted.start().get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(started).isEqualTo(before);
    assertThat(seen.get(0).appliedIndex()).as("first view: the snapshot").isEqualTo(32);
    assertThat(seen.stream().map(View::appliedIndex)).containsExactlyElementsOf(range(32, 40));
  }

  @Test
  void aSnapshotIsStoredInChunksAndOnlyTheNewestIsKept() throws Exception {
    SqlBackend raw = openNodeBackend();
    String chunks = raw.tables().snapshotChunks();
    // What a writer that died between its chunks and its switch leaves behind.
    raw.withConnection(
        connection -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO " + chunks + " (idx, writer, seq, payload) VALUES (8, 42, 0, ?)")) {
            insert.setBytes(1, new byte[] {0});
            return insert.executeUpdate();
          }
        });
    SqlLog<KvState, KvCommand, KvResult> log =
        startLog(node(), fastLog("chunked").snapshotEveryRows(16).build());
    for (int i = 0; i < 40; i++) {
      propose(log, new KvCommand.Put("k" + (i % 5), "v" + i));
    }
    Eventually.await(WAIT, "the snapshot through row 32 is stored", () -> snapshotIndex(raw) == 32);

    // The row holds a manifest (version 2, 33 bytes), the state is in chunks of at most 16 bytes.
    assertThat(queryLong(raw, "SELECT length(payload) FROM " + raw.tables().snapshot()))
        .isEqualTo(33);
    assertThat(queryLong(raw, "SELECT COUNT(DISTINCT idx) FROM " + chunks))
        .as("chunks of the snapshot through row 16 and the dead writer's are gone")
        .isEqualTo(1);
    assertThat(queryLong(raw, "SELECT MIN(idx) FROM " + chunks)).isEqualTo(32);
    assertThat(queryLong(raw, "SELECT COUNT(*) FROM " + chunks)).isGreaterThan(2);
    assertThat(queryLong(raw, "SELECT MAX(length(payload)) FROM " + chunks)).isEqualTo(16);
  }

  @Test
  void aSnapshotWrittenWholeByAnOlderBuildStillLoads() throws Exception {
    SqlLog<KvState, KvCommand, KvResult> first =
        startLog(node(), fastLog("old").snapshotEveryRows(1 << 20).build());
    for (int i = 0; i < 10; i++) {
      propose(first, new KvCommand.Put("k" + i, "v" + i));
    }
    View<KvState> before = first.view();
    first.close();
    // Envelope version 1 in the row itself, as documented: version, index, state, CRC32C.
    byte[] state = MACHINE.encodeSnapshot(before.state());
    ByteBuffer envelope = ByteBuffer.allocate(1 + 8 + state.length + 4);
    envelope.put((byte) 1).putLong(before.appliedIndex()).put(state);
    CRC32C crc = new CRC32C();
    crc.update(envelope.array(), 0, envelope.position());
    envelope.putInt((int) crc.getValue());
    SqlBackend raw = openNodeBackend();
    raw.withConnection(
        connection -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO "
                      + raw.tables().snapshot()
                      + " (id, idx, payload) VALUES (1, ?, ?)")) {
            insert.setLong(1, before.appliedIndex());
            insert.setBytes(2, envelope.array());
            return insert.executeUpdate();
          }
        });
    execute(raw, "DELETE FROM " + raw.tables().log() + " WHERE idx < " + before.appliedIndex());

    SqlLog<KvState, KvCommand, KvResult> restarted =
        new SqlLog<>(node(), MACHINE, fastLog("new").build());
    closeables.add(restarted);
    assertThat(restarted.start().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(before);
  }

  @Test
  void aSnapshotMissingAChunkStopsTheSinkClearly() throws Exception {
    SqlLog<KvState, KvCommand, KvResult> first =
        startLog(node(), fastLog("first").snapshotEveryRows(16).build());
    for (int i = 0; i < 20; i++) {
      propose(first, new KvCommand.Put("k" + (i % 5), "v" + i));
    }
    SqlBackend raw = openNodeBackend();
    Eventually.await(WAIT, "the snapshot through row 16 is stored", () -> snapshotIndex(raw) == 16);
    first.close();
    execute(raw, "DELETE FROM " + raw.tables().snapshotChunks() + " WHERE seq = 1");

    SqlLog<KvState, KvCommand, KvResult> restarted =
        new SqlLog<>(node(), MACHINE, fastLog("restarted").build());
    closeables.add(restarted);
    assertThatThrownBy(() -> restarted.start().get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .hasCauseInstanceOf(LogStoppedException.class)
        .cause()
        .hasMessageContaining("undecodable (snapshot)")
        .hasMessageContaining("the chunks of the snapshot through row 16 are not all there");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"garbage row", "undecodable command"})
  void anUndecodableRowStopsTheSinkAndFailsProposalsClearly(String corruption) throws Exception {
    // The tailer reads only when this node's flusher wakes it, so the second proposal is certainly
    // waiting in its own row, after the corrupt one, when the tailer meets the corrupt row.
    SqlLog<KvState, KvCommand, KvResult> log =
        startLog(node(), wokenOnlyByItsOwnWrites("victim").build());
    propose(log, new KvCommand.Put("before", "v"));
    SqlBackend raw = openNodeBackend();
    long corruptIndex = lastIndex(raw) + 1;
    byte[] payload =
        corruption.equals("garbage row")
            ? "not a row".getBytes(StandardCharsets.UTF_8)
            : RowCodec.encode(new LogRow(42, 1, List.of(new byte[] {9, 9, 9})));
    insertRow(raw, corruptIndex, payload);

    CompletableFuture<KvResult> waiting = log.propose(new KvCommand.Put("after", "v"));

    assertThatThrownBy(() -> waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(LogStoppedException.class)
        .hasMessageStartingWith("metadata log stopped: row " + corruptIndex + " undecodable");
    assertThat(log.stopped())
        .hasValueSatisfying(
            stop -> {
              assertThat(stop.rowIndex()).isEqualTo(corruptIndex);
              assertThat(stop.reason()).isEqualTo(LogStoppedException.Reason.UNDECODABLE_ROW);
            });
    CompletableFuture<KvResult> refused = log.propose(new KvCommand.Put("later", "v"));
    assertThat(refused).as("fails fast").isCompletedExceptionally();
    assertThatThrownBy(refused::join).cause().isSameAs(log.stopped().orElseThrow());
    assertThatThrownBy(() -> log.awaitApplied(corruptIndex, WAIT).join())
        .cause()
        .isInstanceOf(LogStoppedException.class);
    assertThat(log.view().appliedIndex())
        .as("the row is never skipped")
        .isEqualTo(corruptIndex - 1);
    assertThat(log.view().state().entries()).containsOnlyKeys("before");

    // A fresh node stops at the same row instead of skipping it.
    SqlLog<KvState, KvCommand, KvResult> fresh =
        new SqlLog<>(node(), MACHINE, fastLog("fresh").build());
    closeables.add(fresh);
    assertThatThrownBy(() -> fresh.start().get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(LogStoppedException.class)
        .hasMessageStartingWith("metadata log stopped: row " + corruptIndex + " undecodable");
    assertThat(fresh.view().appliedIndex()).isEqualTo(corruptIndex - 1);
  }

  @Test
  void aWriterKilledBetweenInsertAndApplyLeavesTheLogAuthoritative() throws Exception {
    FaultyBackend doomed = node();
    SqlLog<KvState, KvCommand, KvResult> writer =
        startLog(doomed, wokenOnlyByItsOwnWrites("doomed").build());
    propose(writer, new KvCommand.Put("k1", "v1"));
    doomed.killAfterNextLogInsert();
    CompletableFuture<KvResult> inFlight = writer.propose(new KvCommand.Put("k2", "v2"));
    SqlBackend raw = openNodeBackend();
    Eventually.await(WAIT, "the writer's last row is stored", () -> lastIndex(raw) == 2);
    assertThat(doomed.dead()).isTrue();
    assertThat(writer.view().state().entries()).doesNotContainKey("k2");
    writer.close();
    assertThatThrownBy(inFlight::join).cause().isInstanceOf(LogClosedException.class);

    SqlLog<KvState, KvCommand, KvResult> restarted = startLog(node(), fastLog("restarted").build());
    KvState recovered = restarted.view().state();
    assertThat(recovered).isEqualTo(replay(payloads(raw)));
    assertThat(recovered.entries()).containsEntry("k1", "v1").containsEntry("k2", "v2");
  }

  /** The state the log's rows say, computed independently of {@link SqlLog}. */
  private static KvState replay(List<byte[]> payloads) throws LogDecodeException {
    KvState state = MACHINE.initial();
    for (byte[] payload : payloads) {
      for (byte[] command : RowCodec.decode(payload).commands()) {
        Transition<KvState, KvResult> applied =
            MACHINE.apply(state, MACHINE.decodeCommand(command));
        state = applied.state();
      }
    }
    return state;
  }

  // ----------------------------------------------------------------------------------- lease

  // A holder renews every 100 ms of test time and demotes itself 600 ms after its last confirmed
  // renewal. Tests that let time pass while a holder is healthy advance the clock only once the
  // renewal stored in SQL is younger than 200 ms: since a holder has at most one renewal in flight,
  // the one it has confirmed is then at most ~350 ms old, far from its 600 ms deadline, however
  // slowly its thread runs.
  private static final Duration TTL = Duration.ofMillis(1000);
  private static final Duration RENEW = Duration.ofMillis(100);
  private static final Duration MARGIN = Duration.ofMillis(400);

  private MaintenanceLease lease(SqlBackend backend, String node, MutableClock clock) {
    LeaseOptions options =
        LeaseOptions.builder()
            .ttl(TTL)
            .renewInterval(RENEW)
            .safetyMargin(MARGIN)
            .checkInterval(Duration.ofMillis(2))
            .build();
    MaintenanceLease lease = new MaintenanceLease(backend, node, clock, options);
    closeables.add(lease);
    return lease;
  }

  private record Change(Instant at, LeaseState state) {}

  private static List<Change> watch(MaintenanceLease lease, MutableClock clock) {
    List<Change> changes = new CopyOnWriteArrayList<>();
    lease.addListener(state -> changes.add(new Change(clock.instant(), state)));
    return changes;
  }

  /** Waits until the stored lease was renewed less than 200 ms ago by the test clock. */
  private static void awaitFreshRenewal(LeaseTable table, MutableClock clock) throws Exception {
    Eventually.await(
        WAIT,
        "the holder renewed for the current time",
        () -> table.read().expiresAtMillis() > clock.millis() + TTL.toMillis() - 200);
  }

  private static long leaderEpoch(MaintenanceLease lease) throws Exception {
    Eventually.await(WAIT, "the lease is held", () -> lease.state() instanceof LeaseState.Leader);
    return ((LeaseState.Leader) lease.state()).epoch();
  }

  /** Moves the clock in small steps until {@code condition} holds, giving the loops time. */
  private static void advanceUntil(MutableClock clock, String what, Eventually.Condition condition)
      throws Exception {
    for (int step = 0; step < 200; step++) {
      if (Eventually.within(Duration.ofMillis(100), condition)) {
        return;
      }
      clock.advance(Duration.ofMillis(50));
    }
    throw new AssertionError("never happened: " + what);
  }

  @Test
  void aStalledHolderDemotesItselfBeforeAnotherNodeTakesOverWithAHigherEpoch() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    FaultyBackend holderBackend = node();
    MaintenanceLease holder = lease(holderBackend, "node-a", clock);
    List<Change> holderChanges = watch(holder, clock);
    holder.start();
    long firstEpoch = leaderEpoch(holder);
    MaintenanceLease challenger = lease(node(), "node-b", clock);
    List<Change> challengerChanges = watch(challenger, clock);
    challenger.start();

    // While the holder renews, time passing changes nothing.
    LeaseTable table = new LeaseTable(openNodeBackend());
    for (int step = 0; step < 60; step++) {
      clock.advance(Duration.ofMillis(50));
      awaitFreshRenewal(table, clock);
    }
    assertThat(holder.state()).isEqualTo(new LeaseState.Leader(firstEpoch));
    assertThat(challenger.state()).isEqualTo(new LeaseState.Follower());

    holderBackend.stall();
    long lastExpiry = table.read().expiresAtMillis();
    advanceUntil(
        clock, "the holder demotes itself", () -> holder.state() instanceof LeaseState.Follower);
    advanceUntil(
        clock, "the challenger takes over", () -> challenger.state() instanceof LeaseState.Leader);

    long secondEpoch = leaderEpoch(challenger);
    assertThat(secondEpoch).isGreaterThan(firstEpoch);
    Eventually.await(WAIT, "the listeners heard", () -> holderChanges.size() == 2);
    Eventually.await(WAIT, "the listeners heard", () -> challengerChanges.size() == 1);
    Instant demoted = holderChanges.get(1).at();
    Instant tookOver = challengerChanges.get(0).at();
    assertThat(demoted).isBefore(tookOver);
    assertThat(demoted.toEpochMilli()).isLessThan(lastExpiry);
    assertThat(tookOver.toEpochMilli()).isGreaterThanOrEqualTo(lastExpiry);

    // The stalled renewal finally reaches the database with the old epoch: it changes nothing.
    holderBackend.resume();
    for (int step = 0; step < 20; step++) {
      clock.advance(Duration.ofMillis(50));
      awaitFreshRenewal(table, clock);
    }
    assertThat(holder.state()).isEqualTo(new LeaseState.Follower());
    assertThat(challenger.state()).isEqualTo(new LeaseState.Leader(secondEpoch));
    assertThat(table.read().holder()).contains("node-b");
    assertThat(holderChanges.stream().map(Change::state))
        .containsExactly(new LeaseState.Leader(firstEpoch), new LeaseState.Follower());
  }

  @Test
  void aStaleEpochCannotRenewOrReleaseTheLease() throws Exception {
    LeaseTable table = new LeaseTable(openNodeBackend());
    LeaseRow taken = table.takeOver(table.read(), "node-a", 1_000).orElseThrow();
    assertThat(taken.epoch()).isEqualTo(1);
    assertThat(table.takeOver(new LeaseRow(Optional.empty(), 0, 0), "node-b", 2_000))
        .as("a takeover from a row that has changed")
        .isEmpty();
    LeaseRow current = table.takeOver(taken, "node-b", 5_000).orElseThrow();
    assertThat(current.epoch()).isEqualTo(2);

    assertThat(table.renew("node-a", 1, 9_000)).isEmpty();
    assertThat(table.release("node-a", 1)).isEmpty();
    assertThat(table.renew("node-b", 1, 9_000)).as("right node, stale epoch").isEmpty();
    assertThat(table.read()).isEqualTo(current);
    assertThat(table.renew("node-b", 2, 9_000)).isPresent();
  }

  @Test
  void aRestartedNodeTakesOverWithANewEpochAndItsOldEpochIsFenced() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    FaultyBackend crashing = node();
    MaintenanceLease before = lease(crashing, "node-a", clock);
    before.start();
    long oldEpoch = leaderEpoch(before);
    crashing.kill();
    before.close(); // its release cannot reach the database: as if the process had died

    MaintenanceLease after = lease(node(), "node-a", clock);
    after.start();
    advanceUntil(
        clock,
        "the restarted node holds the lease",
        () -> after.state() instanceof LeaseState.Leader);
    long newEpoch = leaderEpoch(after);
    assertThat(newEpoch).isGreaterThan(oldEpoch);

    LeaseTable table = new LeaseTable(openNodeBackend());
    assertThat(table.renew("node-a", oldEpoch, clock.millis() + 60_000)).isEmpty();
    assertThat(table.release("node-a", oldEpoch)).isEmpty();
    assertThat(table.read().epoch()).isEqualTo(newEpoch);
  }

  @Test
  void aCleanShutdownReleasesTheLeaseForAnotherNodeAtOnce() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    MaintenanceLease first = lease(node(), "node-a", clock);
    first.start();
    long firstEpoch = leaderEpoch(first);
    MaintenanceLease second = lease(node(), "node-b", clock);
    second.start();
    LeaseTable table = new LeaseTable(openNodeBackend());
    long expiry = table.read().expiresAtMillis();

    first.close();
    assertThat(first.state()).isEqualTo(new LeaseState.Follower());
    // Released: nobody holds it, or the other node already took it (its renewals run on their own
    // thread, so it may have been quicker than this read).
    assertThat(table.read().holder()).isNotEqualTo(Optional.of("node-a"));
    advanceUntil(
        clock, "the other node takes over", () -> second.state() instanceof LeaseState.Leader);
    assertThat(clock.millis()).as("no wait for the expiry").isLessThan(expiry);
    assertThat(leaderEpoch(second)).isEqualTo(firstEpoch + 1);
  }

  // ------------------------------------------------------------------------------ raw SQL

  private static List<byte[]> payloads(SqlBackend backend) throws SQLException {
    return backend.withConnection(
        connection -> {
          List<byte[]> payloads = new ArrayList<>();
          try (Statement select = connection.createStatement();
              ResultSet rows =
                  select.executeQuery(
                      "SELECT payload FROM " + backend.tables().log() + " ORDER BY idx")) {
            while (rows.next()) {
              payloads.add(rows.getBytes(1));
            }
          }
          return payloads;
        });
  }

  private static long lastIndex(SqlBackend backend) throws SQLException {
    return queryLong(backend, "SELECT COALESCE(MAX(idx), 0) FROM " + backend.tables().log());
  }

  private static long oldestIndex(SqlBackend backend) throws SQLException {
    return queryLong(backend, "SELECT COALESCE(MIN(idx), 0) FROM " + backend.tables().log());
  }

  private static long snapshotIndex(SqlBackend backend) throws SQLException {
    return queryLong(backend, "SELECT COALESCE(MAX(idx), 0) FROM " + backend.tables().snapshot());
  }

  private static long count(SqlBackend backend, String table) throws SQLException {
    return queryLong(backend, "SELECT COUNT(*) FROM " + table);
  }

  private static long queryLong(SqlBackend backend, String sql) throws SQLException {
    return backend.withConnection(
        connection -> {
          try (Statement select = connection.createStatement();
              ResultSet rows = select.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
          }
        });
  }

  private static void insertRow(SqlBackend backend, long index, byte[] payload)
      throws SQLException {
    backend.withConnection(
        connection -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO " + backend.tables().log() + " (idx, payload) VALUES (?, ?)")) {
            insert.setLong(1, index);
            insert.setBytes(2, payload);
            return insert.executeUpdate();
          }
        });
  }

  private static void execute(SqlBackend backend, String sql) throws SQLException {
    backend.withConnection(
        connection -> {
          try (Statement statement = connection.createStatement()) {
            return statement.executeUpdate(sql);
          }
        });
  }
}
