package io.picomq.server.service;

import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.ListQuery;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamPage;
import io.picomq.stream.StreamUnusableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lists names from the registry in the metadata state, in key order: a loaded stream as it is,
 * another from its entry and the engine stream's end offset in the state, without loading it (a
 * listing of ten thousand names opens no engine stream).
 *
 * <p>Threading: any thread; reads an immutable metadata state and takes each loaded stream's lock
 * for a moment.
 */
final class Listing {
  private final MetadataPlane plane;
  private final LoadedStreams loaded;

  Listing(MetadataPlane plane, LoadedStreams loaded) {
    this.plane = plane;
    this.loaded = loaded;
  }

  /** The page {@code request} asks for, as of {@code now}. */
  StreamPage page(ListQuery request, long now) {
    MetadataState state = plane.state();
    String from = Registry.key(request.startAfter().orElse(request.prefix()));
    List<StreamDescription> page = new ArrayList<>();
    boolean hasMore = false;
    for (Map.Entry<String, KvValue> entry :
        state.kv().tailMap(from, request.startAfter().isEmpty()).entrySet()) {
      if (!entry.getKey().startsWith(Registry.key(request.prefix()))) {
        break;
      }
      Optional<StreamDescription> info =
          listed(Registry.nameOf(entry.getKey()), entry.getValue(), state, now);
      if (info.isEmpty()) {
        continue;
      }
      if (page.size() == request.limit()) {
        hasMore = true;
        break;
      }
      page.add(info.get());
    }
    return new StreamPage(page, hasMore);
  }

  /**
   * What a listing shows of a name: a loaded stream as it is, another as the metadata state says
   * (without loading it); nothing for a deleted, expired or unusable one (an unusable entry is
   * reported in the log and the admin API).
   */
  private Optional<StreamDescription> listed(
      String name, KvValue value, MetadataState state, long now) {
    Optional<LiveStream> loadedStream = loaded.published(name);
    if (loadedStream.isPresent()) {
      LiveStream stream = loadedStream.get();
      stream.lock.lock();
      try {
        if (stream.removed
            || stream.registration.softDeleted()
            || Expirations.expired(stream, now)) {
          return Optional.empty();
        }
        return Optional.of(stream.info());
      } finally {
        stream.lock.unlock();
      }
    }
    Registration registration;
    try {
      registration = loaded.decode(name, value);
    } catch (StreamUnusableException unusable) {
      return Optional.empty();
    }
    if (registration.softDeleted()
        || Expirations.expired(
            registration.expiry(), Math.max(registration.activityMillis(), now), now)) {
      return Optional.empty();
    }
    return Optional.of(infoFromView(name, registration, state));
  }

  private static StreamDescription infoFromView(
      String name, Registration registration, MetadataState state) {
    Segment own = registration.own();
    long end = state.stream(own.streamId()).map(StreamEntry::endOffset).orElse(0L);
    long tail = own.seqStart() + end - own.offsetStart();
    return new StreamDescription(
        name,
        registration.streamId(),
        registration.contentType(),
        registration.expiry(),
        Expirations.expiresAt(registration.expiry(), registration.activityMillis()),
        Math.min(registration.startSeq(), tail),
        tail,
        registration.closed());
  }
}
