package io.picomq.server.service;

import io.picomq.server.service.Registration.ForkOrigin;
import io.picomq.server.service.Registration.ProducerState;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.ForkPoint;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.StreamService;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * The admission gate: whether an append or a repeated create may go on, decided from the entry and
 * the tail alone. Pure functions: no I/O, no locks, no clock; the caller holds the stream's lock so
 * the entry and the tail it passes are the ones the append will build on.
 */
final class Admission {
  /** The content type of a stream created without one. */
  static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

  private Admission() {}

  /**
   * The refusal of {@code request} against a stream with this entry whose next seq is {@code
   * assignedTail}, checked in the contract's order (content type, producer, seal, writer seq,
   * expected seq); empty to go on. Closing a closed stream again (no records, no producer) goes on:
   * the caller answers it.
   */
  static Optional<AppendVerdict> judge(
      Registration registration, long assignedTail, AppendRequest request) {
    if (!request.records().isEmpty()
        && request.contentType().isPresent()
        && !StreamService.sameMediaType(request.contentType().get(), registration.contentType())) {
      return Optional.of(new AppendVerdict.ContentTypeMismatch(registration.contentType()));
    }
    if (request.producer().isPresent()) {
      Optional<AppendVerdict> refused =
          judgeProducer(registration, assignedTail, request.producer().get());
      if (refused.isPresent()) {
        return refused;
      }
    }
    if (registration.closed()) {
      if (request.records().isEmpty() && request.producer().isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new AppendVerdict.Closed(assignedTail));
    }
    if (request.writerSeq().isPresent() && registration.writerSeq().isPresent()) {
      String last = registration.writerSeq().get();
      String received = request.writerSeq().get();
      if (Arrays.compareUnsigned(
              received.getBytes(StandardCharsets.UTF_8), last.getBytes(StandardCharsets.UTF_8))
          <= 0) {
        return Optional.of(new AppendVerdict.WriterSeqRegression(last, received));
      }
    }
    if (request.expectedNextSeq().isPresent()
        && request.expectedNextSeq().getAsLong() != assignedTail) {
      return Optional.of(
          new AppendVerdict.TailMismatch(request.expectedNextSeq().getAsLong(), assignedTail));
    }
    return Optional.empty();
  }

  /**
   * The refusal of an idempotent producer's append: a duplicate (its seq was accepted already), a
   * stale epoch, a new epoch not starting at 0, or a gap; empty when the seq is the next one.
   */
  static Optional<AppendVerdict> judgeProducer(
      Registration registration, long assignedTail, ProducerTag stamp) {
    ProducerState known = registration.producers().get(stamp.id());
    if (known == null) {
      return stamp.seq() == 0
          ? Optional.empty()
          : Optional.of(new AppendVerdict.SeqGap(0, stamp.seq()));
    }
    if (stamp.epoch() < known.epoch()) {
      return Optional.of(new AppendVerdict.StaleEpoch(known.epoch()));
    }
    if (stamp.epoch() > known.epoch()) {
      return stamp.seq() == 0
          ? Optional.empty()
          : Optional.of(new AppendVerdict.EpochMustStartAtZero(stamp.epoch(), stamp.seq()));
    }
    if (stamp.seq() <= known.lastSeq()) {
      return Optional.of(
          new AppendVerdict.Duplicate(known.lastSeq(), assignedTail, registration.closed()));
    }
    if (stamp.seq() == known.lastSeq() + 1) {
      return Optional.empty();
    }
    return Optional.of(new AppendVerdict.SeqGap(known.lastSeq() + 1, stamp.seq()));
  }

  /**
   * Why a repeated create differs from the existing stream, or empty when it is the same create
   * (then it answers "exists"). A fork's omitted content type and expiry default to the existing
   * stream's (they come from the source); a plain create's to the defaults.
   */
  static Optional<String> configMismatch(Registration existing, CreateRequest request) {
    boolean fork = request.fork().isPresent();
    String contentType =
        request.contentType().orElse(fork ? existing.contentType() : DEFAULT_CONTENT_TYPE);
    if (!StreamService.sameMediaType(contentType, existing.contentType())) {
      return Optional.of("the stream exists with content type " + existing.contentType());
    }
    Expiry expiry = request.expiry().orElse(fork ? existing.expiry() : Expiry.NEVER);
    if (!expiry.equals(existing.expiry())) {
      return Optional.of("the stream exists with another expiry");
    }
    if (request.closed() != existing.closed()) {
      return Optional.of(
          existing.closed() ? "the stream exists and is closed" : "the stream exists and is open");
    }
    if (fork != existing.fork().isPresent()) {
      return Optional.of(
          fork ? "the stream exists and is not a fork" : "the stream exists as a fork");
    }
    if (fork) {
      ForkPoint point = request.fork().get();
      ForkOrigin origin = existing.fork().get();
      boolean same =
          point.source().equals(origin.source())
              && (point.seq().isEmpty() || point.seq().getAsLong() == origin.seq())
              && point.partialBytes() == origin.partialBytes();
      if (!same) {
        return Optional.of("the stream exists as a fork from another point");
      }
    }
    return Optional.empty();
  }
}
