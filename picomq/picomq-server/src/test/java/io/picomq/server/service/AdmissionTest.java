package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.server.service.Registration.ForkOrigin;
import io.picomq.server.service.Registration.ProducerState;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.ForkPoint;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The admission gate's checks, each on its own and in the contract's order. */
class AdmissionTest {
  private static final long TAIL = 7;

  @Test
  void aPlainAppendToAnOpenStreamGoesOn() {
    assertThat(Admission.judge(entry(), TAIL, append())).isEmpty();
  }

  @Test
  void contentTypeIsComparedByMediaTypeAndComesFirst() {
    Registration closed = entry().withClosed(true);
    assertThat(Admission.judge(closed, TAIL, append(Optional.of("application/json"), none())))
        .hasValue(new AppendVerdict.ContentTypeMismatch("text/plain"));
    assertThat(
            Admission.judge(
                entry(), TAIL, append(Optional.of("Text/Plain; charset=utf-8"), none())))
        .isEmpty();
  }

  @Test
  void producerSeqsMustFollowOnInTheirEpoch() {
    Registration known =
        entry().withWriter(Optional.empty(), Map.of("p", new ProducerState(3, 10)));
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("p", 3, 11))).isEmpty();
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("p", 3, 10)))
        .hasValue(new AppendVerdict.Duplicate(10, TAIL, false));
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("p", 3, 13)))
        .hasValue(new AppendVerdict.SeqGap(11, 13));
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("p", 2, 11)))
        .hasValue(new AppendVerdict.StaleEpoch(3));
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("p", 4, 0))).isEmpty();
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("p", 4, 1)))
        .hasValue(new AppendVerdict.EpochMustStartAtZero(4, 1));
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("new", 0, 0))).isEmpty();
    assertThat(Admission.judgeProducer(known, TAIL, new ProducerTag("new", 0, 2)))
        .hasValue(new AppendVerdict.SeqGap(0, 2));
  }

  @Test
  void aDuplicateIsAnsweredEvenOnAClosedStream() {
    Registration closed =
        entry().withWriter(Optional.empty(), Map.of("p", new ProducerState(0, 4))).withClosed(true);
    assertThat(Admission.judge(closed, TAIL, append(Optional.empty(), producer(0, 4))))
        .hasValue(new AppendVerdict.Duplicate(4, TAIL, true));
    assertThat(Admission.judge(closed, TAIL, append(Optional.empty(), producer(0, 5))))
        .hasValue(new AppendVerdict.Closed(TAIL));
  }

  @Test
  void closingAClosedStreamAgainGoesOnButAppendingDoesNot() {
    Registration closed = entry().withClosed(true);
    assertThat(Admission.judge(closed, TAIL, AppendRequest.closeOnly())).isEmpty();
    assertThat(Admission.judge(closed, TAIL, append())).hasValue(new AppendVerdict.Closed(TAIL));
  }

  @Test
  void writerSeqsMustGrowByteWise() {
    Registration written = entry().withWriter(Optional.of("b"), Map.of());
    assertThat(Admission.judge(written, TAIL, withWriterSeq("c"))).isEmpty();
    assertThat(Admission.judge(written, TAIL, withWriterSeq("b")))
        .hasValue(new AppendVerdict.WriterSeqRegression("b", "b"));
    assertThat(Admission.judge(written, TAIL, withWriterSeq("a")))
        .hasValue(new AppendVerdict.WriterSeqRegression("b", "a"));
    // Unsigned bytes: "é" (0xC3 0xA9) sorts after every ASCII letter.
    assertThat(Admission.judge(written, TAIL, withWriterSeq("é"))).isEmpty();
  }

  @Test
  void anExpectedSeqMustBeTheTail() {
    assertThat(Admission.judge(entry(), TAIL, expecting(TAIL))).isEmpty();
    assertThat(Admission.judge(entry(), TAIL, expecting(TAIL - 1)))
        .hasValue(new AppendVerdict.TailMismatch(TAIL - 1, TAIL));
  }

  @Test
  void aRepeatedCreateMatchesOnlyTheSameConfiguration() {
    Registration plain = entry();
    assertThat(Admission.configMismatch(plain, CreateRequest.of("text/plain"))).isEmpty();
    assertThat(Admission.configMismatch(plain, CreateRequest.of("application/json")))
        .hasValue("the stream exists with content type text/plain");
    assertThat(
            Admission.configMismatch(
                plain,
                new CreateRequest(
                    Optional.of("text/plain"),
                    Optional.of(new Expiry.Ttl(60)),
                    false,
                    List.of(),
                    Optional.empty())))
        .hasValue("the stream exists with another expiry");
    assertThat(Admission.configMismatch(plain.withClosed(true), CreateRequest.of("text/plain")))
        .hasValue("the stream exists and is closed");
    assertThat(Admission.configMismatch(plain, fork(ForkPoint.atTail("/src"))))
        .hasValue("the stream exists and is not a fork");
  }

  @Test
  void aRepeatedForkTakesItsSourcesDefaultsAndMustBranchAtTheSamePoint() {
    Registration forked =
        new Registration(
            9,
            "text/plain",
            new Expiry.Ttl(60),
            0,
            false,
            false,
            0,
            0,
            Optional.of(new ForkOrigin("/src", 3, 0)),
            List.of(new Segment(5, 0, 3, 0), new Segment(9, 3, Segment.OPEN_END, 0)),
            Optional.empty(),
            Map.of(),
            3);
    assertThat(Admission.configMismatch(forked, fork(ForkPoint.atTail("/src")))).isEmpty();
    assertThat(Admission.configMismatch(forked, fork(ForkPoint.at("/src", 3)))).isEmpty();
    assertThat(Admission.configMismatch(forked, fork(ForkPoint.at("/src", 2))))
        .hasValue("the stream exists as a fork from another point");
    assertThat(Admission.configMismatch(forked, fork(ForkPoint.atTail("/other"))))
        .hasValue("the stream exists as a fork from another point");
    assertThat(Admission.configMismatch(forked, CreateRequest.of("text/plain")))
        .hasValue("the stream exists with another expiry");
  }

  private static Registration entry() {
    return new Registration(
        5,
        "text/plain",
        Expiry.NEVER,
        0,
        false,
        false,
        0,
        0,
        Optional.empty(),
        List.of(new Segment(5, 0, Segment.OPEN_END, 0)),
        Optional.empty(),
        Map.of(),
        0);
  }

  private static AppendRequest append() {
    return append(Optional.empty(), none());
  }

  private static Optional<ProducerTag> none() {
    return Optional.empty();
  }

  private static Optional<ProducerTag> producer(long epoch, long seq) {
    return Optional.of(new ProducerTag("p", epoch, seq));
  }

  private static AppendRequest append(
      Optional<String> contentType, Optional<ProducerTag> producer) {
    return new AppendRequest(
        List.of(NewRecord.of("x".getBytes(UTF_8))),
        contentType,
        producer,
        Optional.empty(),
        OptionalLong.empty(),
        false);
  }

  private static AppendRequest withWriterSeq(String writerSeq) {
    return new AppendRequest(
        List.of(NewRecord.of("x".getBytes(UTF_8))),
        Optional.empty(),
        Optional.empty(),
        Optional.of(writerSeq),
        OptionalLong.empty(),
        false);
  }

  private static AppendRequest expecting(long seq) {
    return new AppendRequest(
        List.of(NewRecord.of("x".getBytes(UTF_8))),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        OptionalLong.of(seq),
        false);
  }

  private static CreateRequest fork(ForkPoint point) {
    return new CreateRequest(
        Optional.empty(), Optional.empty(), false, List.of(), Optional.of(point));
  }
}
